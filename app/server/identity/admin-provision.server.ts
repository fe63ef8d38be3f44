import { eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { adminRecoveryCodes, admins, adminSessions } from "~/db/schema";
import { hashPassword } from "~/server/platform/password.server";

/**
 * Creates an administrator, or resets the password of an existing one (and ends its
 * sessions). One created here (ADMIN_EMAIL / ADMIN_PASSWORD, the CLI) is a 超级管理员
 * (docs/product.md#admin-roles). Returns true when a new administrator was created.
 */
export async function createOrResetAdmin(email: string, password: string): Promise<boolean> {
  const normalized = email.trim().toLowerCase();
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(admins)
      .values({ email: normalized, passwordHash, role: "super" })
      .onConflictDoNothing({ target: admins.email })
      .returning({ id: admins.id });
    if (inserted.length > 0) return true;
    const [admin] = await tx
      .update(admins)
      // The way back in for someone with server access: the password, and no TOTP and no
      // disabled state to get past (docs/decisions/134).
      .set({ passwordHash, totpSecret: null, totpEnabledAt: null, totpLastStep: null, disabledAt: null, updatedAt: new Date() })
      .where(eq(admins.email, normalized))
      .returning({ id: admins.id });
    await tx.delete(adminSessions).where(eq(adminSessions.adminId, admin.id));
    await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, admin.id));
    return false;
  });
}
