import { and, desc, eq, ne, or, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, profiles, readingProgress, works } from "~/db/schema";
import { HISTORY_MESSAGES } from "~/schemas/history";
import { chapterNumberSql } from "~/server/catalog/chapter-numbers.server";
import { audienceFilter } from "~/server/catalog/search-sql.server";
import type { SessionUser } from "~/server/identity/session.server";
import { DomainError } from "~/server/platform/errors.server";
import type { HistoryEntry } from "~/types/history";
import { pageWithin } from "~/utils/pagination";
import { progressHref } from "~/utils/reading";

/**
 * 阅读记录 (docs/product.md#reading-history, decision 234): the works the reader opened,
 * newest first, read from the reading positions themselves (`reading_progress`, one row
 * per reader and work, its (user, updated_at) index): no second record of reading. Removing
 * an entry, or 清空, only marks the rows hidden: the position stays, so the 书架's unread
 * counts and 继续阅读 links are not lost, and reading the work again shows it once more.
 */

const HISTORY_PAGE_SIZE = 20;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

export interface HistoryPage {
  entries: HistoryEntry[];
  total: number;
  page: number;
  pageCount: number;
}

/**
 * A page of the reader's history. A work taken private (unless the reader's own) or
 * outside their R-18 setting is left out; 显示AI内容 filters discovery only, not what the
 * reader has read.
 */
export async function listHistory(viewer: Viewer, requested: number): Promise<HistoryPage> {
  const where = and(
    eq(readingProgress.userId, viewer.id),
    eq(readingProgress.historyHidden, false),
    or(ne(works.visibility, "private"), eq(works.userId, viewer.id)),
    ...audienceFilter({ ...viewer, showAi: true }),
  );
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(readingProgress)
    .innerJoin(works, eq(works.id, readingProgress.workId))
    .where(where);
  const { page, pageCount } = pageWithin(requested, total, HISTORY_PAGE_SIZE);
  const rows = await db
    .select({
      workId: works.id,
      title: works.title,
      coverUrl: works.coverUrl,
      authorId: works.userId,
      authorNickname: profiles.nickname,
      chapterTitle: chapters.title,
      chapterOrder: chapterNumberSql(chapters.workId, chapters.position, chapters.id),
      paragraph: readingProgress.paragraph,
      readAt: readingProgress.updatedAt,
    })
    .from(readingProgress)
    .innerJoin(works, eq(works.id, readingProgress.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .innerJoin(chapters, eq(chapters.id, readingProgress.chapterId))
    .where(where)
    .orderBy(desc(readingProgress.updatedAt), desc(readingProgress.workId))
    .limit(HISTORY_PAGE_SIZE)
    .offset((page - 1) * HISTORY_PAGE_SIZE);
  const entries = rows.map((r) => ({
    workId: r.workId,
    title: r.title,
    coverUrl: r.coverUrl,
    authorId: r.authorId,
    authorNickname: r.authorNickname,
    chapterTitle: r.chapterTitle,
    chapterOrder: r.chapterOrder,
    href: progressHref(r.workId, { chapterOrder: r.chapterOrder, paragraph: r.paragraph }),
    readAt: new Date(r.readAt).toISOString(),
  }));
  return { entries, total, page, pageCount };
}

/** Removes one work from the reader's history (its position stays); 404 when it is not there. */
export async function removeHistoryEntry(userId: string, workId: number): Promise<void> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(HISTORY_MESSAGES.missing, 404);
  const updated = await db
    .update(readingProgress)
    .set({ historyHidden: true })
    .where(and(eq(readingProgress.userId, userId), eq(readingProgress.workId, workId), eq(readingProgress.historyHidden, false)))
    .returning({ workId: readingProgress.workId });
  if (updated.length === 0) throw new DomainError(HISTORY_MESSAGES.missing, 404);
}

/** 清空: every entry of the reader's history; returns how many were removed. */
export async function clearHistory(userId: string): Promise<number> {
  const updated = await db
    .update(readingProgress)
    .set({ historyHidden: true })
    .where(and(eq(readingProgress.userId, userId), eq(readingProgress.historyHidden, false)))
    .returning({ workId: readingProgress.workId });
  return updated.length;
}
