import { and, asc, eq, isNull } from "drizzle-orm";
import { db, type Transaction } from "~/db/client.server";
import { admins, adminSessions } from "~/db/schema";
import { ADMIN_ACCOUNT_MESSAGES as M } from "~/schemas/admin-accounts";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { hashPassword } from "~/server/platform/password.server";
import { recordAdminAction, type SignedInActor } from "~/server/platform/audit.server";
import type { AdminRole } from "./admin-session.server";

/**
 * Admin management (docs/product.md#admin-roles), for 超级管理员 only (the route sits under
 * routes/admin/super-only.tsx). Every change writes its audit row in its transaction; the
 * last enabled 超级管理员 can be neither disabled nor demoted, checked with the enabled
 * super admins' rows locked so two such changes at once cannot both pass.
 */

export async function listAdmins() {
  const rows = await db
    .select({
      id: admins.id,
      email: admins.email,
      role: admins.role,
      disabledAt: admins.disabledAt,
      totpEnabledAt: admins.totpEnabledAt,
      createdAt: admins.createdAt,
    })
    .from(admins)
    .orderBy(asc(admins.createdAt), asc(admins.email));
  return rows.map((r) => ({ ...r, totpEnabled: r.totpEnabledAt !== null }));
}

export async function addAdmin(actor: SignedInActor, input: { email: string; password: string; role: AdminRole }): Promise<string> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx.insert(admins).values({ email: input.email, passwordHash, role: input.role }).returning({ id: admins.id });
      await recordAdminAction(tx, actor, { action: "admin.create", targetType: "admin", targetId: row.id, after: { email: input.email, role: input.role } });
      return row.id;
    });
  } catch (error) {
    if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(M.emailTaken, 409, "email");
    throw error;
  }
}

async function lockTarget(tx: Transaction, id: string) {
  // Lock every enabled super admin (and the target) so the "last super admin" check holds.
  const supers = await tx
    .select({ id: admins.id })
    .from(admins)
    .where(and(eq(admins.role, "super"), isNull(admins.disabledAt)))
    .orderBy(asc(admins.id))
    .for("update");
  const [target] = await tx.select().from(admins).where(eq(admins.id, id)).for("update");
  if (!target) throw new DomainError(M.adminMissing, 404);
  const isLastSuper = supers.length === 1 && supers[0].id === id;
  return { target, isLastSuper };
}

export async function setAdminRole(actor: SignedInActor, id: string, role: AdminRole): Promise<void> {
  if (id === actor.admin.id) throw new DomainError(M.selfRole, 400);
  await db.transaction(async (tx) => {
    const { target, isLastSuper } = await lockTarget(tx, id);
    if (target.role === role) return;
    if (isLastSuper && role !== "super") throw new DomainError(M.lastSuper, 409);
    await tx.update(admins).set({ role, updatedAt: new Date() }).where(eq(admins.id, id));
    await recordAdminAction(tx, actor, { action: "admin.role", targetType: "admin", targetId: id, before: { email: target.email, role: target.role }, after: { role } });
  });
}

/** Disabling ends the admin's sessions at once; their API tokens stop working while disabled. */
export async function setAdminDisabled(actor: SignedInActor, id: string, disabled: boolean): Promise<void> {
  if (disabled && id === actor.admin.id) throw new DomainError(M.notSelf, 400);
  await db.transaction(async (tx) => {
    const { target, isLastSuper } = await lockTarget(tx, id);
    if ((target.disabledAt !== null) === disabled) return;
    if (disabled && isLastSuper) throw new DomainError(M.lastSuper, 409);
    await tx.update(admins).set({ disabledAt: disabled ? new Date() : null, updatedAt: new Date() }).where(eq(admins.id, id));
    if (disabled) await tx.delete(adminSessions).where(eq(adminSessions.adminId, id));
    await recordAdminAction(tx, actor, {
      action: disabled ? "admin.disable" : "admin.enable",
      targetType: "admin",
      targetId: id,
      before: { email: target.email, disabled: target.disabledAt !== null },
      after: { disabled },
    });
  });
}

/** A new password chosen by a super admin; the admin's sessions end. */
export async function resetAdminPassword(actor: SignedInActor, id: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    const [target] = await tx.update(admins).set({ passwordHash, updatedAt: new Date() }).where(eq(admins.id, id)).returning({ email: admins.email });
    if (!target) throw new DomainError(M.adminMissing, 404);
    await tx.delete(adminSessions).where(eq(adminSessions.adminId, id));
    await recordAdminAction(tx, actor, { action: "admin.reset-password", targetType: "admin", targetId: id, before: { email: target.email }, after: { password: "reset" } });
  });
}

