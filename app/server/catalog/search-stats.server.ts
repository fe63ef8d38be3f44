import { sql } from "drizzle-orm";
import { readDb } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";

/**
 * How common a search's grams are, from PostgreSQL's own statistics on the gram index
 * (docs/decisions/271): ANALYZE (autovacuum's, on PostgreSQL) samples the works and keeps
 * the most common elements of work_search_grams(title, description) with the share of works
 * holding each, about the thousand commonest (each in a few per cent of the works or more
 * at the default statistics target). The search reads them to pick its plan before reading
 * any work: a common character is served by walking the newest works, a fairly common one
 * by a window of the newest works, anything else by the gram index (search.server.ts).
 * Without statistics (PGlite never analyses by itself) every query takes the gram index, as
 * before.
 */
type GramShares = { shares: Map<string, number>; works: number; readAt: number };

/** Statistics change slowly (autovacuum's ANALYZE); each process reads them this often. */
const GRAM_SHARES_TTL_MS = 10 * 60_000;
let cached: GramShares | undefined;
let reading: Promise<GramShares> | undefined;

async function readGramShares(): Promise<GramShares> {
  const rows = rowsOf<{ elems: string[] | null; freqs: number[] | null; works: number }>(
    await readDb().execute(
      sql`select s.elems, s.freqs, greatest(c.reltuples, 0)::float8 as works
          from pg_class c left join (
            select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs
            from pg_stats where schemaname = current_schema() and tablename = 'works_search_grams_idx'
          ) s on true
          where c.oid = 'works'::regclass`,
    ),
  );
  const shares = new Map<string, number>();
  const { elems, freqs, works } = rows[0] ?? { elems: null, freqs: null, works: 0 };
  // most_common_elem_freqs holds one share per element, then the least and greatest of
  // them and the share of null arrays.
  if (elems && freqs) elems.forEach((elem, i) => shares.set(elem, Number(freqs[i])));
  return { shares, works: Number(works), readAt: Date.now() };
}

export interface SearchStats {
  /** The planner's estimate of the number of works (pg_class.reltuples; 0 before any ANALYZE). */
  works: number;
  /**
   * The estimated share of works holding every one of `grams` (the least of their shares:
   * an upper bound), or undefined when one of them is not among the common elements (rarer
   * than the statistics' floor, or no statistics).
   */
  share(grams: string[]): number | undefined;
}

export async function searchStats(): Promise<SearchStats> {
  if (!cached || Date.now() - cached.readAt > GRAM_SHARES_TTL_MS) {
    reading ??= readGramShares().finally(() => (reading = undefined));
    cached = await reading;
  }
  const { shares, works } = cached;
  return {
    works,
    share(grams) {
      if (grams.length === 0) return undefined;
      let least = Infinity;
      for (const gram of grams) {
        const share = shares.get(gram);
        if (share === undefined) return undefined;
        least = Math.min(least, share);
      }
      return least;
    },
  };
}

/** @internal Tests: read the statistics again at the next search (after an ANALYZE). */
export function forgetGramShares() {
  cached = undefined;
}
