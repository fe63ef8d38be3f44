import { and, desc, eq, ne, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, favorites, profiles, readingProgress, works } from "~/db/schema";
import { progressForWorks, progressHref } from "../reading.server";
import { audienceFilter, workCardColumns, type WorkCard } from "../search.server";
import type { SessionUser } from "../session.server";

/**
 * The signed-in home's personal rows (docs/decisions/120): 继续阅读 and 书架更新. Read fresh
 * for the one user on every request (never shared), each one indexed query over that
 * user's own rows: reading_progress by (user, updated_at), favourites by user.
 */
export const CONTINUE_ROW_SIZE = 6;
export const SHELF_ROW_SIZE = 6;

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

/** What the viewer may see of a work on their home: not private (unless theirs), and their preferences. */
function visibleTo(viewer: Viewer): SQL {
  return and(or(ne(works.visibility, "private"), eq(works.userId, viewer.id)), ...audienceFilter(viewer)) as SQL;
}

/** 继续阅读: the works the viewer read last, with the chapter and paragraph they reached. */
export async function continueReading(viewer: Viewer): Promise<ContinueItem[]> {
  const rows = await db
    .select(workCardColumns)
    .from(readingProgress)
    .innerJoin(works, eq(works.id, readingProgress.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(and(eq(readingProgress.userId, viewer.id), visibleTo(viewer)))
    .orderBy(desc(readingProgress.updatedAt))
    .limit(CONTINUE_ROW_SIZE);
  const progress = await progressForWorks(
    viewer.id,
    rows.map((r) => r.id),
  );
  return rows.flatMap((work) => {
    const p = progress.get(work.id);
    return p
      ? [{ work: work as WorkCard, href: progressHref(work.id, p), chapterTitle: p.chapterTitle, chapterOrder: p.chapterOrder }]
      : [];
  });
}

/**
 * 书架更新 (a first version; the bookshelf page is its own feature): followed works with
 * a published chapter after the one the reader is on, or, for a work never opened, one
 * updated since it was followed. Most recently updated first.
 */
export async function shelfUpdates(viewer: Viewer): Promise<ShelfUpdate[]> {
  const result = await db.execute(sql`
    select t.*,
      (select count(*)::int from ${chapters} c
        where c.work_id = t.id and c.state = 'published'
          and (t.read_position is null or (c.position, c.id) > (t.read_position, t.read_chapter_id))) as unread
    from (
      select ${sql.join(
        Object.entries(workCardColumns).map(([name, column]) => sql`${column} as ${sql.identifier(name)}`),
        sql`, `,
      )},
        ${works.updatedAt} as updated_at,
        rc.position as read_position, rc.id as read_chapter_id,
        latest.title as latest_title
      from ${favorites}
      join ${works} on ${works.id} = ${favorites.workId}
      join ${profiles} on ${profiles.id} = ${works.userId}
      left join ${readingProgress} on ${readingProgress.userId} = ${favorites.userId} and ${readingProgress.workId} = ${favorites.workId}
      left join ${chapters} rc on rc.id = ${readingProgress.chapterId}
      cross join lateral (
        select c.id, c.title, c.position from ${chapters} c
        where c.work_id = ${works.id} and c.state = 'published'
        order by c.position desc, c.id desc limit 1
      ) latest
      where ${favorites.userId} = ${viewer.id} and ${visibleTo(viewer)}
        and (
          (rc.id is null and ${works.updatedAt} > ${favorites.createdAt})
          or (rc.id is not null and (latest.position, latest.id) > (rc.position, rc.id))
        )
      order by ${works.updatedAt} desc, ${works.id} desc
      limit ${SHELF_ROW_SIZE}
    ) t
    order by t.updated_at desc, t.id desc`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  const progress = await progressForWorks(
    viewer.id,
    rows.map((r) => Number(r.id)),
  );
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
    const p = progress.get(work.id);
    return {
      work,
      unread: Number(r.unread),
      latestChapterTitle: String(r.latest_title),
      href: p ? progressHref(work.id, p) : `/works/${work.id}?chapter=1`,
    };
  });
}
