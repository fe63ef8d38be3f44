import { createHash, randomBytes } from "node:crypto";
import { desc, eq, isNull, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { adminApiTokens, admins } from "~/db/schema";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { getAdmin, mustEnrolSecondFactor } from "./admin-session.server";
import { recordAdminAction, type AdminActor, type SignedInActor } from "~/server/platform/audit.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";

/**
 * docs/product.md D8: scripts pull the exports with `Authorization: Bearer <token>`. A token
 * is shown once when created; the database keeps only its SHA-256, so a leaked database
 * export does not leak working tokens. Tokens are accepted on the export routes only.
 */
const API_TOKEN_PREFIX = "inkadm_";

/** Also the readers' OPDS tokens' hash (opds-tokens.server.ts). */
export function hashApiToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface CreatedApiToken {
  id: number;
  token: string;
  name: string;
  expiresAt: Date | null;
}

export async function createApiToken(
  actor: SignedInActor,
  input: { name: string; expiresInDays: number | null },
  record?: RecordResult,
): Promise<CreatedApiToken> {
  const adminId = actor.admin.id;
  const token = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 24 * 3600 * 1000) : null;
  const [row] = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(adminApiTokens)
      .values({ adminId, name: input.name, tokenHash: hashApiToken(token), expiresAt })
      .returning({ id: adminApiTokens.id });
    await recordAdminAction(tx, actor, { action: "api-token.create", targetType: "api-token", targetId: rows[0].id, after: { name: input.name, expiresAt } });
    await record?.(tx, rows[0].id);
    return rows;
  });
  return { id: row.id, token, name: input.name, expiresAt };
}

/** A token's name (null when it is gone): what a replayed 创建令牌 form answers with. */
export async function apiTokenName(id: number): Promise<string | null> {
  const [row] = await db.select({ name: adminApiTokens.name }).from(adminApiTokens).where(eq(adminApiTokens.id, id));
  return row?.name ?? null;
}

export async function listApiTokens() {
  return db
    .select({
      id: adminApiTokens.id,
      name: adminApiTokens.name,
      adminEmail: admins.email,
      createdAt: adminApiTokens.createdAt,
      expiresAt: adminApiTokens.expiresAt,
      lastUsedAt: adminApiTokens.lastUsedAt,
      revokedAt: adminApiTokens.revokedAt,
    })
    .from(adminApiTokens)
    .innerJoin(admins, eq(admins.id, adminApiTokens.adminId))
    .orderBy(desc(adminApiTokens.createdAt), desc(adminApiTokens.id));
}

/** Revoking is for good (the row stays, for the record). Returns false for an unknown id. */
export async function revokeApiToken(actor: AdminActor, id: number): Promise<boolean> {
  const revoked = await db.transaction(async (tx) => {
    const rows = await tx
      .update(adminApiTokens)
      .set({ revokedAt: new Date() })
      .where(sql`${adminApiTokens.id} = ${id} and ${isNull(adminApiTokens.revokedAt)}`)
      .returning({ id: adminApiTokens.id, name: adminApiTokens.name });
    if (rows.length > 0) await recordAdminAction(tx, actor, { action: "api-token.revoke", targetType: "api-token", targetId: id, before: { name: rows[0].name } });
    return rows.length > 0;
  });
  if (revoked) return true;
  const [exists] = await db.select({ id: adminApiTokens.id }).from(adminApiTokens).where(eq(adminApiTokens.id, id));
  return Boolean(exists);
}

/** The administrator a bearer token belongs to, or null if unknown, revoked or expired. */
async function verifyApiToken(token: string): Promise<{ adminId: string; tokenId: number } | null> {
  if (!token.startsWith(API_TOKEN_PREFIX) || token.length > 200) return null;
  const rows = await db
    .update(adminApiTokens)
    .set({ lastUsedAt: new Date() })
    .where(
      sql`${adminApiTokens.tokenHash} = ${hashApiToken(token)}
        and ${adminApiTokens.revokedAt} is null
        and (${adminApiTokens.expiresAt} is null or ${adminApiTokens.expiresAt} > now())`,
    )
    .returning({ adminId: adminApiTokens.adminId, tokenId: adminApiTokens.id });
  return rows[0] ?? null;
}

/** A plain-text answer for the export routes (read by people and by scripts alike). */
function textResponse(message: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(message, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

function unauthorized(message: string): never {
  throw textResponse(message, 401, { "WWW-Authenticate": 'Bearer realm="inkstone-exports"' });
}

/**
 * Who may download an export: a request with an Authorization header is judged by its
 * bearer token alone; otherwise the admin session cookie decides. Anything else is 401.
 */
export interface ExportAccess {
  adminId: string;
  via: "session" | "token";
}

export async function requireExportAccess(request: Request): Promise<ExportAccess> {
  const header = request.headers.get("Authorization");
  if (header !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const verified = match ? await verifyApiToken(match[1]) : null;
    if (!verified) unauthorized("API令牌无效、已过期或已撤销");
    // The token acts as its admin: a disabled admin's tokens stop working, a 运营 admin's
    // (made before a change of role) may not export (docs/product.md#admin-roles).
    const [owner] = await db.select({ role: admins.role, disabledAt: admins.disabledAt }).from(admins).where(eq(admins.id, verified.adminId));
    if (!owner || owner.disabledAt) unauthorized("API令牌无效、已过期或已撤销");
    if (owner.role !== "super") throw textResponse(ADMIN_MESSAGES.superOnly, 403);
    return { adminId: verified.adminId, via: "token" };
  }
  const admin = await getAdmin(request);
  if (!admin) unauthorized(ADMIN_MESSAGES.unauthorized);
  if (admin.role !== "super") throw textResponse(ADMIN_MESSAGES.superOnly, 403);
  if (mustEnrolSecondFactor(admin)) throw textResponse(ADMIN_MESSAGES.totpRequired, 403);
  return { adminId: admin.id, via: "session" };
}
