import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, admins, siteConfigs } from "~/db/schema";
import { adminActorOf, changedFields, recordAdminAction, REDACTED, REDACTED_CHANGED, type AdminActor } from "~/server/admin/audit.server";
import { adminContext } from "~/server/guards.server";
import { createAdmin } from "./admin-fixtures";
import { requestContext } from "./route-chain";

let admin: Awaited<ReturnType<typeof createAdmin>>;
let actor: AdminActor;

beforeAll(async () => {
  admin = await createAdmin();
  actor = { admin: { id: admin.id, email: admin.email }, address: "203.0.113.7" };
});

async function lastRows(n = 1) {
  return db.select().from(adminAuditLog).orderBy(desc(adminAuditLog.id)).limit(n);
}

describe("recordAdminAction (the audit foundation)", () => {
  it("writes who, what, target, before/after, reason, address and time in the caller's transaction", async () => {
    const started = Date.now();
    await db.transaction(async (tx) => {
      await tx.insert(siteConfigs).values({ key: "audit_test_a", value: "新" });
      await recordAdminAction(tx, actor, {
        action: "setting.update",
        targetType: "setting",
        targetId: "audit_test_a",
        before: { value: "旧", updatedAt: new Date("2026-11-26T00:00:00Z") },
        after: { value: "新", big: 12n },
        reason: "  测试  ",
      });
    });
    const [row] = await lastRows();
    expect(row).toMatchObject({
      adminId: admin.id,
      adminEmail: admin.email,
      action: "setting.update",
      targetType: "setting",
      targetId: "audit_test_a",
      before: { value: "旧", updatedAt: "2026-11-26T00:00:00.000Z" },
      after: { value: "新", big: "12" },
      reason: "测试",
      clientAddress: "203.0.113.7",
    });
    expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(started - 5_000);
  });

  it("writes nothing when the change it records rolls back", async () => {
    const [before] = await lastRows();
    await expect(
      db.transaction(async (tx) => {
        await recordAdminAction(tx, actor, { action: "setting.update", targetType: "setting", targetId: "audit_test_b" });
        // The change itself fails after the row was written: both go.
        await tx.insert(siteConfigs).values({ key: "audit_test_a", value: "重复的键" });
      }),
    ).rejects.toThrow();
    const [after] = await lastRows();
    expect(after.id).toBe(before.id);
    const rows = await db.select().from(adminAuditLog).where(eq(adminAuditLog.targetId, "audit_test_b"));
    expect(rows).toEqual([]);
  });

  it("redacts secrets at any depth and says when a secret changed", async () => {
    await recordAdminAction(db, actor, {
      action: "settings.payment-api",
      before: { merchant_key: "old-secret", merchant_pid: "1001", nested: { apiKey: "sk-1" }, initialTokens: 5 },
      after: { merchant_key: "new-secret", merchant_pid: "1002", nested: { apiKey: "sk-1" }, initialTokens: 6, password: "" },
    });
    const [row] = await lastRows();
    expect(row.before).toEqual({ merchant_key: REDACTED, merchant_pid: "1001", nested: { apiKey: REDACTED }, initialTokens: 5 });
    expect(row.after).toEqual({ merchant_key: REDACTED_CHANGED, merchant_pid: "1002", nested: { apiKey: REDACTED }, initialTokens: 6, password: "" });
    expect(JSON.stringify(row)).not.toMatch(/secret|sk-1/);
    expect(row.targetType).toBeNull();
    expect(row.reason).toBeNull();
  });

  it("keeps the admin's e-mail as it was when the admin is later removed", async () => {
    const gone = await createAdmin();
    await recordAdminAction(db, { admin: { id: gone.id, email: gone.email }, address: "unknown" }, { action: "user.nickname", targetType: "user", targetId: "x" });
    await db.delete(admins).where(eq(admins.id, gone.id));
    const [row] = await lastRows();
    expect(row).toMatchObject({ adminId: null, adminEmail: gone.email });
  });

  it("reads the actor from the admin request context", () => {
    const context = requestContext("198.51.100.2");
    context.set(adminContext, { id: admin.id, email: admin.email, sessionId: "s" } as never);
    expect(adminActorOf(context)).toEqual({ admin: { id: admin.id, email: admin.email }, address: "198.51.100.2" });
    expect(() => adminActorOf(requestContext())).toThrow();
  });

  it("changedFields keeps only what changed", () => {
    expect(changedFields({ a: 1, b: "x", c: null }, { a: 1, b: "y", c: null })).toEqual({ before: { b: "x" }, after: { b: "y" } });
  });
});
