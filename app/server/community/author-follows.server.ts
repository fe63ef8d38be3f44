import { and, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { authorFollows, notifications, profiles, works } from "~/db/schema";
import { parseWorkFilters } from "~/schemas/discovery";
import { searchWorks } from "~/server/catalog/search.server";
import { isAuthorBlocked, notBlockedBy } from "~/server/catalog/blocks.server";
import type { SearchResult } from "~/server/catalog/search-sql.server";
import type { SessionUser } from "~/server/identity/session.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import type { BooklistCard } from "~/types/booklists";
import { booklistsOf } from "./booklists.server";
import { notifyUserChanged } from "~/server/platform/events.server";

/**
 * Author pages and 关注作者 (docs/product.md#author-pages, decision 230): `/authors/:id`
 * shows an author's nickname, avatar, follower count and the works readers may see (the
 * catalog's own listing, `/works?author=`); following an author puts a line in the
 * follower's inbox when the author puts a new work where readers can see it.
 */

/** @internal */
export const AUTHOR_MESSAGES = {
  notFound: "找不到这位作者",
  self: "不能关注自己",
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Followers whose bell is told live of a new work (decision 230). */
const LIVE_BELLS = 200;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

export interface AuthorPage {
  author: { id: string; nickname: string; avatarUrl: string | null; joinedAt: string };
  followers: number;
  /** The viewer follows this author (false for visitors and on one's own page). */
  following: boolean;
  /** The viewer blocked this author (decision 233): the page says so, with 取消屏蔽. */
  blocked: boolean;
  isSelf: boolean;
  works: SearchResult;
  /** Their 书单 with a work this viewer may see (decision 232). */
  booklists: BooklistCard[];
}

async function authorProfile(authorId: string) {
  if (!UUID.test(authorId)) throw new DomainError(AUTHOR_MESSAGES.notFound, 404);
  const [row] = await db
    .select({ id: profiles.id, nickname: profiles.nickname, avatarUrl: profiles.avatarUrl, createdAt: profiles.createdAt })
    .from(profiles)
    .where(eq(profiles.id, authorId));
  if (!row) throw new DomainError(AUTHOR_MESSAGES.notFound, 404);
  return row;
}

/**
 * `/authors/:id`: an existing user's page always shows (with 暂无公开作品 when nothing is
 * public); an unknown id is a 404. The works are exactly `/works?author=` for this viewer.
 */
export async function getAuthorPage(authorId: string, viewer: Viewer | null, page: number): Promise<AuthorPage> {
  const author = await authorProfile(authorId);
  const [listed, [{ followers }], following, booklists, blocked] = await Promise.all([
    searchWorks({ query: "", filters: parseWorkFilters(new URLSearchParams([["author", author.id]])), page, viewer }),
    db.select({ followers: sql<number>`count(*)::int` }).from(authorFollows).where(eq(authorFollows.authorId, author.id)),
    viewer && viewer.id !== author.id ? isFollowing(viewer.id, author.id) : false,
    booklistsOf(author.id, viewer),
    isAuthorBlocked(viewer, author.id),
  ]);
  return {
    author: { id: author.id, nickname: author.nickname, avatarUrl: author.avatarUrl, joinedAt: new Date(author.createdAt).toISOString() },
    followers,
    following,
    blocked,
    isSelf: viewer?.id === author.id,
    works: listed,
    booklists,
  };
}

async function isFollowing(userId: string, authorId: string): Promise<boolean> {
  const [row] = await db
    .select({ one: sql`1` })
    .from(authorFollows)
    .where(and(eq(authorFollows.userId, userId), eq(authorFollows.authorId, authorId)));
  return Boolean(row);
}

/**
 * 关注作者 (`on`) or 取消关注. Idempotent: the form says which state it wants. Following
 * oneself is refused; an unknown author is a 404.
 */
export async function setAuthorFollow(viewer: Pick<SessionUser, "id">, authorId: string, on: boolean): Promise<boolean> {
  if (!UUID.test(authorId)) throw new DomainError(AUTHOR_MESSAGES.notFound, 404);
  if (!on) {
    await db.delete(authorFollows).where(and(eq(authorFollows.userId, viewer.id), eq(authorFollows.authorId, authorId)));
    return false;
  }
  if (viewer.id === authorId) throw new DomainError(AUTHOR_MESSAGES.self, 400);
  await authorProfile(authorId);
  await db.insert(authorFollows).values({ userId: viewer.id, authorId }).onConflictDoNothing();
  return true;
}

/**
 * The followers' lines for a new work readers can now see, in the transaction that made it
 * so: the publish wizard (a work not held for review) and the approval of a held new work
 * (decision 214). Nothing for a private work; a follower whose 显示设置 hide the work
 * (R-18, AI) gets no line, nor one who blocked the author or one of the work's tags
 * (decision 233). One INSERT ... SELECT over the author's followers (decision 230).
 */
export async function notifyAuthorFollowers(tx: Executor, workId: number): Promise<number> {
  const rows = rowsOf<{ user_id: string }>(
    await tx.execute(sql`
      insert into ${notifications} (user_id, kind, work_id, actor_id)
      select f.user_id, 'new-work', w.id, w.user_id
      from ${works} w
      join ${authorFollows} f on f.author_id = w.user_id
      join ${profiles} p on p.id = f.user_id
      where w.id = ${workId} and w.visibility <> 'private'
        and (w.rating = 'all_ages' or p.show_r18)
        and (p.show_ai or (not w.is_ai_generated and w.ai_level <> 'generated'))
        and ${notBlockedBy(sql`f.user_id`, sql`w`)}
      returning user_id`),
  );
  // The bell of the first followers moves at once; past LIVE_BELLS the others see the line
  // on their next page (one event per follower inside the publishing transaction would
  // make a popular author's publish slow).
  for (const r of rows.slice(0, LIVE_BELLS)) await notifyUserChanged(r.user_id, "notifications", tx);
  return rows.length;
}
