// Search measurement shared by bench:search and bench:scale: the queries (1, 2 and 4
// characters of the novel, spread from rare to common) and the timing of a search function
// with the EXPLAIN (ANALYZE, BUFFERS) of the statements it sends.
import { sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { works } from "~/db/schema";
import { loadCorpus, ngramsByFrequency } from "./lib-corpus";
import { captureQueries, executionMs, explainAnalyze, percentile, planSummary, rowsOf, sqlFromText } from "./lib-db";

export interface Timing {
  n: number;
  p50: number;
  p95: number;
  max: number;
  total: number;
  plans: string[];
  planText: string;
  explainMs: number[];
}

export async function measure(db: Database, fn: () => Promise<unknown>, budgetMs: number): Promise<Timing> {
  // Warm up (connections, caches, prepared statements), then capture the statements of
  // one call and EXPLAIN ANALYZE them.
  for (let i = 0; i < 3; i++) await fn();
  const statements = await captureQueries(db, fn);
  const plans: string[] = [];
  const texts: string[] = [];
  const explainMs: number[] = [];
  // Replayed in order in one transaction: searchWorks's `select set_config(...)` statements
  // are run (they choose the plan of what follows), the others explained. The card query
  // (the one joining profiles) runs after searchWorks's transaction, so the settings are
  // reset before it.
  await db.transaction(async (tx) => {
    for (const st of statements) {
      if (/^select set_config\(/.test(st.text)) {
        await tx.execute(sqlFromText(st.text, st.params));
        texts.push(`${st.text}\n  params: ${JSON.stringify(st.params)}`);
        continue;
      }
      if (st.text.includes('join "profiles"')) await tx.execute(sql`reset all`);
      const plan = await explainAnalyze(tx as unknown as Database, st);
      plans.push(planSummary(plan));
      explainMs.push(executionMs(plan) ?? NaN);
      texts.push(`${st.text}\n  params: ${JSON.stringify(st.params)}\n${plan}`);
    }
  });
  const samples: number[] = [];
  const maxIterations = 200;
  const minIterations = 15;
  const started = performance.now();
  // At least 15 samples within the budget; a path slower than budget/3 per call stops
  // at 5 samples once 5 budgets have passed (its p95 is then its maximum).
  while (samples.length < maxIterations) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
    const elapsed = performance.now() - started;
    if (samples.length >= minIterations && elapsed > budgetMs) break;
    if (samples.length >= 5 && elapsed > 5 * budgetMs) break;
  }
  samples.sort((a, b) => a - b);
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: samples[samples.length - 1],
    total: samples.reduce((a, b) => a + b, 0),
    plans,
    planText: texts.join("\n\n"),
    explainMs,
  };
}

export interface PickedQuery {
  length: number;
  query: string;
  label: string;
  matches: number;
}

/**
 * Queries of 1, 2 and 4 characters cut from the novel, chosen so their match fractions
 * spread from rare (well under 1%) to common, plus for 4 characters a rare 4-gram whose
 * character pairs are all common (the hardest case for a pair index). With samplePercent the
 * matches are estimated from that share of the table's pages.
 */
export async function pickQueries(db: Database, totalWorks: number, samplePercent?: number, only?: string[]): Promise<PickedQuery[]> {
  const matchCount = (q: string) => countMatches(db, q, totalWorks, samplePercent);
  // Given queries (--queries=): those, measured in the order given.
  if (only) return Promise.all(only.map(async (query) => ({ length: Array.from(query).length, query, label: "", matches: await matchCount(query) })));
  const corpus = loadCorpus();
  const targets = [0.0005, 0.003, 0.01, 0.05, 0.2, 0.6];
  const picked: PickedQuery[] = [];
  for (const length of [1, 2, 4]) {
    const grams = ngramsByFrequency(corpus, length);
    const ranks = new Set<number>();
    for (let k = 0; ; k++) {
      const r = Math.floor(1.6 ** k) - 1;
      if (r >= Math.min(grams.length, 30_000)) break;
      ranks.add(r);
    }
    const candidates: { query: string; matches: number }[] = [];
    for (const r of ranks) candidates.push({ query: grams[r].gram, matches: await matchCount(grams[r].gram) });
    const chosen = new Set<string>();
    for (const target of targets) {
      let best: { query: string; matches: number } | undefined;
      let bestDistance = Infinity;
      for (const c of candidates) {
        if (c.matches === 0 || chosen.has(c.query)) continue;
        const d = Math.abs(Math.log(c.matches / totalWorks / target));
        if (d < bestDistance) {
          bestDistance = d;
          best = c;
        }
      }
      // Only when reasonably near the target (within a factor of 3).
      if (best && bestDistance < Math.log(3)) chosen.add(best.query);
    }
    for (const c of candidates.filter((c) => chosen.has(c.query)).sort((a, b) => a.matches - b.matches)) {
      picked.push({ length, query: c.query, label: "", matches: c.matches });
    }
    if (length === 4) {
      const pairFrequency = new Map(ngramsByFrequency(corpus, 2).map((g) => [g.gram, g.count]));
      const scored = grams
        .filter((g) => g.count <= 2)
        .map((g) => {
          const chars = Array.from(g.gram);
          const score = Math.min(...[0, 1, 2].map((i) => pairFrequency.get(chars[i] + chars[i + 1]) ?? 0));
          return { gram: g.gram, score };
        })
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      let hardest: PickedQuery | undefined;
      for (const s of scored) {
        const matches = await matchCount(s.gram);
        if (matches > 0 && matches <= totalWorks * 0.005 && (!hardest || matches < hardest.matches)) {
          hardest = { length, query: s.gram, label: "rare, common pairs", matches };
        }
      }
      if (hardest) picked.push(hardest);
    }
  }
  return picked;
}


/**
 * The works matching `q` (title or description): counted exactly, or with samplePercent in a
 * fixed sample of the table's pages and scaled up (a count over a million works takes a
 * minute a query for the commonest characters).
 */
async function countMatches(db: Database, q: string, totalWorks: number, samplePercent?: number): Promise<number> {
  const search = await import("~/server/catalog/search-sql.server");
  if (!samplePercent) {
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(works).where(search.substringMatch(q));
    return n;
  }
  const pattern = `%${search.normalizeQuery(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [row] = rowsOf<{ hits: number; seen: number }>(
    await db.execute(sql`select (count(*) filter (where title ilike ${pattern} or description ilike ${pattern}))::int as hits, count(*)::int as seen
                         from works tablesample system (${samplePercent}) repeatable (7)`),
  );
  return Math.round((row.hits / Math.max(1, row.seen)) * totalWorks);
}
