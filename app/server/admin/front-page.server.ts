import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import { refuseForbidden } from "~/server/screening/screening.server";
import { db, type Executor, type Transaction } from "~/db/client.server";
import { announcements, curatedRows, curatedRowWorks, profiles, rankingRemovals, works } from "~/db/schema";
import {
  CURATED_ROW_WORKS_MAX,
  CURATED_ROWS_MAX,
  FRONT_PAGE_MESSAGES as M,
  type AnnouncementAction,
  type CuratedRowAction,
  type CuratedWorkAction,
  type RankingAction,
} from "~/schemas/front-page";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { pgErrorCode } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { publish } from "~/server/platform/events.server";
import { clearPublicCache } from "~/server/platform/public-cache.server";

/**
 * The operators' writes of the front page (docs/product.md#front-page, docs/decisions/198):
 * 编辑推荐 rows and their works, works removed from the rankings, announcements. Each
 * change is one transaction with its audit row, and ends by announcing the live event
 * `site` on commit, so every process drops its copy of the home page, the rankings and
 * the visitors' page cache at once (public-cache.server.ts, server/page-cache.js).
 */

async function changed(tx: Executor): Promise<void> {
  await publish({ topic: "site", kind: "front-page" }, tx);
}

/** One change in one transaction; this process forgets its shared copies at once after the commit. */
async function change<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  const result = await db.transaction(work);
  clearPublicCache();
  return result;
}

// ---- 编辑推荐 rows ----------------------------------------------------------------------

/** The rows in their order, with how many works each holds and how many show now. */
export async function listCuratedRowsForAdmin() {
  return db
    .select({
      id: curatedRows.id,
      name: curatedRows.name,
      works: sql<number>`(select count(*)::int from ${curatedRowWorks} cw where cw.row_id = ${curatedRows.id})`,
    })
    .from(curatedRows)
    .orderBy(asc(curatedRows.position), asc(curatedRows.id));
}

/** One row with its works in order (any state: the page says which ones readers cannot see). */
export async function getCuratedRowForAdmin(rawId: number) {
  if (!Number.isSafeInteger(rawId) || rawId <= 0) throw new DomainError(M.rowMissing, 404);
  const [row] = await db.select().from(curatedRows).where(eq(curatedRows.id, rawId));
  if (!row) throw new DomainError(M.rowMissing, 404);
  const items = await db
    .select({
      workId: curatedRowWorks.workId,
      startsAt: curatedRowWorks.startsAt,
      endsAt: curatedRowWorks.endsAt,
      title: works.title,
      visibility: works.visibility,
      takenDownAt: works.takenDownAt,
      authorNickname: profiles.nickname,
    })
    .from(curatedRowWorks)
    .innerJoin(works, eq(works.id, curatedRowWorks.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(eq(curatedRowWorks.rowId, rawId))
    .orderBy(asc(curatedRowWorks.position), asc(curatedRowWorks.workId));
  return { row: { id: row.id, name: row.name }, items };
}

/** Swaps a row (or a work in a row) with its neighbour in (position, key) order; refused at the ends. */
async function swapWithNeighbour<T extends { position: number }>(
  up: boolean,
  current: T,
  neighbour: T | undefined,
  write: (item: T, position: number) => Promise<void>,
): Promise<void> {
  if (!neighbour) throw new DomainError(up ? M.alreadyFirst : M.alreadyLast, 400);
  const [a, b] =
    neighbour.position === current.position
      ? up
        ? [current.position - 1, current.position]
        : [current.position + 1, current.position]
      : [neighbour.position, current.position];
  await write(current, a);
  await write(neighbour, b);
}

/**
 * One change of the rows: create (at the end), rename, delete (its works with it), move up
 * or down. Returns the row's id; `record` keeps a creating form's one-time token (decision 172).
 */
export async function runCuratedRowAction(actor: AdminActor, action: CuratedRowAction, record?: RecordResult): Promise<number> {
  return change(async (tx) => {
    // One writer of the rows' order at a time.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('curated_rows'))`);
    if (action.intent === "create") {
      const [{ count, last }] = await tx
        .select({ count: sql<number>`count(*)::int`, last: sql<number>`coalesce(max(${curatedRows.position}), 0)::int` })
        .from(curatedRows);
      if (count >= CURATED_ROWS_MAX) throw new DomainError(M.rowsFull, 400);
      const [row] = await tx.insert(curatedRows).values({ name: action.name, position: last + 1 }).returning({ id: curatedRows.id });
      await recordAdminAction(tx, actor, { action: "curated-row.create", targetType: "curated-row", targetId: row.id, after: { name: action.name } });
      await record?.(tx, row.id);
      await changed(tx);
      return row.id;
    }
    const [current] = await tx.select().from(curatedRows).where(eq(curatedRows.id, action.id)).for("update");
    if (!current) throw new DomainError(M.rowMissing, 404);
    if (action.intent === "rename") {
      await tx.update(curatedRows).set({ name: action.name, updatedAt: new Date() }).where(eq(curatedRows.id, action.id));
      await recordAdminAction(tx, actor, { action: "curated-row.rename", targetType: "curated-row", targetId: action.id, before: { name: current.name }, after: { name: action.name } });
    } else if (action.intent === "delete") {
      const held = await tx.select({ workId: curatedRowWorks.workId }).from(curatedRowWorks).where(eq(curatedRowWorks.rowId, action.id)).orderBy(asc(curatedRowWorks.position));
      await tx.delete(curatedRows).where(eq(curatedRows.id, action.id));
      await recordAdminAction(tx, actor, { action: "curated-row.delete", targetType: "curated-row", targetId: action.id, before: { name: current.name, works: held.map((w) => w.workId) } });
    } else {
      const up = action.intent === "up";
      const [neighbour] = await tx
        .select()
        .from(curatedRows)
        .where(
          up
            ? sql`(${curatedRows.position}, ${curatedRows.id}) < (${current.position}, ${current.id})`
            : sql`(${curatedRows.position}, ${curatedRows.id}) > (${current.position}, ${current.id})`,
        )
        .orderBy(...(up ? [desc(curatedRows.position), desc(curatedRows.id)] : [asc(curatedRows.position), asc(curatedRows.id)]))
        .limit(1)
        .for("update");
      await swapWithNeighbour(up, current, neighbour, async (row, position) => {
        await tx.update(curatedRows).set({ position }).where(eq(curatedRows.id, row.id));
      });
      await recordAdminAction(tx, actor, { action: up ? "curated-row.up" : "curated-row.down", targetType: "curated-row", targetId: action.id, before: { name: current.name } });
    }
    await changed(tx);
    return action.id;
  });
}

/** One change of a row's works: add (at the end, with its window), set the window, remove, move up or down. */
export async function runCuratedWorkAction(actor: AdminActor, rowId: number, action: CuratedWorkAction): Promise<void> {
  if (!Number.isSafeInteger(rowId) || rowId <= 0) throw new DomainError(M.rowMissing, 404);
  try {
    await change(async (tx) => {
      // The row locked: its works' order changes one writer at a time.
      const [row] = await tx.select({ id: curatedRows.id, name: curatedRows.name }).from(curatedRows).where(eq(curatedRows.id, rowId)).for("update");
      if (!row) throw new DomainError(M.rowMissing, 404);
      const target = { targetType: "curated-row", targetId: rowId };
      if (action.intent === "add") {
        const [work] = await tx.select({ id: works.id, title: works.title }).from(works).where(eq(works.id, action.workId));
        if (!work) throw new DomainError(M.workMissing, 404, "workId");
        const [{ count, last }] = await tx
          .select({ count: sql<number>`count(*)::int`, last: sql<number>`coalesce(max(${curatedRowWorks.position}), 0)::int` })
          .from(curatedRowWorks)
          .where(eq(curatedRowWorks.rowId, rowId));
        if (count >= CURATED_ROW_WORKS_MAX) throw new DomainError(M.rowFull, 400);
        const inserted = await tx
          .insert(curatedRowWorks)
          .values({ rowId, workId: work.id, position: last + 1, startsAt: action.startsAt, endsAt: action.endsAt })
          .onConflictDoNothing()
          .returning({ workId: curatedRowWorks.workId });
        if (inserted.length === 0) throw new DomainError(M.workAlreadyInRow, 409, "workId");
        await recordAdminAction(tx, actor, { action: "curated-row.add-work", ...target, after: { workId: work.id, title: work.title, startsAt: action.startsAt, endsAt: action.endsAt } });
        await changed(tx);
        return;
      }
      const [item] = await tx
        .select()
        .from(curatedRowWorks)
        .where(and(eq(curatedRowWorks.rowId, rowId), eq(curatedRowWorks.workId, action.workId)))
        .for("update");
      if (!item) throw new DomainError(M.workNotInRow, 404, "workId");
      if (action.intent === "schedule") {
        await tx
          .update(curatedRowWorks)
          .set({ startsAt: action.startsAt, endsAt: action.endsAt })
          .where(and(eq(curatedRowWorks.rowId, rowId), eq(curatedRowWorks.workId, action.workId)));
        await recordAdminAction(tx, actor, {
          action: "curated-row.schedule",
          ...target,
          before: { workId: item.workId, startsAt: item.startsAt, endsAt: item.endsAt },
          after: { workId: item.workId, startsAt: action.startsAt, endsAt: action.endsAt },
        });
      } else if (action.intent === "remove") {
        await tx.delete(curatedRowWorks).where(and(eq(curatedRowWorks.rowId, rowId), eq(curatedRowWorks.workId, action.workId)));
        await recordAdminAction(tx, actor, { action: "curated-row.remove-work", ...target, before: { workId: item.workId } });
      } else {
        const up = action.intent === "up";
        const [neighbour] = await tx
          .select()
          .from(curatedRowWorks)
          .where(
            and(
              eq(curatedRowWorks.rowId, rowId),
              up
                ? sql`(${curatedRowWorks.position}, ${curatedRowWorks.workId}) < (${item.position}, ${item.workId})`
                : sql`(${curatedRowWorks.position}, ${curatedRowWorks.workId}) > (${item.position}, ${item.workId})`,
            ),
          )
          .orderBy(...(up ? [desc(curatedRowWorks.position), desc(curatedRowWorks.workId)] : [asc(curatedRowWorks.position), asc(curatedRowWorks.workId)]))
          .limit(1)
          .for("update");
        await swapWithNeighbour(up, item, neighbour, async (w, position) => {
          await tx.update(curatedRowWorks).set({ position }).where(and(eq(curatedRowWorks.rowId, rowId), eq(curatedRowWorks.workId, w.workId)));
        });
        await recordAdminAction(tx, actor, { action: up ? "curated-row.work-up" : "curated-row.work-down", ...target, before: { workId: item.workId } });
      }
      await changed(tx);
    });
  } catch (error) {
    // The window's CHECK, should a value slip past the form's own check.
    if (pgErrorCode(error) === "23514") throw new DomainError(M.endBeforeStart, 400, "endsAt");
    throw error;
  }
}

// ---- Rankings ---------------------------------------------------------------------------

/** The works taken out of the rankings, most recent first. */
export async function listRankingRemovals() {
  return db
    .select({ workId: rankingRemovals.workId, reason: rankingRemovals.reason, createdAt: rankingRemovals.createdAt, title: works.title })
    .from(rankingRemovals)
    .innerJoin(works, eq(works.id, rankingRemovals.workId))
    .orderBy(desc(rankingRemovals.createdAt), desc(rankingRemovals.workId));
}

/** Takes a work out of every ranking and computed home row (with the reason), or puts it back; audited. */
export async function runRankingAction(actor: AdminActor, action: RankingAction): Promise<void> {
  await change(async (tx) => {
    const [work] = await tx.select({ id: works.id, title: works.title }).from(works).where(eq(works.id, action.workId)).for("share");
    if (!work) throw new DomainError(M.workMissing, 404, "workId");
    if (action.intent === "remove") {
      const inserted = await tx.insert(rankingRemovals).values({ workId: work.id, reason: action.reason }).onConflictDoNothing().returning({ workId: rankingRemovals.workId });
      if (inserted.length === 0) throw new DomainError(M.alreadyRemoved, 409, "workId");
      await recordAdminAction(tx, actor, { action: "ranking.remove", targetType: "work", targetId: work.id, after: { rankings: false }, reason: action.reason });
    } else {
      const removed = await tx.delete(rankingRemovals).where(eq(rankingRemovals.workId, work.id)).returning({ reason: rankingRemovals.reason });
      if (removed.length === 0) throw new DomainError(M.notRemoved, 409, "workId");
      await recordAdminAction(tx, actor, { action: "ranking.restore", targetType: "work", targetId: work.id, before: { rankings: false, reason: removed[0].reason }, after: { rankings: true } });
    }
    await changed(tx);
  });
}

// ---- 公告 ---------------------------------------------------------------------------------

/** Every announcement, the latest start first. */
export async function listAnnouncementsForAdmin() {
  return db.select().from(announcements).orderBy(desc(announcements.startsAt), desc(announcements.id)).limit(100);
}

/**
 * One change of the announcements: create (start empty: now), edit, end now, delete.
 * Returns its id; `record` keeps a creating form's one-time token (decision 172).
 */
export async function runAnnouncementAction(actor: AdminActor, action: AnnouncementAction, record?: RecordResult): Promise<number> {
  // Everyone reads a 公告: a 禁止 word in it is refused like anywhere else (decision 195).
  if (action.intent === "create" || action.intent === "update") {
    await refuseForbidden([
      { label: "公告标题", field: "title", text: action.title },
      { label: "公告内容", field: "body", text: action.body },
    ]);
  }
  try {
    return await change(async (tx) => {
      if (action.intent === "create") {
        const startsAt = action.startsAt ?? new Date();
        if (action.endsAt && action.endsAt <= startsAt) throw new DomainError(action.startsAt ? M.endBeforeStart : M.endInPast, 400, "endsAt");
        const values = { title: action.title, body: action.body, startsAt, endsAt: action.endsAt };
        const [row] = await tx.insert(announcements).values(values).returning({ id: announcements.id });
        await recordAdminAction(tx, actor, { action: "announcement.create", targetType: "announcement", targetId: row.id, after: values });
        await record?.(tx, row.id);
        await changed(tx);
        return row.id;
      }
      const [current] = await tx.select().from(announcements).where(eq(announcements.id, action.id)).for("update");
      if (!current) throw new DomainError(M.announcementMissing, 404);
      const target = { targetType: "announcement", targetId: action.id };
      if (action.intent === "update") {
        const startsAt = action.startsAt ?? current.startsAt;
        if (action.endsAt && action.endsAt <= startsAt) throw new DomainError(M.endBeforeStart, 400, "endsAt");
        const after = { title: action.title, body: action.body, startsAt, endsAt: action.endsAt };
        await tx.update(announcements).set({ ...after, updatedAt: new Date() }).where(eq(announcements.id, action.id));
        const before = { title: current.title, body: current.body, startsAt: current.startsAt, endsAt: current.endsAt };
        await recordAdminAction(tx, actor, { action: "announcement.update", ...target, before, after });
      } else if (action.intent === "end") {
        const [ended] = await tx
          .update(announcements)
          // A start still ahead moves to now with the end, so the window stays a window.
          .set({ endsAt: sql`now()`, startsAt: sql`least(${announcements.startsAt}, now() - interval '1 millisecond')`, updatedAt: new Date() })
          .where(and(eq(announcements.id, action.id), sql`(${announcements.endsAt} is null or ${gt(announcements.endsAt, sql`now()`)})`))
          .returning({ id: announcements.id });
        if (!ended) throw new DomainError(M.announcementEnded, 409);
        await recordAdminAction(tx, actor, { action: "announcement.end", ...target, before: { title: current.title, endsAt: current.endsAt } });
      } else {
        await tx.delete(announcements).where(eq(announcements.id, action.id));
        await recordAdminAction(tx, actor, { action: "announcement.delete", ...target, before: { title: current.title, body: current.body } });
      }
      await changed(tx);
      return action.id;
    });
  } catch (error) {
    if (pgErrorCode(error) === "23514") throw new DomainError(M.endBeforeStart, 400, "endsAt");
    throw error;
  }
}
