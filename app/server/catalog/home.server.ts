import { and, desc, eq, ne, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, favorites, profiles, readingProgress, works } from "~/db/schema";
import { chapterNumberSql } from "./chapter-numbers.server";
import { progressHref } from "~/utils/reading";
import { audienceFilter, workCardColumns, type WorkCard } from "./search-sql.server";
import { blockFilter, readerBlocks, type ReaderBlocks } from "./blocks.server";
import type { SessionUser } from "~/server/identity/session.server";

/**
 * The signed-in home's personal rows (docs/decisions/120): 继续阅读 and 书架更新. Read fresh
 * for the one user on every request (never shared), each one indexed query over that
 * user's own rows: reading_progress by (user, updated_at), favourites by user.
 */
const CONTINUE_ROW_SIZE = 6;
const SHELF_ROW_SIZE = 6;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

export interface ContinueItem {
  work: WorkCard;
  href: string;
  chapterTitle: string;
  chapterOrder: number;
}

export interface ShelfUpdate {
  work: WorkCard;
  /** Published chapters after the one the reader is on (all of them if never opened). */
  unread: number;
  latestChapterTitle: string;
  /** Where to go: the reader's place, or the first chapter. */
  href: string;
}

/** What the viewer may see of a work on their home: not private (unless theirs), their preferences and 屏蔽 (decision 233). */
function visibleTo(viewer: Viewer, blocks: ReaderBlocks): SQL {
  return and(or(ne(works.visibility, "private"), eq(works.userId, viewer.id)), ...audienceFilter(viewer), ...blockFilter(blocks)) as SQL;
}

/**
 * 继续阅读: the works the viewer read last, with the chapter and paragraph they reached, in
 * one statement (the chapter's number counted for the six rows only). A work the reader
 * removed from their 阅读记录 leaves this row too (decision 234).
 */
export async function continueReading(viewer: Viewer): Promise<ContinueItem[]> {
  const blocks = await readerBlocks(viewer);
  const rows = await db
    .select({
      ...workCardColumns,
      chapterTitle: chapters.title,
      paragraph: readingProgress.paragraph,
      chapterOrder: chapterNumberSql(chapters.workId, chapters.position, chapters.id),
    })
    .from(readingProgress)
    .innerJoin(works, eq(works.id, readingProgress.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .innerJoin(chapters, eq(chapters.id, readingProgress.chapterId))
    .where(and(eq(readingProgress.userId, viewer.id), eq(readingProgress.historyHidden, false), visibleTo(viewer, blocks)))
    .orderBy(desc(readingProgress.updatedAt))
    .limit(CONTINUE_ROW_SIZE);
  return rows.map(({ chapterTitle, paragraph, chapterOrder, ...work }) => ({
    work: work as WorkCard,
    href: progressHref(work.id, { chapterOrder, paragraph }),
    chapterTitle,
    chapterOrder,
  }));
}

/**
 * 书架更新 (a first version; the bookshelf page is its own feature): followed works with
 * a published chapter after the one the reader is on, or, for a work never opened, one
 * updated since it was followed. Most recently updated first.
 *
 * A reader may follow hundreds of works (issue 17: 300 each, 30M favourites in all), and
 * only six are shown: the followed works are put in order first (the favourites from
 * their primary key alone, each work by its own), then walked in that order, each one's
 * last chapter and the reader's place looked up until six qualify, so a request reads a
 * few dozen rows rather than every followed work's (docs/decisions/143).
 */
export async function shelfUpdates(viewer: Viewer): Promise<ShelfUpdate[]> {
  const blocks = await readerBlocks(viewer);
  const followed = sql`
    select ${sql.join(
      Object.entries(workCardColumns)
        .filter(([name]) => name !== "authorNickname")
        .map(([name, column]) => sql`${column} as ${sql.identifier(name)}`),
      sql`, `,
    )}, ${works.updatedAt} as updated_at
    from ${favorites}
    join ${works} on ${works.id} = ${favorites.workId}
    where ${favorites.userId} = ${viewer.id} and ${visibleTo(viewer, blocks)}
    order by ${works.updatedAt} desc, ${works.id} desc`;
  const result = await db.execute(sql`
    select t.*, ${profiles.nickname} as "authorNickname",
      (select count(*)::int from ${chapters} c
        where c.work_id = t.id and c.state = 'published' and c.kind = 'chapter'
          and (t.read_position is null or (c.position, c.id) > (t.read_position, t.read_chapter_id))) as unread,
      ${chapterNumberSql(sql`t.id`, sql`t.read_position`, sql`t.read_chapter_id`)} as read_order
    from (
      select m.*, x.read_position, x.read_chapter_id, x.read_paragraph, x.latest_title
      from (${followed}) m
      cross join lateral (
        select latest.title as latest_title, latest.position as latest_position, latest.id as latest_id,
          rc.position as read_position, rc.id as read_chapter_id, rp.paragraph as read_paragraph
        from (
          select c.id, c.title, c.position from ${chapters} c
          where c.work_id = m.id and c.state = 'published' and c.kind = 'chapter'
          order by c.position desc, c.id desc limit 1
        ) latest
        left join ${readingProgress} rp on rp.user_id = ${viewer.id} and rp.work_id = m.id
        left join ${chapters} rc on rc.id = rp.chapter_id
      ) x
      where (x.read_chapter_id is null
          and m.updated_at > (select f.created_at from ${favorites} f where f.user_id = ${viewer.id} and f.work_id = m.id))
        or (x.read_chapter_id is not null and (x.latest_position, x.latest_id) > (x.read_position, x.read_chapter_id))
      order by m.updated_at desc, m.id desc
      limit ${SHELF_ROW_SIZE}
    ) t
    join ${profiles} on ${profiles.id} = t."userId"
    order by t.updated_at desc, t.id desc`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  return rows.map((r) => {
    const work = {
      id: Number(r.id),
      title: String(r.title),
      description: String(r.description),
      coverUrl: (r.coverUrl as string | null) ?? null,
      authorNickname: String(r.authorNickname),
      userId: String(r.userId),
      wordCount: Number(r.wordCount),
      chapterCount: Number(r.chapterCount),
      type: r.type as WorkCard["type"],
      status: r.status as WorkCard["status"],
      visibility: r.visibility as WorkCard["visibility"],
      rating: r.rating as WorkCard["rating"],
      isAiGenerated: Boolean(r.isAiGenerated),
      aiLevel: (r.aiLevel as WorkCard["aiLevel"]) ?? "none",
      price: Number(r.price),
      tags: (r.tags as string[]) ?? [],
      createdAt: new Date(r.createdAt as string),
    } satisfies WorkCard;
    return {
      work,
      unread: Number(r.unread),
      latestChapterTitle: String(r.latest_title),
      // The reader's place, as 继续阅读 gives it, or the first chapter of a work never opened.
      href:
        r.read_chapter_id == null
          ? `/works/${work.id}?chapter=1`
          : progressHref(work.id, { chapterOrder: Number(r.read_order), paragraph: Number(r.read_paragraph) }),
    };
  });
}
