import { desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { credits, profiles, users } from "~/db/schema";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { pageCountOf } from "~/utils/pagination";
import { DomainError } from "../errors.server";
import { hashPassword } from "../password.server";
import { destroyAllUserSessions } from "../session.server";

export const ADMIN_USERS_PAGE_SIZE = 30;

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const userColumns = {
  id: profiles.id,
  email: profiles.email,
  nickname: profiles.nickname,
  tokens: profiles.tokens,
  credits: sql<number>`coalesce(${credits.balance}, 0)`.mapWith(Number),
  createdAt: profiles.createdAt,
  lastSignInAt: profiles.lastSignInAt,
};

/** Users, 30 a page, newest first; `query` matches e-mail or nickname by substring. */
export async function listUsers({ query, page }: { query: string; page: number }) {
  const where: SQL | undefined = query
    ? or(ilike(profiles.email, `%${escapeLike(query)}%`), ilike(profiles.nickname, `%${escapeLike(query)}%`))
    : undefined;
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(profiles).where(where);
  const pageCount = pageCountOf(total, ADMIN_USERS_PAGE_SIZE);
  const current = Math.min(page, pageCount);
  const rows = await db
    .select(userColumns)
    .from(profiles)
    .leftJoin(credits, eq(credits.userId, profiles.id))
    .where(where)
    .orderBy(desc(profiles.createdAt), desc(profiles.id))
    .limit(ADMIN_USERS_PAGE_SIZE)
    .offset((current - 1) * ADMIN_USERS_PAGE_SIZE);
  return { users: rows, total, page: current, pageCount };
}

export async function getUserForAdmin(userId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
  const [row] = await db
    .select(userColumns)
    .from(profiles)
    .leftJoin(credits, eq(credits.userId, profiles.id))
    .where(eq(profiles.id, userId));
  if (!row) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
  return row;
}

export async function updateUserNickname(userId: string, nickname: string): Promise<void> {
  const rows = await db
    .update(profiles)
    .set({ nickname, updatedAt: new Date() })
    .where(eq(profiles.id, userId))
    .returning({ id: profiles.id });
  if (rows.length === 0) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
}

/**
 * Sets a user's password (docs/product.md: Back office, users) and ends every session of that
 * user, so whoever was signed in with the old password is signed out everywhere.
 */
export async function resetUserPassword(userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  const rows = await db.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning({ id: users.id });
  if (rows.length === 0) throw new DomainError(ADMIN_MESSAGES.userMissing, 404);
  await destroyAllUserSessions(userId);
}
