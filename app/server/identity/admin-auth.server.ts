import { eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { admins } from "~/db/schema";
import { ADMIN_MESSAGES, adminLoginSchema, adminPasswordSchema } from "~/schemas/admin";
import { DomainError } from "~/server/platform/errors.server";
import { dummyPasswordHash, hashPassword, verifyPassword } from "~/server/platform/password.server";
import { attemptLogin } from "./login-failures.server";
import { ADMIN_ACCOUNT_MESSAGES } from "~/schemas/admin-accounts";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";
import { verifyLoginCode } from "./totp.server";
import { destroyOtherAdminSessions } from "./admin-session.server";

/**
 * /xbbadmin's check: e-mail and password against the admins table, with failed attempts
 * counted like the user login's (login-failures.server.ts). Any mismatch is 密码错误 (the
 * form does not say whether the e-mail is an administrator's).
 */
export async function adminLogin(input: unknown, clientAddress: string): Promise<{ id: string; email: string; totpEnabled: boolean }> {
  const parsed = adminLoginSchema.safeParse(input);
  if (!parsed.success) throw new DomainError(ADMIN_MESSAGES.wrongPassword, 400);
  const { email, password } = parsed.data;
  const account = await attemptLogin("admin-login", email, clientAddress, async () => {
    const [admin] = await db
      .select({ id: admins.id, email: admins.email, passwordHash: admins.passwordHash, disabledAt: admins.disabledAt, totpEnabledAt: admins.totpEnabledAt })
      .from(admins)
      .where(eq(admins.email, email));
    // Hash even for an unknown e-mail, so the response time does not reveal which exist.
    const ok = await verifyPassword(password, admin?.passwordHash ?? (await dummyPasswordHash()));
    return admin && ok ? { id: admin.id, email: admin.email, totpEnabled: admin.totpEnabledAt !== null, disabled: admin.disabledAt !== null } : null;
  });
  if (!account) throw new DomainError(ADMIN_MESSAGES.wrongPassword, 400);
  // Said only after the right password: a disabled admin learns why they cannot sign in.
  if (account.disabled) throw new DomainError(ADMIN_MESSAGES.adminDisabled, 403);
  return { id: account.id, email: account.email, totpEnabled: account.totpEnabled };
}

/**
 * The login's second step for an admin with an authenticator: the code is checked under
 * the same failure counting as the password (kind admin-totp), and used once.
 */
export async function adminLoginCode(admin: { id: string; email: string }, code: string, clientAddress: string): Promise<void> {
  const ok = await attemptLogin("admin-totp", admin.email, clientAddress, async () => ((await verifyLoginCode(admin.id, code)) ? true : null));
  if (!ok) throw new DomainError(ADMIN_ACCOUNT_MESSAGES.wrongCode, 400, "code");
}

/**
 * An administrator changes their own password: the current one must match; the other
 * sessions of this administrator end, the one making the change stays signed in.
 */
export async function changeAdminPassword(
  actor: SignedInActor,
  sessionId: string,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const adminId = actor.admin.id;
  adminPasswordSchema.parse({ ...input, confirmPassword: input.newPassword });
  const [admin] = await db.select({ passwordHash: admins.passwordHash }).from(admins).where(eq(admins.id, adminId));
  if (!admin) throw new DomainError(ADMIN_MESSAGES.unauthorized, 401);
  if (!(await verifyPassword(input.currentPassword, admin.passwordHash))) {
    throw new DomainError(ADMIN_MESSAGES.currentPasswordWrong, 400, "currentPassword");
  }
  const passwordHash = await hashPassword(input.newPassword);
  await db.transaction(async (tx) => {
    await tx.update(admins).set({ passwordHash, updatedAt: new Date() }).where(eq(admins.id, adminId));
    await recordAdminAction(tx, actor, { action: "admin.password", targetType: "admin", targetId: adminId });
  });
  await destroyOtherAdminSessions(adminId, sessionId);
}
