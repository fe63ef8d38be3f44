import { desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, works } from "~/db/schema";
import { pageCountOf } from "~/utils/pagination";
import { substringMatch } from "../search.server";
import { escapeLike } from "./users.server";

export const ADMIN_WORKS_PAGE_SIZE = 30;

/**
 * Every work whatever its visibility, 30 a page, newest first. `query` matches the
 * title or description (the index-backed substring search) or the author's nickname or
 * e-mail.
 */
export async function listWorksForAdmin({ query, page }: { query: string; page: number }) {
  let where: SQL | undefined;
  if (query) {
    const pattern = `%${escapeLike(query)}%`;
    where = or(substringMatch(query), ilike(profiles.nickname, pattern), ilike(profiles.email, pattern));
  }
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where);
  const pageCount = pageCountOf(total, ADMIN_WORKS_PAGE_SIZE);
  const current = Math.min(page, pageCount);
  const rows = await db
    .select({
      id: works.id,
      title: works.title,
      authorNickname: profiles.nickname,
      authorEmail: profiles.email,
      type: works.type,
      status: works.status,
      visibility: works.visibility,
      rating: works.rating,
      price: works.price,
      wordCount: works.wordCount,
      chapterCount: works.chapterCount,
      createdAt: works.createdAt,
    })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where)
    .orderBy(desc(works.createdAt), desc(works.id))
    .limit(ADMIN_WORKS_PAGE_SIZE)
    .offset((current - 1) * ADMIN_WORKS_PAGE_SIZE);
  return { works: rows, total, page: current, pageCount };
}
