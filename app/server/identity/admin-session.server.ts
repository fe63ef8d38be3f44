import { and, eq, gt, isNull, lt, ne } from "drizzle-orm";
import { db } from "~/db/client.server";
import { admins, adminSessions } from "~/db/schema";
import { isSecureRequest, makeSessionCookie } from "~/server/platform/cookies.server";
import { newSessionId, readSessionId } from "./session.server";

/**
 * docs/product.md D8: the administrator session is its own cookie and its own table, apart
 * from users' sessions: a signed-in user holds no admin cookie, and an admin session id
 * is looked up only in admin_sessions.
 */
const ADMIN_COOKIE_NAME = "inkstone_admin";
/** Shorter than a user's 30 days: an admin session can do everything. */
const ADMIN_SESSION_DAYS = 7;
const MAX_AGE = ADMIN_SESSION_DAYS * 24 * 3600;

const adminCookie = makeSessionCookie(ADMIN_COOKIE_NAME);

export type AdminRole = "super" | "operator" | "chief_editor" | "reviewer";

export interface SessionAdmin {
  id: string;
  email: string;
  sessionId: string;
  /** docs/product.md#admin-roles: 超级管理员 or 运营. */
  role: AdminRole;
  /** Whether the admin confirmed a TOTP authenticator (docs/decisions/134). */
  totpEnabled: boolean;
}

async function sessionAdmin(request: Request, secondFactorPending: boolean): Promise<SessionAdmin | null> {
  const sessionId = await readSessionId(request, adminCookie);
  if (!sessionId) return null;
  const [row] = await db
    .select({ id: admins.id, email: admins.email, role: admins.role, totpEnabledAt: admins.totpEnabledAt })
    .from(adminSessions)
    .innerJoin(admins, eq(admins.id, adminSessions.adminId))
    .where(
      and(
        eq(adminSessions.id, sessionId),
        gt(adminSessions.expiresAt, new Date()),
        eq(adminSessions.secondFactorPending, secondFactorPending),
        // A disabled admin's sessions stop working at once (docs/product.md#admin-roles).
        isNull(admins.disabledAt),
      ),
    );
  return row ? { id: row.id, email: row.email, role: row.role, totpEnabled: row.totpEnabledAt !== null, sessionId } : null;
}

/** ADMIN_REQUIRE_2FA=1 and a 超级管理员 with no confirmed authenticator (docs/decisions/134). */
export function mustEnrolSecondFactor(admin: Pick<SessionAdmin, "role" | "totpEnabled">): boolean {
  return process.env.ADMIN_REQUIRE_2FA === "1" && admin.role === "super" && !admin.totpEnabled;
}

/** The signed-in administrator: password and, where enrolled, the TOTP code both accepted. */
export function getAdmin(request: Request): Promise<SessionAdmin | null> {
  return sessionAdmin(request, false);
}

/** An administrator whose password was accepted and who must still enter a TOTP code. */
export function getPendingAdmin(request: Request): Promise<SessionAdmin | null> {
  return sessionAdmin(request, true);
}

/** Starts an admin session (a fresh id at every login) and returns its Set-Cookie. */
export async function createAdminSession(request: Request, adminId: string, opts: { secondFactorPending?: boolean } = {}): Promise<string> {
  const id = newSessionId();
  const pending = opts.secondFactorPending ?? false;
  // A session waiting for its TOTP code lives 10 minutes; the full one starts afresh after the code.
  const expiresAt = new Date(Date.now() + (pending ? 10 * 60 : MAX_AGE) * 1000);
  await db.insert(adminSessions).values({ id, adminId, expiresAt, secondFactorPending: pending });
  await db.delete(adminSessions).where(and(eq(adminSessions.adminId, adminId), lt(adminSessions.expiresAt, new Date())));
  return adminCookie.serialize(id, { secure: isSecureRequest(request), maxAge: MAX_AGE });
}

export async function destroyAdminSession(request: Request): Promise<string> {
  const id = await readSessionId(request, adminCookie);
  if (id) await db.delete(adminSessions).where(eq(adminSessions.id, id));
  return adminCookie.serialize("", { maxAge: 0, expires: new Date(0), secure: isSecureRequest(request) });
}

/** Ends every other session of the administrator (after a password change). */
export async function destroyOtherAdminSessions(adminId: string, keepSessionId: string): Promise<void> {
  await db.delete(adminSessions).where(and(eq(adminSessions.adminId, adminId), ne(adminSessions.id, keepSessionId)));
}
