import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterSummaries, chapters, readingProgress } from "~/db/schema";
import { isByChapter } from "~/server/catalog/chapter-access.server";
import type { getWorkForViewer } from "~/server/catalog/works.server";
import { ownedChapterIds } from "~/server/economy/chapter-sales.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { maskTexts } from "~/server/screening/screening.server";

/**
 * 前情提要 for a returning reader (issue 33 part 7, docs/decisions/252): the author's
 * summaries (written or accepted by the author in the story bible) of the last chapters the
 * reader has read, never one past their reading position nor one they may not read (a paid
 * chapter they do not own).
 */

/** A reader is "back" after this many days away from a work… */
const RECAP_AWAY_DAYS = 7;
/** …or with this many published chapters after their position. */
const RECAP_UNREAD_CHAPTERS = 10;
/** How many of the last read chapters the recap tells. @internal */
export const RECAP_CHAPTERS = 5;

export interface Recap {
  /** The chapter the reader's position is in (第 N 章), where the recap stops. */
  upTo: { order: number; title: string };
  /** When the position was last saved. */
  lastReadAt: Date;
  /** Published chapters after the position. */
  unread: number;
  /** Oldest first. */
  chapters: { order: number; title: string; summary: string }[];
}

type View = Awaited<ReturnType<typeof getWorkForViewer>>;

/**
 * The recap `userId` gets for the work in `view`, or null when they are not back (read in
 * the last 7 days and fewer than 10 chapters behind), have no position, or none of the chapters
 * they may have read has a summary. `now` is for tests.
 */
export async function recapFor(view: View, userId: string, now = new Date()): Promise<Recap | null> {
  if (view.gate !== "ok" || view.isOwner) return null;
  const workId = view.work.id;
  // The position, its chapter's number and how many published chapters follow it, in one
  // statement over the work's published chapters (2,000 for a long serial: a few ms).
  const [position] = rowsOf<{ updated_at: Date | string; order: number; title: string; unread: number }>(await db.execute(sql`
    with numbered as (
      select id, title, row_number() over (order by position, id)::int as n
      from ${chapters}
      where work_id = ${workId} and state = 'published' and kind = 'chapter'
    )
    select p.updated_at, n.n as "order", n.title,
           (select count(*)::int from numbered later where later.n > n.n) as unread
    from ${readingProgress} p join numbered n on n.id = p.chapter_id
    where p.user_id = ${userId} and p.work_id = ${workId}`));
  if (!position) return null;
  const lastReadAt = new Date(position.updated_at);
  const away = now.getTime() - lastReadAt.getTime() >= RECAP_AWAY_DAYS * 86_400_000;
  if (!away && position.unread < RECAP_UNREAD_CHAPTERS) return null;

  // The summaries of the chapters up to the position, newest first; more than are told, as
  // some may be chapters this reader may not read.
  const rows = rowsOf<{ id: number; order: number; title: string; summary: string }>(await db.execute(sql`
    with numbered as (
      select id, title, row_number() over (order by position, id)::int as n
      from ${chapters}
      where work_id = ${workId} and state = 'published' and kind = 'chapter'
    )
    select n.id, n.n as "order", n.title, s.summary
    from numbered n join ${chapterSummaries} s on s.chapter_id = n.id
    where n.n <= ${position.order}
    order by n.n desc
    limit ${RECAP_CHAPTERS * 4}`));
  const readable = await readableBy(view, userId, rows.map((r) => ({ id: Number(r.id), order: r.order })));
  const told = rows.filter((r) => readable.has(Number(r.id))).slice(0, RECAP_CHAPTERS).reverse();
  if (told.length === 0) return null;
  const summaries = await maskTexts(told.map((r) => r.summary));
  return {
    upTo: { order: position.order, title: position.title },
    lastReadAt,
    unread: position.unread,
    chapters: told.map((r, i) => ({ order: r.order, title: r.title, summary: summaries[i] })),
  };
}

/**
 * Which of these chapters the user (null: a visitor) may read: the whole work, a free 试读
 * chapter, or one they bought. The recap and the wiki (wiki.server.ts) both tell only these.
 */
export async function readableBy(view: View, userId: string | null, listed: { id: number; order: number }[]): Promise<Set<number>> {
  if (view.canReadContent) return new Set(listed.map((c) => c.id));
  if (!isByChapter(view.work)) return new Set();
  const vipFrom = view.work.vipFrom;
  const free = listed.filter((c) => c.order < vipFrom).map((c) => c.id);
  if (!userId) return new Set(free);
  const owned = await ownedChapterIds(userId, listed.filter((c) => c.order >= vipFrom).map((c) => c.id));
  return new Set([...free, ...owned]);
}
