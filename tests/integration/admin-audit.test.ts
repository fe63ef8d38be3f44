import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, admins, prompts, siteConfigs } from "~/db/schema";
import { changedFields, recordAdminAction, REDACTED, REDACTED_CHANGED, type AdminActor } from "~/server/platform/audit.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { adminContext } from "~/middleware/guards.server";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { requestContext } from "./route-chain";
import { errorsOf } from "../fixtures/form-replies";

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

describe("admin actions write their audit row in the change's transaction", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await adminCookieFor(admin.id);
  });
  const post = (path: string, fields: Record<string, string>) => request(path, { cookie }, fields);
  const get = (path: string) => request(path, { cookie });
  const rowsFor = (action: string) => db.select().from(adminAuditLog).where(eq(adminAuditLog.action, action)).orderBy(desc(adminAuditLog.id));
  const count = async () => (await db.select({ id: adminAuditLog.id }).from(adminAuditLog)).length;

  it("prompts: create, update (changed fields only), delete; a duplicate code and a built-in prompt's delete write nothing", async () => {
    const page = await import("~/routes/admin/prompts");
    const fields = { intent: "create", code: "AUD1", title: "审计", systemContent: "系统", userContent: "用户", type: "free" };
    expect((await callAction(page, post("/admin/prompts?dialog=new", fields))).location).toBe("/admin/prompts?notice=saved");
    const [row] = await db.select().from(prompts).where(eq(prompts.code, "AUD1"));
    const [created] = await rowsFor("prompt.create");
    expect(created).toMatchObject({ adminId: admin.id, adminEmail: admin.email, targetType: "prompt", targetId: String(row.id), clientAddress: "127.0.0.1" });
    expect(created.after).toMatchObject({ code: "AUD1", title: "审计" });

    await callAction(page, post("/admin/prompts", { ...fields, intent: "update", id: String(row.id), title: "审计二" }));
    const [updated] = await rowsFor("prompt.update");
    expect([updated.before, updated.after]).toEqual([{ title: "审计" }, { title: "审计二" }]);

    const before = await count();
    const duplicate = await callAction(page, post("/admin/prompts?dialog=new", { ...fields, code: "P01" }));
    expect(duplicate.status).toBe(409);
    const [p01] = await db.select().from(prompts).where(eq(prompts.code, "P01"));
    const builtIn = await callAction(page, post("/admin/prompts", { intent: "delete", id: String(p01.id) }));
    expect(builtIn.status).toBe(409);
    expect(errorsOf(builtIn.data.result)).toContain("内置提示词不能删除，只能修改内容");
    const recode = await callAction(page, post("/admin/prompts", { ...fields, intent: "update", id: String(p01.id), code: "P01X" }));
    expect(recode.status).toBe(400);
    expect(errorsOf(recode.data.result)).toContain("内置提示词的代码不能修改");
    expect(await count()).toBe(before);
    // A built-in prompt's text can still be edited.
    const edit = await callAction(page, post("/admin/prompts", { ...fields, intent: "update", id: String(p01.id), code: "P01", title: "自由创作（改）" }));
    expect(edit.location).toBe("/admin/prompts?notice=saved");

    await callAction(page, post("/admin/prompts", { intent: "delete", id: String(row.id) }));
    const [deleted] = await rowsFor("prompt.delete");
    expect(deleted.before).toMatchObject({ code: "AUD1", title: "审计二" });
  });

  it("payment interface: the merchant key is never in the log, but its change is", async () => {
    const page = await import("~/routes/admin/settings/payment-api");
    const fields = { gatewayUrl: "https://pay.example.com/submit.php", merchantPid: "1001", merchantKey: "secret-key-0001" };
    await callAction(page, post("/admin/settings/payment-api", fields));
    await callAction(page, post("/admin/settings/payment-api", { ...fields, merchantPid: "1002", merchantKey: "secret-key-0002" }));
    const [row] = await rowsFor("settings.payment-api");
    expect(row.before).toEqual({ merchant_pid: "1001", merchant_key: REDACTED });
    expect(row.after).toEqual({ merchant_pid: "1002", merchant_key: REDACTED_CHANGED });
    const all = JSON.stringify(await db.select().from(adminAuditLog));
    expect(all).not.toContain("secret-key-000");
  });

  it("economy settings, redeem codes, categories and API tokens; a refused economy value writes nothing", async () => {
    const economy = await import("~/routes/admin/settings/economy");
    const good = { pricePerThousand: "5", pricePerThousandMin: "1", pricePerThousandMax: "20", authorSharePercent: "70", wholeBookDiscountPercent: "10", payoutMinimum: "100" };
    expect((await callAction(economy, post("/admin/settings/economy", good))).location).toBe("/admin/settings/economy?notice=saved");
    const before = await count();
    expect((await callAction(economy, post("/admin/settings/economy", { ...good, authorSharePercent: "101" }))).status).toBe(400);
    expect(await count()).toBe(before);
    await callAction(economy, post("/admin/settings/economy", { ...good, authorSharePercent: "60" }));
    const [changed] = await rowsFor("settings.economy");
    expect([changed.before, changed.after]).toEqual([{ authorSharePercent: 70 }, { authorSharePercent: 60 }]);

    const codes = await import("~/routes/admin/codes");
    await callAction(codes, post("/admin/codes", { quantity: "3", amount: "20" }));
    expect((await rowsFor("code.generate"))[0].after).toEqual({ quantity: 3, amount: 20, batch: null, expiresAt: null });

    const categories = await import("~/routes/admin/categories");
    await callAction(categories, post("/admin/categories", { intent: "add", name: "审计分类" }));
    expect((await rowsFor("category.add"))[0].after).toEqual({ name: "审计分类" });

    const tokens = await import("~/routes/admin/api-tokens");
    const made = await callAction(tokens, post("/admin/api-tokens", { intent: "create", name: "备份脚本", expiresIn: "30" }));
    const [tokenRow] = await rowsFor("api-token.create");
    expect(tokenRow.after).toMatchObject({ name: "备份脚本" });
    expect(JSON.stringify(tokenRow)).not.toContain(made.data.created.token);
  });

  it("/admin/audit searches by admin, action, target, days and text, 50 a page", async () => {
    const page = await import("~/routes/admin/audit");
    const other = await createAdmin();
    const otherActor = { admin: { id: other.id, email: other.email }, address: "192.0.2.9" };
    for (let i = 0; i < 55; i++) {
      await recordAdminAction(db, otherActor, { action: "user.nickname", targetType: "user", targetId: `u-${i}`, after: { nickname: `昵称${i}` }, reason: i === 7 ? "垃圾广告账号" : null });
    }
    let r = await callLoader(page, get(`/admin/audit?admin=${encodeURIComponent(other.email)}`));
    expect(r.data.total).toBe(55);
    expect(r.data.rows).toHaveLength(50);
    expect(r.data.pageCount).toBe(2);
    r = await callLoader(page, get(`/admin/audit?admin=${encodeURIComponent(other.email)}&page=2`));
    expect(r.data.rows).toHaveLength(5);
    r = await callLoader(page, get("/admin/audit?q=垃圾广告"));
    expect(r.data.rows.map((x: { targetId: string }) => x.targetId)).toEqual(["u-7"]);
    r = await callLoader(page, get("/admin/audit?q=昵称42"));
    expect(r.data.rows.map((x: { targetId: string }) => x.targetId)).toEqual(["u-42"]);
    r = await callLoader(page, get("/admin/audit?targetType=user&targetId=u-3"));
    expect(r.data.total).toBe(1);
    r = await callLoader(page, get(`/admin/audit?action=prompt.delete`));
    expect(r.data.rows.every((x: { action: string }) => x.action === "prompt.delete")).toBe(true);
    expect(r.data.total).toBeGreaterThan(0);
    // Days are the site's (China Standard Time), the end day included.
    const today = new Intl.DateTimeFormat("sv-SE", { timeZone: "Asia/Shanghai" }).format(new Date());
    r = await callLoader(page, get(`/admin/audit?admin=${encodeURIComponent(other.email)}&from=${today}&to=${today}`));
    expect([r.data.total, r.data.errors]).toEqual([55, []]);
    r = await callLoader(page, get(`/admin/audit?admin=${encodeURIComponent(other.email)}&to=2020-01-01`));
    expect(r.data.total).toBe(0);
    // A wildcard is text, not a pattern.
    r = await callLoader(page, get("/admin/audit?q=%25"));
    expect(r.data.rows.every((x: object) => JSON.stringify(x).includes("%"))).toBe(true);
    // A bad date is named and ignored, never a 500.
    r = await callLoader(page, get(`/admin/audit?admin=${encodeURIComponent(other.email)}&from=2026-02-30&to=nonsense`));
    expect(r.status).toBe(200);
    expect(r.data.errors).toEqual(["日期格式不正确，请使用 年-月-日（如 2026-11-26）"]);
    expect(r.data.total).toBe(55);
    r = await callLoader(page, get("/admin/audit?from=2026-11-27&to=2026-11-26"));
    expect(r.data.errors).toEqual(["开始日期不能晚于结束日期"]);
  });

  it("site name: saved with its audit row; empty or too long is refused, writing nothing; the icon uploads as a 64 px PNG", async () => {
    const page = await import("~/routes/admin/settings/site");
    const before = await count();
    for (const [title, message] of [["  ", "请输入站点名称"], ["名".repeat(31), "站点名称不能超过30个字符"]] as const) {
      const r = await callAction(page, post("/admin/settings/site", { title }));
      expect([r.status, errorsOf(r.data)]).toEqual([400, [message]]);
    }
    expect(await count()).toBe(before);
    expect((await callAction(page, post("/admin/settings/site", { title: " 新砚台 " }))).location).toBe("/admin/settings/site?notice=saved");
    expect((await rowsFor("settings.site"))[0].after).toEqual({ site_title: "新砚台" });
    expect((await callLoader(page, get("/admin/settings/site"))).data.title).toBe("新砚台");

    const sharp = (await import("sharp")).default;
    const png = await sharp({ create: { width: 200, height: 120, channels: 3, background: "#c33" } }).png().toBuffer();
    const form = new FormData();
    form.set("image", new File([new Uint8Array(png)], "icon.png", { type: "image/png" }));
    const icon = await import("~/routes/admin/settings/image");
    const r = await callAction(icon, request("/admin/settings/icon", { cookie }, form));
    expect(r.location).toBe("/admin/settings/icon?notice=uploaded");
    const [{ value }] = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "site_icon"));
    expect(value).toMatch(/\.png$/);
    expect((await rowsFor("settings.image"))[0].after).toEqual({ site_icon: value });
  });

  it("the database export holds the audit log", async () => {
    const { describeTables } = await import("~/server/admin/exports/database.server");
    expect((await describeTables()).map((t) => t.name)).toContain("admin_audit_log");
  });
});
