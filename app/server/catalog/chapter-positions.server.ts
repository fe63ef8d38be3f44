import { sql } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { chapters, volumes } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";

/**
 * Ordering a work's chapters and volume headings without rewriting every row
 * (docs/decisions/080). Both live in one space of gapped integer positions: a new
 * chapter at the end takes the last position + GAP, an insert or a move takes the middle
 * of its gap and writes one row. Only when a gap is used up (about 16 inserts into the
 * same spot) are the neighbours around it spread out again, a window that grows until
 * it has room: a few rows, not the work. Callers hold the work's row lock, so two
 * writers never allocate from the same gap.
 */
export const GAP = 65_536;
/** Spacing a renumbered window must reach: room for several more inserts in each gap. */
const MIN_SPACING = 1_024;

export interface Slot {
  kind: "chapter" | "volume";
  id: number;
  position: number;
}

/** A work's chapters and volume headings in order (a volume before a chapter at a tie). */
export async function slotsOf(tx: Executor, workId: number): Promise<Slot[]> {
  const rows = rowsOf<{ kind: "chapter" | "volume"; id: string | number; position: string | number }>(
    await tx.execute(sql`
      select 'volume' as kind, id, position from ${volumes} where work_id = ${workId}
      union all
      select 'chapter' as kind, id, position from ${chapters} where work_id = ${workId}
      order by position, kind desc, id`),
  );
  return rows.map((r) => ({ kind: r.kind, id: Number(r.id), position: Number(r.position) }));
}

type Excluded = (s: Slot) => boolean;
const key = (s: Pick<Slot, "kind" | "id">) => `${s.kind}:${s.id}`;

/** The largest position below `hi` (or overall) among the work's slots not excluded. */
async function positionBelow(tx: Executor, workId: number, hi: number | null, exclude: Slot[]): Promise<number | null> {
  const chapterIds = exclude.filter((s) => s.kind === "chapter").map((s) => s.id);
  const volumeIds = exclude.filter((s) => s.kind === "volume").map((s) => s.id);
  const below = hi === null ? sql`true` : sql`position < ${hi}`;
  const notIn = (ids: number[]) => (ids.length ? sql`id <> all(${`{${ids.join(",")}}`}::bigint[])` : sql`true`);
  const [row] = rowsOf<{ p: string | number | null }>(
    await tx.execute(sql`
      select greatest(
        (select max(position) from ${chapters} where work_id = ${workId} and ${below} and ${notIn(chapterIds)}),
        (select max(position) from ${volumes} where work_id = ${workId} and ${below} and ${notIn(volumeIds)})
      ) as p`),
  );
  return row.p === null ? null : Number(row.p);
}

/** `count` evenly spaced positions strictly between lo and hi (either may be open), or null. */
function spread(lo: number | null, hi: number | null, count: number): number[] | null {
  if (lo === null && hi === null) return Array.from({ length: count }, (_, i) => (i + 1) * GAP);
  if (hi === null) return Array.from({ length: count }, (_, i) => lo! + (i + 1) * GAP);
  if (lo === null) return Array.from({ length: count }, (_, i) => hi - (count - i) * GAP);
  const step = Math.floor((hi - lo) / (count + 1));
  if (step < 1) return null;
  return Array.from({ length: count }, (_, i) => lo + (i + 1) * step);
}

/**
 * `count` new positions, in order, just before the position `hi` (null: after
 * everything), leaving out the `exclude`d slots (the ones being moved). When the gap has
 * no room, a window of neighbours around it is renumbered first.
 */
export async function positionsBefore(
  tx: Executor,
  workId: number,
  hi: number | null,
  count: number,
  exclude: Slot[] = [],
): Promise<number[]> {
  const lo = await positionBelow(tx, workId, hi, exclude);
  const fits = spread(lo, hi, count);
  if (fits) return fits;
  return renumberAround(tx, workId, hi!, count, exclude);
}

/**
 * Spreads the slots around the spot before `hi` so that `count` positions fit there and
 * returns them. The window doubles until the positions bounding it leave MIN_SPACING
 * between its slots (an open end always does).
 */
async function renumberAround(tx: Executor, workId: number, hi: number, count: number, exclude: Slot[]): Promise<number[]> {
  const skipped = new Set(exclude.map(key));
  const isExcluded: Excluded = (s) => skipped.has(key(s));
  const all = (await slotsOf(tx, workId)).filter((s) => !isExcluded(s));
  const spot = all.findIndex((s) => s.position >= hi);
  const at = spot === -1 ? all.length : spot;
  for (let radius = 4; ; radius *= 2) {
    const from = Math.max(0, at - radius);
    const to = Math.min(all.length, at + radius);
    const lo = from > 0 ? all[from - 1].position : null;
    const up = to < all.length ? all[to].position : null;
    const items = to - from + count;
    const open = lo === null || up === null;
    if (!open && Math.floor((up! - lo!) / (items + 1)) < MIN_SPACING) continue;
    const positions = spread(lo, up, items)!;
    const moved: Slot[] = [];
    const fresh: number[] = [];
    for (let i = 0, j = from; i < items; i++) {
      if (from + i >= at && fresh.length < count && from + i - at < count) {
        fresh.push(positions[i]);
      } else {
        moved.push({ ...all[j], position: positions[i] });
        j++;
      }
    }
    await writePositions(tx, moved);
    return fresh;
  }
}

/** Writes new positions for chapters and volume headings: one statement per table. */
export async function writePositions(tx: Executor, slots: Slot[]): Promise<void> {
  for (const [kind, table] of [["chapter", chapters], ["volume", volumes]] as const) {
    const rows = slots.filter((s) => s.kind === kind).map((s) => ({ id: s.id, position: s.position }));
    if (rows.length === 0) continue;
    await tx.execute(sql`
      update ${table} set position = r.position
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id bigint, position bigint)
      where ${table}.id = r.id`);
  }
}
