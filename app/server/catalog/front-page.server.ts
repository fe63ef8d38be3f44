import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql, type AnyColumn } from "drizzle-orm";
import { db, readDb } from "~/db/client.server";
import { announcementReads, announcements, curatedRows, curatedRowWorks, profiles, rankingRemovals, works } from "~/db/schema";
import { CURATED_ROW_SHOWN, FRONT_PAGE_MESSAGES } from "~/schemas/front-page";
import { DomainError } from "~/server/platform/errors.server";
import { cachedPublic } from "~/server/platform/public-cache.server";
import type { SessionUser } from "~/server/identity/session.server";
import type { AnnouncementView } from "~/types/front-page";
import { listedFor, workCardColumns, type WorkCard } from "./search-sql.server";
import { blockFilter, cachedUnlessBlocked, readerBlocks } from "./blocks.server";

/**
 * What readers see of the operator's front page (docs/product.md#front-page,
 * docs/decisions/198): the 编辑推荐 rows and the current announcements on the home page,
 * the announcements in the inbox, and the rankings' exclusion of works an operator took
 * out. The operators' writes are in app/server/admin/front-page.server.ts.
 */

type Audience = (Pick<SessionUser, "showR18" | "showAi"> & { id?: string }) | null;

export interface CuratedRowView {
  id: number;
  name: string;
  works: WorkCard[];
}

/** Current, for a curated work or an announcement: started (or no start) and not ended. */
const currentWindow = (starts: AnyColumn, ends: AnyColumn) => and(or(isNull(starts), lte(starts, sql`now()`)), or(isNull(ends), gt(ends, sql`now()`)));

/**
 * Rankings and the computed home rows leave out what an operator removed. Used in the
 * WHERE of a query over `works`.
 */
export const notRemovedFromRankings = sql`not exists (select 1 from ${rankingRemovals} where ${rankingRemovals.workId} = ${works.id})`;

/**
 * A work with at least one published chapter (the counts count published chapters only,
 * docs/product.md D12): rankings and curated rows leave out a work whose chapters all wait for review
 * (docs/product.md#review).
 */
export const hasReadableChapter = gt(works.chapterCount, 0);

/**
 * Every 编辑推荐 row with its current works the viewer may see (listed, within the
 * audience preferences), rows in the operators' order, works in theirs: ONE query for all
 * rows (the home page's budget, docs/benchmarks.md#signed-in-home-at-scale-npm-run-benchhome),
 * from the shared few-second copy. A row shows its first CURATED_ROW_SHOWN such works, as
 * a computed row shows 12 (a page of 10 rows of 24 cards rendered three times slower:
 * decision 198); a row with none is left out.
 */
export async function curatedHomeRows(viewer: Audience): Promise<CuratedRowView[]> {
  const showR18 = viewer?.showR18 ?? false;
  const showAi = viewer?.showAi ?? true;
  // The viewer's 屏蔽 (decision 233): read fresh for a reader who has any.
  const blocks = await readerBlocks(viewer);
  return cachedUnlessBlocked(JSON.stringify(["curated-rows", showR18, showAi]), blocks, async () => {
    const rows = await readDb()
      .select({ rowId: curatedRows.id, rowName: curatedRows.name, ...workCardColumns })
      .from(curatedRows)
      .innerJoin(curatedRowWorks, eq(curatedRowWorks.rowId, curatedRows.id))
      .innerJoin(works, eq(works.id, curatedRowWorks.workId))
      .innerJoin(profiles, eq(profiles.id, works.userId))
      .where(
        and(
          ...listedFor({ showR18, showAi }),
          isNull(works.takenDownAt),
          hasReadableChapter,
          ...blockFilter(blocks),
          currentWindow(curatedRowWorks.startsAt, curatedRowWorks.endsAt),
        ),
      )
      .orderBy(asc(curatedRows.position), asc(curatedRows.id), asc(curatedRowWorks.position), asc(curatedRowWorks.workId));
    const out: CuratedRowView[] = [];
    for (const { rowId, rowName, ...card } of rows) {
      let row = out.at(-1);
      if (!row || row.id !== rowId) out.push((row = { id: rowId, name: rowName, works: [] }));
      if (row.works.length < CURATED_ROW_SHOWN) row.works.push(card as WorkCard);
    }
    return out;
  });
}

/** The announcements current now, newest first: one query, from the shared copy. */
export function currentAnnouncements(): Promise<AnnouncementView[]> {
  return cachedPublic("announcements", () =>
    readDb()
      .select({ id: announcements.id, title: announcements.title, body: announcements.body, startsAt: announcements.startsAt })
      .from(announcements)
      .where(currentWindow(announcements.startsAt, announcements.endsAt))
      .orderBy(desc(announcements.startsAt), desc(announcements.id))
      .limit(ANNOUNCEMENTS_SHOWN),
  );
}

/** At most this many announcements are current on a page (the newest). */
const ANNOUNCEMENTS_SHOWN = 5;

/**
 * The inbox's announcements (docs/decisions/198): the current ones with whether this
 * reader marked each read, read from the one announcements table and the reader's own
 * read rows, never one row per user and announcement written in advance.
 */
export async function inboxAnnouncements(userId: string): Promise<(AnnouncementView & { unread: boolean })[]> {
  const current = await currentAnnouncements();
  if (current.length === 0) return [];
  const read = await db
    .select({ id: announcementReads.announcementId })
    .from(announcementReads)
    .where(and(eq(announcementReads.userId, userId), inArray(announcementReads.announcementId, current.map((a) => a.id))));
  const seen = new Set(read.map((r) => r.id));
  return current.map((a) => ({ ...a, unread: !seen.has(a.id) }));
}

/** 全部标为已读 also marks the current announcements read (the bell counts them, decision 198). */
export async function markCurrentAnnouncementsRead(userId: string): Promise<void> {
  const current = await currentAnnouncements();
  if (current.length === 0) return;
  await db
    .insert(announcementReads)
    .values(current.map((a) => ({ userId, announcementId: a.id })))
    .onConflictDoNothing();
}

/** A reader marks a current announcement read (again: nothing changes). */
export async function markAnnouncementRead(userId: string, rawId: unknown): Promise<void> {
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError(FRONT_PAGE_MESSAGES.announcementMissing, 404);
  const [row] = await db
    .select({ id: announcements.id })
    .from(announcements)
    .where(and(eq(announcements.id, id), currentWindow(announcements.startsAt, announcements.endsAt)));
  if (!row) throw new DomainError(FRONT_PAGE_MESSAGES.announcementMissing, 404);
  await db.insert(announcementReads).values({ userId, announcementId: id }).onConflictDoNothing();
}
