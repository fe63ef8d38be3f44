import { randomBytes } from "node:crypto";
import { effectiveShowR18 } from "./minor-mode.server";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, readerOpdsTokens, users } from "~/db/schema";
import { OPDS_TOKEN_LIMIT, SETTINGS_MESSAGES } from "~/schemas/settings";
import { DomainError } from "~/server/platform/errors.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { hitRateLimit } from "~/server/platform/rate-limit.server";
import { banActive } from "./auth.server";
import { hashApiToken } from "./api-tokens.server";
import type { SessionUser } from "./session.server";

/**
 * A reader's tokens for reading apps (docs/product.md#reading-apps, decision 201): the token
 * is the secret part of the catalog's address (/opds/<token>), shown once when it is made;
 * the database keeps its SHA-256 only (the same hash as the admins' API tokens). Revoking
 * deletes the row: the next request with it, an app's sync half-way included, gets 401.
 */
const OPDS_TOKEN_PREFIX = "inkopds_";
/** Written at most once a minute: an app's sync is dozens of requests. */
const LAST_USED_EVERY_SECONDS = 60;
/** Per token: a sync of a large library fits; a runaway client is told to wait. */
const OPDS_RATE_LIMIT = { limit: 600, windowSeconds: 600 };

export interface CreatedOpdsToken {
  id: number;
  label: string;
  token: string;
}

/**
 * A new token for the reader. The reader's row is locked first, so two forms sent at once
 * cannot both pass the count and make a sixth token.
 */
export async function createOpdsToken(userId: string, label: string, record?: RecordResult): Promise<CreatedOpdsToken> {
  const token = OPDS_TOKEN_PREFIX + randomBytes(24).toString("base64url");
  const id = await db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [{ n }] = await tx.select({ n: count() }).from(readerOpdsTokens).where(eq(readerOpdsTokens.userId, userId));
    if (n >= OPDS_TOKEN_LIMIT) throw new DomainError(SETTINGS_MESSAGES.opdsTooMany, 409);
    const [row] = await tx.insert(readerOpdsTokens).values({ userId, label, tokenHash: hashApiToken(token) }).returning({ id: readerOpdsTokens.id });
    await record?.(tx, row.id);
    return row.id;
  });
  return { id, label, token };
}

/** A token's label, for a replayed 创建令牌 form (its secret is not kept to show again). */
export async function opdsTokenLabel(userId: string, id: number): Promise<string | null> {
  const [row] = await db
    .select({ label: readerOpdsTokens.label })
    .from(readerOpdsTokens)
    .where(and(eq(readerOpdsTokens.id, id), eq(readerOpdsTokens.userId, userId)));
  return row?.label ?? null;
}

/** The reader's tokens, oldest first, without their secrets. */
export function listOpdsTokens(userId: string) {
  return db
    .select({ id: readerOpdsTokens.id, label: readerOpdsTokens.label, createdAt: readerOpdsTokens.createdAt, lastUsedAt: readerOpdsTokens.lastUsedAt })
    .from(readerOpdsTokens)
    .where(eq(readerOpdsTokens.userId, userId))
    .orderBy(asc(readerOpdsTokens.createdAt), asc(readerOpdsTokens.id));
}

/** Revokes one of the reader's own tokens; another reader's id, or none, is 404. Returns its label. */
export async function revokeOpdsToken(userId: string, id: number): Promise<string> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError(SETTINGS_MESSAGES.opdsTokenMissing, 404);
  const [row] = await db
    .delete(readerOpdsTokens)
    .where(and(eq(readerOpdsTokens.id, id), eq(readerOpdsTokens.userId, userId)))
    .returning({ label: readerOpdsTokens.label });
  if (!row) throw new DomainError(SETTINGS_MESSAGES.opdsTokenMissing, 404);
  return row.label;
}

/** Who a reading app acts for: what the EPUB and the library's rules ask of a viewer. */
export type OpdsReader = Pick<SessionUser, "id" | "showR18" | "showAi"> & { tokenId: number };

/**
 * The reader a token belongs to, or null: unknown, revoked (deleted), or its reader banned
 * now. Records when it was last used (at most once a minute) and counts the request against
 * the token's rate limit (a DomainError 429 past it).
 */
export async function verifyOpdsToken(token: string): Promise<OpdsReader | null> {
  if (!token.startsWith(OPDS_TOKEN_PREFIX) || token.length > 100) return null;
  const [row] = await db
    .select({
      tokenId: readerOpdsTokens.id,
      id: profiles.id,
      showR18: effectiveShowR18(profiles.id),
      showAi: profiles.showAi,
      stale: sql<boolean>`(${readerOpdsTokens.lastUsedAt} is null or ${readerOpdsTokens.lastUsedAt} < now() - make_interval(secs => ${LAST_USED_EVERY_SECONDS}))`,
    })
    .from(readerOpdsTokens)
    .innerJoin(users, eq(users.id, readerOpdsTokens.userId))
    .innerJoin(profiles, eq(profiles.id, readerOpdsTokens.userId))
    .where(and(eq(readerOpdsTokens.tokenHash, hashApiToken(token)), sql`not ${banActive}`));
  if (!row) return null;
  if (!(await hitRateLimit(`opds:${row.tokenId}`, OPDS_RATE_LIMIT))) throw new DomainError("请求过于频繁，请稍后再试", 429);
  if (row.stale) await db.update(readerOpdsTokens).set({ lastUsedAt: sql`now()` }).where(eq(readerOpdsTokens.id, row.tokenId));
  return { tokenId: row.tokenId, id: row.id, showR18: row.showR18, showAi: row.showAi };
}
