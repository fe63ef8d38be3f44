import { and, desc, eq, ne, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { favorites, profiles, workPurchases, works } from "~/db/schema";
import { pageCountOf } from "~/utils/pagination";
import { progressForWorks, progressHref } from "./reading.server";
import { audienceFilter, workCardColumns, type WorkCard } from "./search.server";
import type { SessionUser } from "./session.server";

export const LIBRARY_PAGE_SIZE = 12;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

export interface LibraryItem {
  work: WorkCard;
  favorited: boolean;
  /** 继续阅读: where the user left off, if they have started. */
  continueHref: string | null;
  continueLabel: string | null;
}

export interface LibraryPage {
  items: LibraryItem[];
  total: number;
  /** Works in the list the viewer cannot see now (taken down, or hidden by settings). */
  hidden: number;
  page: number;
  pageCount: number;
}

/**
 * What the viewer may see of a work in a list (docs/product.md: D5, Roles):
 * the r18 / AI preferences, and private works only for their owner — or, in the
 * purchased list, for the buyer (decision 005: buyers keep what they paid for). What a
 * reader owns always shows in 已购买: 显示AI内容 only filters discovery; R-18 stays behind
 * the R-18 setting, which is an age confirmation, not a taste.
 */
function visibleTo(viewer: Viewer, source: "favorites" | "purchases"): SQL {
  if (source === "purchases") return and(...audienceFilter({ ...viewer, showAi: true })) ?? sql`true`;
  const audience = audienceFilter(viewer);
  return and(or(ne(works.visibility, "private"), eq(works.userId, viewer.id)), ...audience) as SQL;
}

async function listLibrary(viewer: Viewer, source: "favorites" | "purchases", requested: number): Promise<LibraryPage> {
  const table = source === "favorites" ? favorites : workPurchases;
  const mine = eq(table.userId, viewer.id);
  const visible = visibleTo(viewer, source);
  const [{ all, shown }] = await db
    .select({
      all: sql<number>`count(*)::int`,
      shown: sql<number>`(count(*) filter (where ${visible}))::int`,
    })
    .from(table)
    .innerJoin(works, eq(works.id, table.workId))
    .where(mine);
  const pageCount = pageCountOf(shown, LIBRARY_PAGE_SIZE);
  const page = Math.min(Math.max(1, requested), pageCount);
  const rows = await db
    .select({
      ...workCardColumns,
      favorited: sql<boolean>`exists (select 1 from ${favorites} f where f.user_id = ${viewer.id} and f.work_id = ${works.id})`,
    })
    .from(table)
    .innerJoin(works, eq(works.id, table.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(and(mine, visible))
    .orderBy(desc(table.createdAt), desc(works.id))
    .limit(LIBRARY_PAGE_SIZE)
    .offset((page - 1) * LIBRARY_PAGE_SIZE);
  const progress = await progressForWorks(
    viewer.id,
    rows.map((r) => r.id),
  );
  const items = rows.map(({ favorited, ...work }) => {
    const p = progress.get(work.id);
    return {
      work: work as WorkCard,
      favorited: Boolean(favorited),
      continueHref: p ? progressHref(work.id, p) : null,
      continueLabel: p ? p.chapterTitle : null,
    };
  });
  return { items, total: shown, hidden: all - shown, page, pageCount };
}

/** /following (已关注作品): the viewer's followed works, most recently followed first. */
export function listFollowing(viewer: Viewer, page: number): Promise<LibraryPage> {
  return listLibrary(viewer, "favorites", page);
}

/** /purchased (已购买作品): the works the viewer bought, most recent purchase first. */
export function listPurchased(viewer: Viewer, page: number): Promise<LibraryPage> {
  return listLibrary(viewer, "purchases", page);
}
