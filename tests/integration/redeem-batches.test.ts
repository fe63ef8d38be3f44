import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, redeemCodes } from "~/db/schema";
import { countUnusedCodes } from "~/server/admin/redeem-codes.server";
import { REDEEM_MESSAGES, redeemCode } from "~/server/economy/ledger.server";
import { createUser } from "../fixtures/accounts";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { errorsOf } from "../fixtures/form-replies";

let cookie: string;
beforeAll(async () => {
  cookie = await adminCookieFor((await createAdmin()).id);
});

const page = () => import("~/routes/admin/codes");
const post = (fields: Record<string, string>) => request("/admin/codes?dialog=generate", { cookie }, fields);
const list = async (query: string) => (await callLoader(await page(), request(`/admin/codes?${query}`, { cookie }))).data;
const rejection = (promise: Promise<unknown>) => promise.then(() => null, (e: Error) => e.message);

describe("redeem codes in named batches, with an optional end, voidable, searchable", () => {
  it("generates a named batch ending on a day, finds it by batch and by code, and writes the audit row", async () => {
    const r = await callAction(await page(), post({ intent: "generate", quantity: "5", amount: "20", batch: "双十一活动", expiresOn: "2099-12-31" }));
    expect(r.location).toBe("/admin/codes?status=all&notice=codes-generated");
    const batch = await list("status=all&batch=双十一活动");
    expect(batch.total).toBe(5);
    // The end is the close of that day in China time.
    expect(new Date(batch.codes[0].expiresAt).toISOString()).toBe("2099-12-31T16:00:00.000Z");
    const one: string = batch.codes[0].code;
    expect((await list(`status=all&code=${one.slice(0, 10)}`)).codes.map((c: { code: string }) => c.code)).toEqual([one]);
    expect((await list(`status=all&code=${one.slice(0, 4)}`)).codes.map((c: { code: string }) => c.code)).toContain(one);
    expect((await list("status=all&code=abc")).total).toBe(0);
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "code.generate")).orderBy(desc(adminAuditLog.id)).limit(1);
    expect(audit).toMatchObject({ targetId: "双十一活动", after: { quantity: 5, amount: 20, batch: "双十一活动" } });
  });

  it("refuses a day that is not one, a day already past, and a long batch name, creating nothing", async () => {
    const before = (await db.select().from(redeemCodes)).length;
    const cases: [Record<string, string>, string][] = [
      [{ expiresOn: "2026-02-30" }, "请输入有效的日期（年-月-日）"],
      [{ expiresOn: "2020-01-01" }, "有效期须晚于现在"],
      [{ batch: "批".repeat(51) }, "批次名称不能超过50个字符"],
    ];
    for (const [fields, message] of cases) {
      const r = await callAction(await page(), post({ intent: "generate", quantity: "1", amount: "10", ...fields }));
      expect(r.status, message).toBe(400);
      expect(errorsOf(r.data.result)).toContain(message);
    }
    expect((await db.select().from(redeemCodes)).length).toBe(before);
  });

  it("voids one code and a whole batch's unused codes; voided and expired codes do not redeem", async () => {
    const user = await createUser();
    await callAction(await page(), post({ intent: "generate", quantity: "3", amount: "10", batch: "作废测试" }));
    const codes = (await list("status=all&batch=作废测试")).codes as { id: number; code: string }[];
    const redeemable = await countUnusedCodes();

    await redeemCode(user.id, codes[0].code);
    let r = await callAction(await page(), request("/admin/codes", { cookie }, { intent: "void", id: String(codes[1].id) }));
    expect(r.location).toBe("/admin/codes?status=all&notice=codes-voided");
    expect(await rejection(redeemCode(user.id, codes[1].code))).toBe(REDEEM_MESSAGES.voided);
    // A used code is not voided; nor is one voided twice.
    r = await callAction(await page(), request("/admin/codes", { cookie }, { intent: "void", id: String(codes[0].id) }));
    expect([r.status, errorsOf(r.data.result)]).toEqual([409, ["兑换码已使用或已作废"]]);
    r = await callAction(await page(), request("/admin/codes", { cookie }, { intent: "void", id: "999999999" }));
    expect(r.status).toBe(404);

    r = await callAction(await page(), request("/admin/codes", { cookie }, { intent: "void-batch", batch: "作废测试" }));
    expect(r.location).toBe("/admin/codes?status=all&notice=codes-voided");
    expect(await rejection(redeemCode(user.id, codes[2].code))).toBe(REDEEM_MESSAGES.voided);
    expect((await list("status=void&batch=作废测试")).total).toBe(2);
    expect((await list("status=used&batch=作废测试")).total).toBe(1);
    expect(await countUnusedCodes()).toBe(redeemable - 3);
    r = await callAction(await page(), request("/admin/codes", { cookie }, { intent: "void-batch", batch: "作废测试" }));
    expect([r.status, errorsOf(r.data.result)]).toEqual([409, ["该批次没有可作废的兑换码"]]);
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "code.void")).orderBy(desc(adminAuditLog.id)).limit(1);
    expect(audit).toMatchObject({ targetId: "作废测试", after: { voided: 1 } });

    // A code past its end.
    await callAction(await page(), post({ intent: "generate", quantity: "1", amount: "10", batch: "过期测试", expiresOn: "2099-01-01" }));
    const [expiring] = (await list("status=all&batch=过期测试")).codes as { id: number; code: string }[];
    await db.update(redeemCodes).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(redeemCodes.id, expiring.id));
    expect(await rejection(redeemCode(user.id, expiring.code))).toBe(REDEEM_MESSAGES.expired);
    expect((await list("status=expired&batch=过期测试")).total).toBe(1);
    expect((await list("status=unused&batch=过期测试")).total).toBe(0);
  });
});
