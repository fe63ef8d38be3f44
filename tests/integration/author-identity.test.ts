import { spawn } from "node:child_process";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, authorIdentities, authorIncome, notifications, payoutAccounts, payoutRequests, works } from "~/db/schema";
import { PAYOUT_ACCOUNT_MESSAGES } from "~/schemas/payout-account";
import { TEST_CARD, withPayoutAccount } from "../fixtures/payout-accounts";
import { IDENTITY_MESSAGES, residentCheckDigit } from "~/schemas/identity";
import { claimNextIdentity, decideIdentity, identityQueue } from "~/server/admin/identity-queue.server";
import { setWorkPricing } from "~/server/economy/chapter-sales.server";
import { requestPayout } from "~/server/economy/income.server";
import { listNotifications } from "~/server/community/notifications.server";
import { authorIdentity, IDENTITY_GATE_MESSAGES, rotateIdentityKey } from "~/server/identity/author-identity.server";
import { parseIdentityKey, sealedKeyId } from "~/server/identity/identity-crypto.server";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { errorsOf, fieldErrorsOf } from "../fixtures/form-replies";
import { setConfig } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * 实名认证 (docs/product.md#author-identity, decisions 204 and 205): the author's form and
 * page, the operators' queue, the 超级管理员's audited full view, the VIP-chapter and payout
 * gates, bad input on every form, permissions, and key rotation.
 */

const KEY = process.env.IDENTITY_KEY!;
const NEW_KEY = "cd".repeat(32);

/** A valid 居民身份证号 born on `birth` (YYYYMMDD). */
function residentId(birth = "19900307", region = "110105"): string {
  const first17 = `${region}${birth}123`;
  return first17 + residentCheckDigit(first17);
}
const VALID = { documentType: "resident_id", legalName: "张三", documentNumber: "11010519491231002x", birthDate: "" };

const settingsPage = () => import("~/routes/shell/settings/identity");
const queuePage = () => import("~/routes/admin/identity");
const itemPage = () => import("~/routes/admin/identity-item");
const revealPage = () => import("~/routes/admin/identity-reveal");

async function submitAs(userId: string, fields: Record<string, string>) {
  return callAction(await settingsPage(), request("/settings/identity", { cookie: await sessionCookieFor(userId) }, fields));
}
async function rowsOf(userId: string) {
  return db.select().from(authorIdentities).where(eq(authorIdentities.userId, userId));
}
async function auditOf(action: string, targetId: number) {
  return db
    .select()
    .from(adminAuditLog)
    .where(and(eq(adminAuditLog.action, action), eq(adminAuditLog.targetId, String(targetId))));
}
/** An author with an approved identity named 张三. */
async function verifiedAuthor(name = "张三") {
  const author = await createUser();
  expect((await submitAs(author.id, { ...VALID, legalName: name })).status).toBe(302);
  const [row] = await rowsOf(author.id);
  await decideIdentity(actorOf(operator), row.id, "approve", "");
  return { author, identityId: row.id };
}
async function publicWork(userId: string) {
  const [workId] = await insertWorks([{ userId, title: "待售作品" }]);
  await db.update(works).set({ visibility: "public" }).where(eq(works.id, workId));
  return workId;
}
const byChapter = { mode: "chapter", vipFrom: "2", pricePerThousand: "5" };

let superAdmin: Awaited<ReturnType<typeof createAdmin>>;
let operator: Awaited<ReturnType<typeof createAdmin>>;
let reviewer: Awaited<ReturnType<typeof createAdmin>>;

beforeAll(async () => {
  superAdmin = await createAdmin({ role: "super" });
  operator = await createAdmin({ role: "operator" });
  reviewer = await createAdmin({ role: "reviewer" });
});

afterEach(async () => {
  process.env.IDENTITY_KEY = KEY;
  delete process.env.IDENTITY_KEY_OLD;
  await setConfig({ identity_required: "off", identity_sell_without_key: "off" });
});

describe("the author's 实名认证 page", () => {
  it("submits, waits in the operators' queue masked, and shows 已通过 with masked values after approval", async () => {
    const author = await createUser();
    const cookie = await sessionCookieFor(author.id);
    const before = await callLoader(await settingsPage(), request("/settings/identity", { cookie }));
    expect(before.data).toMatchObject({ enabled: true, status: "none" });

    const sent = await submitAs(author.id, VALID);
    expect(sent.status).toBe(302);
    const [row] = await rowsOf(author.id);
    // Stored sealed: neither the name nor the number in the clear, the key's id beside them.
    expect(JSON.stringify(row)).not.toContain("张三");
    expect(JSON.stringify(row)).not.toContain("11010519491231002X");
    expect(row).toMatchObject({ status: "pending", nameMasked: "张*", numberMasked: "1101**********002X", keyId: parseIdentityKey(KEY).id, verifier: "manual" });
    expect(sealedKeyId(row.nameCipher)).toBe(row.keyId);

    const waiting = await callLoader(await settingsPage(), request("/settings/identity", { cookie }));
    expect(waiting.data).toMatchObject({ status: "pending", nameMasked: "张*", numberMasked: "1101**********002X" });
    // A second submission while one waits: refused, nothing written.
    expect(errorsOf((await submitAs(author.id, VALID)).data)).toEqual([IDENTITY_MESSAGES.alreadyPending]);
    expect(await rowsOf(author.id)).toHaveLength(1);

    // The operator's queue and item: masked values only.
    const opCookie = await adminCookieFor(operator.id);
    const queue = await callLoader(await queuePage(), request("/admin/identity", { cookie: opCookie }));
    expect(queue.status).toBe(200);
    const listed = queue.data.rows.find((r: { id: number }) => r.id === row.id);
    expect(listed).toMatchObject({ nameMasked: "张*", numberMasked: "1101**********002X" });
    expect(JSON.stringify(queue.data)).not.toContain("11010519491231002X");
    const claim = await callAction(await queuePage(), request("/admin/identity", { cookie: opCookie }, { intent: "claim-next" }));
    expect(claim.location).toBe(`/admin/identity/${row.id}?notice=identity-claimed`);
    const item = await callLoader(await itemPage(), request(`/admin/identity/${row.id}`, { cookie: opCookie }), { id: String(row.id) });
    expect(item.data.item).toMatchObject({ claimedByMe: true, nameMasked: "张*", status: "pending" });
    expect(item.data.canReveal).toBe(false);
    expect(JSON.stringify(item.data)).not.toMatch(/张三|11010519491231002X/);

    const approved = await callAction(await itemPage(), request(`/admin/identity/${row.id}`, { cookie: opCookie }, { intent: "decide", decision: "approve" }), { id: String(row.id) });
    expect(approved.location).toBe("/admin/identity?notice=identity-approved");
    const [audit] = await auditOf("identity.approve", row.id);
    expect(audit).toMatchObject({ adminEmail: operator.email, after: { status: "approved", name: "张*", number: "1101**********002X" } });

    const after = await callLoader(await settingsPage(), request("/settings/identity", { cookie }));
    expect(after.data).toMatchObject({ status: "approved", nameMasked: "张*", numberMasked: "1101**********002X" });
    expect((await db.select({ body: notifications.body }).from(notifications).where(eq(notifications.userId, author.id))).map((n) => n.body)).toEqual(["实名认证已通过"]);
    expect((await listNotifications(author.id, 1)).lines.map((l) => l.href)).toEqual(["/settings/identity"]);
    expect(errorsOf((await submitAs(author.id, VALID)).data)).toEqual([IDENTITY_MESSAGES.alreadyApproved]);
  });

  it("returns a submission with a reason the author reads, and takes a new one after", async () => {
    const author = await createUser();
    await submitAs(author.id, { ...VALID, documentType: "passport", legalName: "Li Lei", documentNumber: "e1234 5678", birthDate: "1995-05-05" });
    const [row] = await rowsOf(author.id);
    expect(row).toMatchObject({ documentType: "passport", nameMasked: "L*****", numberMasked: "E1*****78" });
    const cookie = await adminCookieFor(operator.id);
    const mod = await itemPage();
    // 退回 without a reason: refused, nothing changes.
    const noReason = await callAction(mod, request(`/admin/identity/${row.id}`, { cookie }, { intent: "decide", decision: "reject", note: " " }), { id: String(row.id) });
    expect([noReason.status, fieldErrorsOf({ data: noReason.data }).note]).toEqual([400, [IDENTITY_MESSAGES.noteRequired]]);
    expect((await rowsOf(author.id))[0].status).toBe("pending");
    const rejected = await callAction(mod, request(`/admin/identity/${row.id}`, { cookie }, { intent: "decide", decision: "reject", note: "证件号码与姓名不符" }), { id: String(row.id) });
    expect(rejected.location).toBe("/admin/identity?notice=identity-rejected");
    // Decided once: a second decision is refused.
    const again = await callAction(mod, request(`/admin/identity/${row.id}`, { cookie }, { intent: "decide", decision: "approve" }), { id: String(row.id) });
    expect([again.status, errorsOf(again.data)]).toEqual([409, [IDENTITY_MESSAGES.alreadyDecided]]);

    const page = await callLoader(await settingsPage(), request("/settings/identity", { cookie: await sessionCookieFor(author.id) }));
    expect(page.data).toMatchObject({ status: "rejected", note: "证件号码与姓名不符" });
    expect((await auditOf("identity.reject", row.id))[0].reason).toBe("证件号码与姓名不符");
    // The author's inbox says so too (审核通知).
    const lines = await db.select({ kind: notifications.kind, body: notifications.body }).from(notifications).where(eq(notifications.userId, author.id));
    expect(lines).toEqual([{ kind: "review", body: "实名认证未通过，请修改后重新提交。原因：证件号码与姓名不符" }]);
    expect((await submitAs(author.id, VALID)).status).toBe(302);
    expect((await authorIdentity(author.id)).status).toBe("pending");
  });

  it("refuses bad input with a message by the field and writes nothing", async () => {
    const author = await createUser();
    const cases: [Record<string, string>, string, string][] = [
      [{ ...VALID, documentNumber: "110105194912310021" }, "documentNumber", IDENTITY_MESSAGES.residentCheckDigit],
      [{ ...VALID, documentNumber: residentId("20990101") }, "documentNumber", IDENTITY_MESSAGES.birthFuture],
      [{ ...VALID, documentNumber: residentId("20000230") }, "documentNumber", IDENTITY_MESSAGES.birthInvalid],
      [{ ...VALID, documentNumber: residentId(`${new Date().getUTCFullYear() - 10}0101`) }, "documentNumber", IDENTITY_MESSAGES.tooYoung],
      [{ ...VALID, documentNumber: "12345" }, "documentNumber", IDENTITY_MESSAGES.residentFormat],
      [{ ...VALID, documentNumber: "" }, "documentNumber", IDENTITY_MESSAGES.numberRequired],
      [{ ...VALID, legalName: "" }, "legalName", IDENTITY_MESSAGES.nameRequired],
      [{ ...VALID, legalName: "<script>" }, "legalName", IDENTITY_MESSAGES.nameFormat],
      [{ ...VALID, documentType: "driver" }, "documentType", IDENTITY_MESSAGES.documentType],
      [{ ...VALID, documentType: "passport", documentNumber: "E12345678", birthDate: "" }, "birthDate", IDENTITY_MESSAGES.birthRequired],
      [{ ...VALID, documentType: "hmt_permit", documentNumber: "H12345678", birthDate: "2020-01-01" }, "birthDate", IDENTITY_MESSAGES.tooYoung],
      [{}, "documentType", IDENTITY_MESSAGES.documentType],
    ];
    for (const [fields, field, message] of cases) {
      const r = await submitAs(author.id, fields);
      expect([fields, r.status, fieldErrorsOf({ data: r.data })[field]]).toEqual([fields, 400, [message]]);
    }
    expect(await rowsOf(author.id)).toEqual([]);
  });

  it("says 实名认证未开启 without IDENTITY_KEY and takes no submission", async () => {
    delete process.env.IDENTITY_KEY;
    const author = await createUser();
    const page = await callLoader(await settingsPage(), request("/settings/identity", { cookie: await sessionCookieFor(author.id) }));
    expect(page.data).toMatchObject({ enabled: false, status: "none" });
    const r = await submitAs(author.id, VALID);
    expect([r.status, errorsOf(r.data)]).toEqual([409, [IDENTITY_MESSAGES.off]]);
    expect(await rowsOf(author.id)).toEqual([]);
  });
});

describe("the gates (decision 205)", () => {
  it("are required on a new site, with selling closed without a key; the test site starts with them off", async () => {
    const { DEFAULT_SITE_CONFIGS } = await import("~/server/platform/defaults.server");
    expect([DEFAULT_SITE_CONFIGS.identity_required, DEFAULT_SITE_CONFIGS.identity_sell_without_key]).toEqual(["on", "off"]);
    const { identityPolicy } = await import("~/server/identity/author-identity.server");
    expect(await identityPolicy()).toEqual({ required: false, sellWithoutKey: false });
  });

  it("refuses VIP chapters to an author not verified, with the way to the page; a verified one sells", async () => {
    await setConfig({ identity_required: "on" });
    const author = await createUser();
    const workId = await publicWork(author.id);
    expect((await domainError(setWorkPricing(author.id, workId, byChapter))).message).toBe(IDENTITY_GATE_MESSAGES.vip);
    const pricing = await import("~/routes/shell/studio/pricing");
    const cookie = await sessionCookieFor(author.id);
    const page = await callLoader(pricing, request(`/works/${workId}/pricing`, { cookie }), { id: String(workId) });
    expect(page.data.needsIdentity).toBe(true);
    const posted = await callAction(pricing, request(`/works/${workId}/pricing`, { cookie }, byChapter), { id: String(workId) });
    expect([posted.status, posted.data.message]).toEqual([403, IDENTITY_GATE_MESSAGES.vip]);
    expect((await db.select().from(works).where(eq(works.id, workId)))[0]).toMatchObject({ visibility: "public", vipFrom: null });

    await submitAs(author.id, VALID);
    expect((await domainError(setWorkPricing(author.id, workId, byChapter))).message).toBe(IDENTITY_GATE_MESSAGES.vipPending);
    const [row] = await rowsOf(author.id);
    await decideIdentity(actorOf(operator), row.id, "approve", "");
    await setWorkPricing(author.id, workId, byChapter);
    expect((await db.select().from(works).where(eq(works.id, workId)))[0]).toMatchObject({ visibility: "public-vip", vipFrom: 2 });

    // The switch off: anyone sells, as before.
    await setConfig({ identity_required: "off" });
    const other = await createUser();
    await setWorkPricing(other.id, await publicWork(other.id), byChapter);
  });

  it("requires a verified identity and an account held in the verified name for a payout; a refusal holds nothing", async () => {
    await setConfig({ identity_required: "on" });
    const stranger = await createUser();
    await db.insert(authorIncome).values({ userId: stranger.id, balance: 500 });
    expect((await domainError(requestPayout(stranger.id, "100"))).message).toBe(IDENTITY_GATE_MESSAGES.payout);
    expect((await domainError(withPayoutAccount(stranger.id, "张三"))).message).toBe(IDENTITY_GATE_MESSAGES.payout);

    const { author } = await verifiedAuthor("张三");
    await db.insert(authorIncome).values({ userId: author.id, balance: 500 });
    const income = await import("~/routes/shell/credits/income");
    const accountPage = await import("~/routes/shell/credits/payout-account");
    const cookie = await sessionCookieFor(author.id);
    expect((await callLoader(income, request("/income", { cookie }))).data.needsIdentity).toBe(false);
    // No account yet.
    const none = await callAction(income, request("/income", { cookie }, { intent: "payout", amount: "100" }));
    expect([none.status, none.data]).toEqual([400, { intent: "payout", field: "account", error: PAYOUT_ACCOUNT_MESSAGES.none }]);
    // An account in another's name is refused by its field, nothing stored.
    const foreign = await callAction(accountPage, request("/income/account", { cookie }, { kind: "bank", account: TEST_CARD, bankName: "招商银行", holderName: "李四" }));
    expect([foreign.status, fieldErrorsOf(foreign)]).toEqual([400, { holderName: [PAYOUT_ACCOUNT_MESSAGES.holderMismatch] }]);
    expect(await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, author.id))).toEqual([]);
    expect(await db.select().from(payoutRequests).where(eq(payoutRequests.userId, author.id))).toEqual([]);
    expect((await db.select().from(authorIncome).where(eq(authorIncome.userId, author.id)))[0]).toMatchObject({ balance: 500, held: 0 });

    const saved = await callAction(accountPage, request("/income/account", { cookie }, { kind: "bank", account: TEST_CARD, bankName: "招商银行", holderName: " 张三 " }));
    expect([saved.status, saved.location]).toEqual([302, "/income/account"]);
    const ok = await callAction(income, request("/income", { cookie }, { intent: "payout", amount: "100" }));
    expect(ok.status).toBe(302);
    expect((await db.select().from(payoutRequests).where(eq(payoutRequests.userId, author.id)))[0]).toMatchObject({
      amount: 100,
      payeeName: "张三",
      payee: "银行卡 招商银行 6222 **** **** 0128",
    });
  });

  it("without a key: closed, unless the operator opens selling; the switches are the 超级管理员's, audited", async () => {
    const economy = await import("~/routes/admin/settings/economy");
    const cookie = await adminCookieFor(superAdmin.id);
    const saved = await callAction(economy, request("/admin/settings/economy", { cookie }, { intent: "identity", required: "on" }));
    expect(saved.location).toBe("/admin/settings/economy?notice=saved");
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "settings.identity"));
    expect(audit).toMatchObject({ adminEmail: superAdmin.email, after: { required: true } });
    const byOperator = await callAction(economy, request("/admin/settings/economy", { cookie: await adminCookieFor(operator.id) }, { intent: "identity" }));
    expect(byOperator.status).toBe(403);

    delete process.env.IDENTITY_KEY;
    const author = await createUser();
    const workId = await publicWork(author.id);
    expect((await domainError(setWorkPricing(author.id, workId, byChapter))).message).toBe(IDENTITY_GATE_MESSAGES.offVip);
    await db.insert(authorIncome).values({ userId: author.id, balance: 500 });
    expect((await domainError(requestPayout(author.id, "100"))).message).toBe(IDENTITY_GATE_MESSAGES.offPayout);
    await callAction(economy, request("/admin/settings/economy", { cookie }, { intent: "identity", required: "on", sellWithoutKey: "on" }));
    await setWorkPricing(author.id, workId, byChapter);
    // Selling opens; a payout still needs an account, which cannot be stored without the key (decision 210).
    expect((await domainError(withPayoutAccount(author.id))).message).toBe(PAYOUT_ACCOUNT_MESSAGES.off);
    expect((await domainError(requestPayout(author.id, "100"))).message).toBe(PAYOUT_ACCOUNT_MESSAGES.none);
  });
});

describe("the full view", () => {
  it("shows a 超级管理员 the full values once, for a reason written to the audit log", async () => {
    const { identityId } = await verifiedAuthor("王小明");
    const cookie = await adminCookieFor(superAdmin.id);
    const mod = await revealPage();
    const page = await callLoader(mod, request(`/admin/identity/${identityId}/reveal`, { cookie }), { id: String(identityId) });
    expect(JSON.stringify(page.data)).not.toContain("王小明");

    const noReason = await callAction(mod, request(`/admin/identity/${identityId}/reveal`, { cookie }, { reason: "  " }), { id: String(identityId) });
    expect([noReason.status, errorsOf(noReason.data.reply), noReason.data.revealed]).toEqual([400, [IDENTITY_MESSAGES.reasonRequired], null]);
    expect(await auditOf("identity.reveal", identityId)).toEqual([]);

    const shown = await callAction(mod, request(`/admin/identity/${identityId}/reveal`, { cookie }, { reason: "作者申诉提现被拒，核对姓名" }), { id: String(identityId) });
    expect(shown.data.revealed).toEqual({ legalName: "王小明", documentNumber: "11010519491231002X" });
    const [audit] = await auditOf("identity.reveal", identityId);
    expect(audit).toMatchObject({ adminEmail: superAdmin.email, reason: "作者申诉提现被拒，核对姓名" });
  });

  it("is closed to 运营 and 审核员; a 审核员 does not reach the queue", async () => {
    const { identityId } = await verifiedAuthor();
    const mod = await revealPage();
    for (const who of [operator, reviewer]) {
      const cookie = await adminCookieFor(who.id);
      const post = await callAction(mod, request(`/admin/identity/${identityId}/reveal`, { cookie }, { reason: "看看" }), { id: String(identityId) });
      expect(post.status).toBe(403);
    }
    const queue = await callAction(await queuePage(), request("/admin/identity", { cookie: await adminCookieFor(reviewer.id) }, { intent: "claim-next" }));
    expect(queue.status).toBe(403);
    expect(await auditOf("identity.reveal", identityId)).toEqual([]);
  });

  it("answers a clear message for a tampered cipher, shows nothing and refuses the payout", async () => {
    await setConfig({ identity_required: "on" });
    const { author, identityId } = await verifiedAuthor();
    const [row] = await rowsOf(author.id);
    const parts = row.nameCipher.split(".");
    const body = Buffer.from(parts[4], "base64url");
    body[0] ^= 0xff;
    await db.update(authorIdentities).set({ nameCipher: [...parts.slice(0, 4), body.toString("base64url")].join(".") }).where(eq(authorIdentities.id, identityId));
    const shown = await callAction(await revealPage(), request(`/admin/identity/${identityId}/reveal`, { cookie: await adminCookieFor(superAdmin.id) }, { reason: "核对" }), {
      id: String(identityId),
    });
    expect([shown.status, errorsOf(shown.data.reply), shown.data.revealed]).toEqual([500, [IDENTITY_MESSAGES.undecryptable], null]);
    expect(await auditOf("identity.reveal", identityId)).toEqual([]);
    await db.insert(authorIncome).values({ userId: author.id, balance: 500 });
    expect((await domainError(requestPayout(author.id, "100"))).message).toBe(IDENTITY_MESSAGES.undecryptable);
  });
});

describe("the queue's claims", () => {
  it("gives two operators different submissions, and refuses a decision on another's claim", async () => {
    const other = await createAdmin({ role: "operator" });
    // Drain what earlier tests left waiting.
    while ((await identityQueue()).pending > 0) {
      const id = await claimNextIdentity(actorOf(superAdmin));
      if (id === null) break;
      await decideIdentity(actorOf(superAdmin), id, "approve", "");
    }
    const [a, b] = [await createUser(), await createUser()];
    await submitAs(a.id, VALID);
    await submitAs(b.id, VALID);
    const [first, second] = await Promise.all([claimNextIdentity(actorOf(operator)), claimNextIdentity(actorOf(other))]);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(first).not.toBe(second);
    expect((await domainError(decideIdentity(actorOf(other), first!, "approve", ""))).message).toBe(IDENTITY_MESSAGES.claimedByOther(operator.email));
  });
});

describe("npm run identity:rotate-key", () => {
  it("re-encrypts every submission with the new key; the old values read the same after", async () => {
    const { author, identityId } = await verifiedAuthor("赵六");
    process.env.IDENTITY_KEY_OLD = KEY;
    process.env.IDENTITY_KEY = NEW_KEY;
    const result = await rotateIdentityKey();
    // A row tampered with above (if any) is reported and left as it is; this one rotates.
    expect(result.failed).not.toContain(identityId);
    expect(result.rotated).toBeGreaterThan(0);
    const [row] = await rowsOf(author.id);
    expect(row.keyId).toBe(parseIdentityKey(NEW_KEY).id);
    // The new key alone opens it.
    delete process.env.IDENTITY_KEY_OLD;
    const shown = await callAction(await revealPage(), request(`/admin/identity/${identityId}/reveal`, { cookie: await adminCookieFor(superAdmin.id) }, { reason: "轮换后核对" }), {
      id: String(identityId),
    });
    expect(shown.data.revealed).toEqual({ legalName: "赵六", documentNumber: "11010519491231002X" });
    // Run again: nothing left on the old key.
    process.env.IDENTITY_KEY_OLD = KEY;
    expect(await rotateIdentityKey()).toEqual({ rotated: 0, failed: result.failed });
  });

  it("the script refuses to run without both keys, with its usage", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, IDENTITY_KEY: NEW_KEY };
    delete env.IDENTITY_KEY_OLD;
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/identity-rotate-key.ts"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect([code, output.trim()]).toEqual([2, "用法：IDENTITY_KEY=<新密钥> IDENTITY_KEY_OLD=<旧密钥> npm run identity:rotate-key"]);
  });
});
