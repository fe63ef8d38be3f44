import { and, desc, eq, gt, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterPurchases, chapters, favorites, profiles, readingProgress, workPurchases, works } from "~/db/schema";
import { ownedChapterCountSql, vipChapterCountSql } from "~/server/economy/chapter-sales.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { pageWithin } from "~/utils/pagination";
import { progressForWorks } from "~/server/reading/reader.server";
import { progressHref } from "~/utils/reading";
import { audienceFilter, workCardColumns, type WorkCard } from "~/server/catalog/search-sql.server";
import type { SessionUser } from "~/server/identity/session.server";
import type { ShelfItem as ShelfItemOf } from "~/types/shelf";

const LIBRARY_PAGE_SIZE = 12;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

interface LibraryItem {
  work: WorkCard;
  favorited: boolean;
  /** 继续阅读: where the user left off, if they have started. */
  continueHref: string | null;
  continueLabel: string | null;
  /**
   * 已购买 of a work bought chapter by chapter: how many of its published chapters the
   * reader owns, of how many VIP ones (null when the work is no longer sold by chapter).
   * Null for a work bought whole, and in /following.
   */
  boughtChapters?: { owned: number; of: number | null } | null;
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

/**
 * The viewer's works in a list with when each joined it: followed (favorites), or bought
 * (已购买: the whole work, or at least one chapter, the time of the latest purchase).
 */
function librarySource(viewerId: string, source: "favorites" | "purchases" | "owned") {
  if (source === "favorites") {
    return db
      .select({ workId: sql<number>`${favorites.workId}`.as("src_work_id"), createdAt: sql<Date>`${favorites.createdAt}`.as("joined_at") })
      .from(favorites)
      .where(eq(favorites.userId, viewerId))
      .as("src");
  }
  return db
    .select({ workId: sql<number>`b.work_id`.as("src_work_id"), createdAt: sql<Date>`max(b.at)`.as("joined_at") })
    .from(
      sql`(select work_id, created_at as at from ${workPurchases} where user_id = ${viewerId}
           union all
           select work_id, max(created_at) from ${chapterPurchases} where user_id = ${viewerId} group by work_id
           ${source === "owned" ? sql`union all select f.work_id, f.created_at from ${favorites} f join ${works} fw on fw.id = f.work_id where f.user_id = ${viewerId} and fw.visibility = 'public'` : sql``}) b`,
    )
    .groupBy(sql`b.work_id`)
    .as("src");
}

async function listLibrary(viewer: Viewer, source: "favorites" | "purchases", requested: number): Promise<LibraryPage> {
  const src = librarySource(viewer.id, source);
  const visible = visibleTo(viewer, source);
  const [{ all, shown }] = await db
    .select({
      all: sql<number>`count(*)::int`,
      shown: sql<number>`(count(*) filter (where ${visible}))::int`,
    })
    .from(src)
    .innerJoin(works, eq(works.id, src.workId));
  const { page, pageCount } = pageWithin(requested, shown, LIBRARY_PAGE_SIZE);
  const rows = await db
    .select({
      ...workCardColumns,
      favorited: sql<boolean>`exists (select 1 from ${favorites} f where f.user_id = ${viewer.id} and f.work_id = ${works.id})`,
      // 已购 N/M 章 (purchases only): bought one by one, not the whole work.
      chapters:
        source === "purchases"
          ? sql<{ owned: number; vip: number | null } | null>`case
              when exists (select 1 from ${workPurchases} wp where wp.user_id = ${viewer.id} and wp.work_id = ${works.id}) then null
              else json_build_object('owned', ${ownedChapterCountSql(sql`${viewer.id}::uuid`, sql`${works.id}`)}, 'vip', ${vipChapterCountSql(sql`${works.id}`)})
            end`
          : sql<null>`null`,
    })
    .from(src)
    .innerJoin(works, eq(works.id, src.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(visible)
    .orderBy(desc(src.createdAt), desc(works.id))
    .limit(LIBRARY_PAGE_SIZE)
    .offset((page - 1) * LIBRARY_PAGE_SIZE);
  const progress = await progressForWorks(
    viewer.id,
    rows.map((r) => r.id),
  );
  const items = rows.map(({ favorited, chapters: bought, ...work }) => {
    const p = progress.get(work.id);
    const owned = bought ? Number(bought.owned) : 0;
    const vip = bought?.vip === null || bought?.vip === undefined ? null : Number(bought.vip);
    return {
      work: work as WorkCard,
      favorited: Boolean(favorited),
      continueHref: p ? progressHref(work.id, p) : null,
      continueLabel: p ? p.chapterTitle : null,
      boughtChapters: bought ? { owned: vip === null ? owned : Math.min(owned, vip), of: vip } : null,
    };
  });
  return { items, total: shown, hidden: all - shown, page, pageCount };
}

/**
 * The viewer's followed works, most recently followed first. No page calls it any more
 * (/following shows listShelf); only tests/integration/favorites.test.ts does.
 * @internal
 */
export function listFollowing(viewer: Viewer, page: number): Promise<LibraryPage> {
  return listLibrary(viewer, "favorites", page);
}

/** /purchased (已购买作品): the works the viewer bought, most recent purchase first. */
export function listPurchased(viewer: Viewer, page: number): Promise<LibraryPage> {
  return listLibrary(viewer, "purchases", page);
}

/** A work in the reading apps' library: what its OPDS entry says. */
export interface OwnedWork {
  id: number;
  title: string;
  description: string;
  coverUrl: string | null;
  authorNickname: string;
  updatedAt: Date;
}

/**
 * The reading apps' library (docs/product.md#reading-apps, decision 201), a page of it: the
 * works the reader bought (whole or some chapters) and the free works on their 书架, the
 * latest bought or followed first. These are candidates, narrowed here to what can have a
 * copy (not taken down, with published chapters, within the R-18 setting); whether the
 * reader may download each is `mayDownloadReaderEpub`'s answer, asked by the catalog.
 */
export async function listOwnedWorks(viewer: Viewer, requested: number, pageSize: number): Promise<{ works: OwnedWork[]; page: number; pageCount: number }> {
  const src = librarySource(viewer.id, "owned");
  const where = and(isNull(works.takenDownAt), gt(works.chapterCount, 0), ...audienceFilter({ ...viewer, showAi: true }));
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(src).innerJoin(works, eq(works.id, src.workId)).where(where);
  const { page, pageCount } = pageWithin(requested, total, pageSize);
  const rows = await db
    .select({ id: works.id, title: works.title, description: works.description, coverUrl: works.coverUrl, authorNickname: profiles.nickname, updatedAt: works.updatedAt })
    .from(src)
    .innerJoin(works, eq(works.id, src.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where)
    .orderBy(desc(src.createdAt), desc(works.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  return { works: rows, page, pageCount };
}

// --- 书架 (/following): the followed works with what is new in each -----------------

export type ShelfSort = "updated" | "read";

export function parseShelfSort(value: string | null): ShelfSort {
  return value === "read" ? "read" : "updated";
}

const SHELF_PAGE_SIZE = 24;

/** A 书架 entry (app/types/shelf.ts), with the work as its card. */
type ShelfItem = ShelfItemOf<WorkCard>;

export interface ShelfPage {
  items: ShelfItem[];
  total: number;
  hidden: number;
  page: number;
  pageCount: number;
  sort: ShelfSort;
}

/**
 * A page of the viewer's 书架 in ONE query (docs/product.md#bookshelf, decision 116): for
 * each followed work the last published chapter (the published-chapters index read
 * backwards, one row), the reading position (`reading_progress`) and the number of
 * published chapters after it (an index-only count on the same index: small for a reader
 * who keeps up, the usual case on a shelf), whether it was bought. Read = published
 * chapters minus unread. Sorted by the last chapter's time
 * (最近更新) or by the last read (最近阅读). `pageSize` is the page (the shelf shows 24;
 * the benchmark asks for 500).
 */
export async function listShelf(viewer: Viewer, sort: ShelfSort, requested: number, pageSize = SHELF_PAGE_SIZE): Promise<ShelfPage> {
  const visible = visibleTo(viewer, "favorites");
  const [{ all, shown }] = await db
    .select({
      all: sql<number>`count(*)::int`,
      shown: sql<number>`(count(*) filter (where ${visible}))::int`,
    })
    .from(favorites)
    .innerJoin(works, eq(works.id, favorites.workId))
    .where(eq(favorites.userId, viewer.id));
  const { page, pageCount } = pageWithin(requested, shown, pageSize);
  const order =
    sort === "read"
      ? sql`rp.updated_at desc nulls last, f.created_at desc, works.id desc`
      : sql`lc.at desc nulls last, works.id desc`;
  const rows = rowsOf<{
    id: string | number;
    title: string;
    description: string;
    cover_url: string | null;
    author_nickname: string;
    word_count: number;
    chapter_count: number;
    type: WorkCard["type"];
    status: WorkCard["status"];
    visibility: WorkCard["visibility"];
    rating: WorkCard["rating"];
    is_ai_generated: boolean;
    price: number;
    followed_at: string | Date;
    latest_title: string | null;
    latest_at: string | Date | null;
    read_at: string | Date | null;
    paragraph: number | null;
    progress_title: string | null;
    unread_count: number;
    opened: boolean;
    purchased: boolean;
    price_per_thousand: number | null;
    bought_chapters: number;
  }>(
    await db.execute(sql`
      select works.id, works.title, works.description, works.cover_url, profiles.nickname as author_nickname,
             works.word_count, works.chapter_count, works.type, works.status, works.visibility, works.rating,
             works.is_ai_generated, works.price, f.created_at as followed_at,
             lc.title as latest_title, lc.at as latest_at,
             rp.updated_at as read_at, rp.paragraph, rc.title as progress_title,
             case when rc.id is null then works.chapter_count else (
               select count(*)::int from ${chapters} c
               where c.work_id = works.id and c.state = 'published' and c.kind = 'chapter' and (c.position, c.id) > (rc.position, rc.id)
             ) end as unread_count,
             rc.id is not null as opened,
             exists (select 1 from ${workPurchases} wp where wp.user_id = f.user_id and wp.work_id = works.id) as purchased,
             case when works.sale_mode = 'chapter' and works.vip_from is not null then works.price_per_thousand end as price_per_thousand,
             ${ownedChapterCountSql(sql`f.user_id`, sql`works.id`)} as bought_chapters
      from ${favorites} f
      join ${works} on works.id = f.work_id
      join ${profiles} on profiles.id = works.user_id
      left join lateral (
        select c.title, coalesce(c.publish_at, c.created_at) as at from ${chapters} c
        where c.work_id = works.id and c.state = 'published' and c.kind = 'chapter'
        order by c.position desc, c.id desc limit 1
      ) lc on true
      left join ${readingProgress} rp on rp.user_id = f.user_id and rp.work_id = works.id
      left join ${chapters} rc on rc.id = rp.chapter_id and rc.state = 'published'
      where f.user_id = ${viewer.id} and ${visible}
      order by ${order}
      limit ${pageSize} offset ${(page - 1) * pageSize}`),
  );
  const items = rows.map((r): ShelfItem => {
    const id = Number(r.id);
    const unread = Math.min(r.unread_count, r.chapter_count);
    const read = r.opened ? r.chapter_count - unread : 0;
    const latestAt = r.latest_at === null ? null : new Date(r.latest_at);
    const since = new Date(r.read_at ?? r.followed_at);
    return {
      work: {
        id,
        title: r.title,
        description: r.description,
        coverUrl: r.cover_url,
        authorNickname: r.author_nickname,
        wordCount: r.word_count,
        chapterCount: r.chapter_count,
        type: r.type,
        status: r.status,
        visibility: r.visibility,
        rating: r.rating,
        isAiGenerated: r.is_ai_generated,
        price: r.price,
      } as WorkCard,
      latestChapter: r.latest_title !== null && latestAt ? { title: r.latest_title, at: latestAt.toISOString() } : null,
      unread,
      progress: r.chapter_count > 0 ? Math.floor((read * 100) / r.chapter_count) : 0,
      updated: latestAt !== null && latestAt > since,
      purchased: Boolean(r.purchased),
      pricePerThousand: r.price_per_thousand === null ? null : Number(r.price_per_thousand),
      boughtChapters: Number(r.bought_chapters),
      continueHref: read > 0 ? progressHref(id, { chapterOrder: read, paragraph: r.paragraph ?? 0 }) : null,
      continueLabel: read > 0 ? r.progress_title : null,
    };
  });
  return { items, total: shown, hidden: all - shown, page, pageCount, sort };
}
