import fs from "node:fs";
import path from "node:path";
import { and, eq, like } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, bookReviews, chapterComments, phoneCodes, rateLimits, siteConfigs, users, workTips } from "~/db/schema";
import { PHONE_CODE_MAX_TRIES, PHONE_MESSAGES } from "~/schemas/phone-rules";
import { listComments, postComment } from "~/server/community/comments.server";
import { postReview } from "~/server/community/book-reviews.server";
import { tipWork } from "~/server/economy/tips.server";
import { confirmPhoneCode, sendPhoneCode } from "~/server/identity/phone-verification.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { smsOutboxDir } from "~/server/platform/sms.server";
import * as phonePage from "~/routes/shell/settings/phone";
import * as settingsPage from "~/routes/shell/settings/settings";
import * as commentsPage from "~/routes/shell/reader/comments";
import * as siteSettingsPage from "~/routes/admin/settings/site";
import { createUser, sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { creditBalance, fund, setConfig } from "../fixtures/ledger";
import { addChapter, insertWorks } from "../fixtures/works";
import { startFakeSms, type FakeSms } from "../fakes/sms";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import { requestContext, runRoute } from "./route-chain";

/**
 * 后台实名 (docs/product.md#phone-verification, decision 235): binding a phone number by a
 * code, through the outbox and through a provider at SMS_URL, the bad inputs, and the
 * comment, review and tip-message refusals while the operator's switch is on.
 */

const viewer = (id: string) => ({ id, showR18: false, showAi: true });
let nextNumber = 13_800_000_000 + Math.floor(Math.random() * 90_000_000);
/** A fresh, valid mainland number for each use. */
const newPhone = () => String(nextNumber++);

async function reader() {
  const user = await createUser();
  return { ...user, cookie: await sessionCookieFor(user.id) };
}

/** The code in the newest outbox message to `phone`. */
function outboxCode(phone: string): string {
  const dir = smsOutboxDir();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  for (const file of files.reverse()) {
    const message = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as { phone: string; text: string };
    if (message.phone === phone) return /(\d{6})/.exec(message.text)![1];
  }
  throw new Error(`no SMS to ${phone} in ${dir}`);
}

async function boundPhone(userId: string) {
  const [row] = await db.select({ phone: users.phone, at: users.phoneVerifiedAt }).from(users).where(eq(users.id, userId));
  return row;
}

async function codesOf(userId: string) {
  return db.select().from(phoneCodes).where(eq(phoneCodes.userId, userId));
}

/** Lets a number be sent to again at once (the one-a-minute rule is tested on its own). */
async function forgetMinute(phone: string) {
  await db.delete(rateLimits).where(eq(rateLimits.key, `sms:phone-minute:${phone}`));
}

afterEach(() => {
  delete process.env.SMS_URL;
  delete process.env.SMS_TOKEN;
  for (const name of ["SMS_LIMIT_PER_PHONE", "SMS_LIMIT_PER_ADDRESS"]) delete process.env[name];
});

describe("binding a phone through the settings page, codes in the outbox", () => {
  it("sends a code to DATA_DIR/outbox/sms, says where in the log, binds the normalised number and shows it masked", async () => {
    const me = await reader();
    const phone = newPhone();
    const log = vi.spyOn(console, "info").mockImplementation(() => {});
    try {
      const sent = await callAction(phonePage, request("/settings/phone?redirectTo=%2Fworks%2F1", { cookie: me.cookie }, { intent: "send", phone: `+86 ${phone.slice(0, 3)}-${phone.slice(3, 7)}-${phone.slice(7)}` }));
      expect([sent.status, sent.location]).toEqual([302, "/settings/phone?redirectTo=%2Fworks%2F1"]);
      expect(log.mock.calls.some(([line]) => String(line).includes(smsOutboxDir()) && String(line).includes("SMS_URL is not set"))).toBe(true);
    } finally {
      log.mockRestore();
    }
    const code = outboxCode(phone);
    // Stored hashed: the code is nowhere in its row.
    const [row] = await codesOf(me.id);
    expect(row.phone).toBe(phone);
    expect(row.codeHash).not.toContain(code);

    const page = await callLoader(phonePage, request("/settings/phone", { cookie: me.cookie }));
    expect(page.data).toMatchObject({ phone: null, pending: `${phone.slice(0, 3)}****${phone.slice(7)}` });

    const bound = await callAction(phonePage, request("/settings/phone?redirectTo=%2Fworks%2F1", { cookie: me.cookie }, { intent: "confirm", code }));
    expect([bound.status, bound.location]).toEqual([302, "/works/1"]);
    expect((await boundPhone(me.id)).phone).toBe(phone);
    const settings = await callLoader(settingsPage, request("/settings", { cookie: me.cookie }));
    expect(settings.data.settings.phone).toBe(`${phone.slice(0, 3)}****${phone.slice(7)}`);

    // The same code again: used.
    const again = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "confirm", code }));
    expect(again.status).toBe(400);
    expect(again.data.error.code).toEqual([PHONE_MESSAGES.codeUsed]);
  });

  it("changes a bound number to another with a new code; the old number is free again", async () => {
    const me = await reader();
    const [first, second] = [newPhone(), newPhone()];
    await sendPhoneCode(me.id, first, "10.0.0.1");
    await confirmPhoneCode(me.id, outboxCode(first));
    expect(await domainError(sendPhoneCode(me.id, first, "10.0.0.1"))).toMatchObject({ message: PHONE_MESSAGES.alreadyMine, status: 400 });
    await sendPhoneCode(me.id, second, "10.0.0.1");
    expect(await confirmPhoneCode(me.id, outboxCode(second))).toBe(`${second.slice(0, 3)}****${second.slice(7)}`);
    expect((await boundPhone(me.id)).phone).toBe(second);
    const other = await reader();
    await forgetMinute(first);
    await sendPhoneCode(other.id, first, "10.0.0.2");
    await confirmPhoneCode(other.id, outboxCode(first));
    expect((await boundPhone(other.id)).phone).toBe(first);
  });
});

describe("a provider at SMS_URL", () => {
  let fake: FakeSms;
  beforeAll(async () => {
    fake = await startFakeSms({ token: "sms-secret" });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    process.env.SMS_URL = fake.url;
    process.env.SMS_TOKEN = "sms-secret";
    fake.failing = false;
  });

  it("posts {phone, text} as JSON with the bearer token; the code in the text binds the number", async () => {
    const me = await reader();
    const phone = newPhone();
    const before = fake.messages.length;
    const sent = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "send", phone }));
    expect(sent.status).toBe(302);
    const message = fake.messages.at(-1)!;
    expect(fake.messages.length).toBe(before + 1);
    expect([message.phone, message.authorization]).toEqual([phone, "Bearer sms-secret"]);
    expect(message.text).toMatch(/验证码是 \d{6}，5 分钟内有效/);
    const code = /(\d{6})/.exec(message.text)![1];
    const bound = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "confirm", code }));
    expect([bound.status, bound.location]).toEqual([302, "/settings"]);
    expect((await boundPhone(me.id)).phone).toBe(phone);
  });

  it("a provider that refuses: 短信发送失败 (502) and no code left behind", async () => {
    const me = await reader();
    fake.failing = true;
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const sent = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "send", phone: newPhone() }));
      expect(sent.status).toBe(502);
      expect(sent.data.error.phone).toEqual([PHONE_MESSAGES.sendFailed]);
    } finally {
      error.mockRestore();
    }
    expect(await codesOf(me.id)).toEqual([]);
  });
});

describe("bad input: clear messages, nothing half-written", () => {
  it("refuses a malformed number or code by the field, sending nothing", async () => {
    const me = await reader();
    for (const phone of ["", "1380013800", "23800138000", "12800138000", "138001380001", "138-0013-800a"]) {
      const sent = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "send", phone }));
      expect(sent.status, phone).toBe(400);
      expect(sent.data.error.phone, phone).toEqual([phone ? PHONE_MESSAGES.phoneInvalid : PHONE_MESSAGES.phoneRequired]);
    }
    for (const code of ["12345", "1234567", "abcdef"]) {
      const sent = await callAction(phonePage, request("/settings/phone", { cookie: me.cookie }, { intent: "confirm", code }));
      expect(sent.data.error.code, code).toEqual([PHONE_MESSAGES.codeInvalid]);
    }
    expect(await codesOf(me.id)).toEqual([]);
    expect(await domainError(confirmPhoneCode(me.id, "123456"))).toMatchObject({ message: PHONE_MESSAGES.noCode, status: 400 });
  });

  it("counts wrong codes: the tries left are said, then the code is dead even when right", async () => {
    const me = await reader();
    const phone = newPhone();
    await sendPhoneCode(me.id, phone, "10.0.1.1");
    const code = outboxCode(phone);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let i = 1; i < PHONE_CODE_MAX_TRIES; i++) {
      expect((await domainError(confirmPhoneCode(me.id, wrong))).message).toBe(PHONE_MESSAGES.codeWrong(PHONE_CODE_MAX_TRIES - i));
    }
    expect((await domainError(confirmPhoneCode(me.id, wrong))).message).toBe(PHONE_MESSAGES.tooManyTries);
    expect((await domainError(confirmPhoneCode(me.id, code))).message).toBe(PHONE_MESSAGES.tooManyTries);
    expect((await boundPhone(me.id)).phone).toBeNull();
    // A new code starts again.
    await forgetMinute(phone);
    await sendPhoneCode(me.id, phone, "10.0.1.1");
    await confirmPhoneCode(me.id, outboxCode(phone));
    expect((await boundPhone(me.id)).phone).toBe(phone);
  });

  it("refuses an expired code, and a superseded one (the newest code counts)", async () => {
    const me = await reader();
    const phone = newPhone();
    await sendPhoneCode(me.id, phone, "10.0.2.1");
    const old = outboxCode(phone);
    await db.execute(`update phone_codes set expires_at = now() - interval '1 second' where user_id = '${me.id}'`);
    expect(await domainError(confirmPhoneCode(me.id, old))).toMatchObject({ message: PHONE_MESSAGES.codeExpired, status: 400 });
    await forgetMinute(phone);
    await sendPhoneCode(me.id, phone, "10.0.2.1");
    const fresh = outboxCode(phone);
    if (fresh !== old) expect((await domainError(confirmPhoneCode(me.id, old))).message).toBe(PHONE_MESSAGES.codeWrong(PHONE_CODE_MAX_TRIES - 1));
    await confirmPhoneCode(me.id, fresh);
    expect((await boundPhone(me.id)).phone).toBe(phone);
  });

  it("limits sends: one a minute and five an hour per number, and per client address", async () => {
    const me = await reader();
    const phone = newPhone();
    await sendPhoneCode(me.id, phone, "10.0.3.1");
    expect(await domainError(sendPhoneCode(me.id, phone, "10.0.3.1"))).toMatchObject({ message: PHONE_MESSAGES.resendWait, status: 429 });
    process.env.SMS_LIMIT_PER_PHONE = "2";
    await forgetMinute(phone);
    await sendPhoneCode(me.id, phone, "10.0.3.2");
    await forgetMinute(phone);
    expect(await domainError(sendPhoneCode(me.id, phone, "10.0.3.3"))).toMatchObject({ message: PHONE_MESSAGES.tooManySends, status: 429 });

    process.env.SMS_LIMIT_PER_ADDRESS = "1";
    await sendPhoneCode(me.id, newPhone(), "10.0.3.9");
    const page = await runRoute(
      "action",
      phonePage,
      request("/settings/phone", { cookie: me.cookie }, { intent: "send", phone: newPhone() }),
      {},
      requestContext("10.0.3.9"),
    );
    expect((page as { init: { status: number } }).init.status).toBe(429);
    expect((page as { data: { error: Record<string, string[]> } }).data.error.phone).toEqual([PHONE_MESSAGES.tooManySends]);
  });

  it("one account per number: another's number is refused when sending, and when two race to bind it", async () => {
    const [a, b, c] = [await reader(), await reader(), await reader()];
    const phone = newPhone();
    // Both get a code before either binds.
    await sendPhoneCode(a.id, phone, "10.0.4.1");
    const codeA = outboxCode(phone);
    await forgetMinute(phone);
    await sendPhoneCode(b.id, phone, "10.0.4.2");
    const codeB = outboxCode(phone);
    // At once (on PostgreSQL two connections): the unique number lets exactly one through.
    const results = await Promise.allSettled([confirmPhoneCode(a.id, codeA), confirmPhoneCode(b.id, codeB)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ message: PHONE_MESSAGES.taken, status: 409 });
    const [winner, loser] = results[0].status === "fulfilled" ? [a, b] : [b, a];
    expect((await boundPhone(winner.id)).phone).toBe(phone);
    expect((await boundPhone(loser.id)).phone).toBeNull();
    // The loser's code was not used up by the refusal; trying it again says the number is taken.
    expect((await codesOf(loser.id))[0].usedAt).toBeNull();
    expect(await domainError(confirmPhoneCode(loser.id, loser === a ? codeA : codeB))).toMatchObject({ message: PHONE_MESSAGES.taken });
    await forgetMinute(phone);
    const sent = await callAction(phonePage, request("/settings/phone", { cookie: c.cookie }, { intent: "send", phone }));
    expect(sent.status).toBe(409);
    expect(sent.data.error.phone).toEqual([PHONE_MESSAGES.taken]);
    expect(await codesOf(c.id)).toEqual([]);
  });
});

describe("the operator's switch", () => {
  const f = {} as { owner: { id: string }; work: number };
  beforeAll(async () => {
    f.owner = await createUser();
    [f.work] = await insertWorks([{ userId: f.owner.id, title: "绑定手机号之后" }]);
    await addChapter(f.work, "第一段。\n\n第二段。");
  });
  afterEach(async () => {
    await setConfig({ comment_phone_required: "off" });
  });

  it("is on for a new site and off for a site that ran before it existed", async () => {
    expect(DEFAULT_SITE_CONFIGS.comment_phone_required).toBe("on");
    const { seedDefaults } = await import("~/server/platform/defaults.server");
    await db.delete(siteConfigs).where(eq(siteConfigs.key, "comment_phone_required"));
    await seedDefaults(db);
    const [row] = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "comment_phone_required"));
    expect(row.value).toBe("off");
  });

  it("is set by a 超级管理员 on the site settings page, audited", async () => {
    const admin = await createAdmin();
    const cookie = await adminCookieFor(admin.id);
    const on = await callAction(siteSettingsPage, request("/admin/settings/site", { cookie }, { intent: "phone", required: "on" }));
    expect([on.status, on.location]).toEqual([302, "/admin/settings/site?notice=saved"]);
    const page = await callLoader(siteSettingsPage, request("/admin/settings/site", { cookie }));
    expect(page.data).toMatchObject({ phoneRequired: true, smsProvider: false });
    const [entry] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.adminId, admin.id), eq(adminAuditLog.action, "settings.phone")));
    expect([entry.before, entry.after]).toEqual([{ required: false }, { required: true }]);
  });

  it("on: comments, replies, 书评 and a tip's message need a bound phone (403, nothing written); bound, they go through", async () => {
    const me = await reader();
    const base = { workId: f.work, order: 1, paragraph: null, parentId: null, body: "写得真好" };
    // Off: no phone needed.
    const first = await postComment(viewer(me.id), base);
    await setConfig({ comment_phone_required: "on" });

    const countOf = async () => (await db.select({ id: chapterComments.id }).from(chapterComments).where(eq(chapterComments.userId, me.id))).length;
    for (const input of [base, { ...base, paragraph: 1 }, { ...base, parentId: first.id }]) {
      expect(await domainError(postComment(viewer(me.id), input))).toMatchObject({ message: PHONE_MESSAGES.required, status: 403 });
    }
    expect(await countOf()).toBe(1);
    expect(await domainError(postReview(viewer(me.id), f.work, { rating: "9", body: "这是一篇值得一读的好作品，推荐给大家。" }))).toMatchObject({
      message: PHONE_MESSAGES.required,
      status: 403,
    });
    expect(await db.select().from(bookReviews).where(eq(bookReviews.userId, me.id))).toEqual([]);
    await fund(me.id, 50);
    expect(await domainError(tipWork(viewer(me.id), { workId: f.work, chapterOrder: 1, amount: "10", message: "加油" }))).toMatchObject({
      message: PHONE_MESSAGES.required,
      status: 403,
      field: "message",
    });
    expect(await creditBalance(me.id)).toBe(50);
    // A tip without a message says nothing in public: it goes through.
    await tipWork(viewer(me.id), { workId: f.work, chapterOrder: null, amount: "10", message: "" });
    expect(await db.select({ id: workTips.id }).from(workTips).where(eq(workTips.userId, me.id))).toHaveLength(1);

    // The page: the form asks for a phone, and the server refuses a post all the same.
    const thread = await callLoader(commentsPage, request(`/works/${f.work}/comments?chapter=1`, { cookie: me.cookie }));
    expect(thread.data.phoneNeeded).toBe(true);
    const posted = await callAction(commentsPage, request(`/works/${f.work}/comments?chapter=1`, { cookie: me.cookie }, { intent: "post", body: "再来一条" }));
    expect(posted.status).toBe(403);
    expect(posted.data.error).toBe(PHONE_MESSAGES.required);
    expect(await countOf()).toBe(1);
    expect((await listComments(viewer(f.owner.id), f.work, 1, { paragraph: null, sort: "new", page: 1 })).phoneNeeded).toBe(true);

    const phone = newPhone();
    await sendPhoneCode(me.id, phone, "10.0.5.1");
    await confirmPhoneCode(me.id, outboxCode(phone));
    expect((await callLoader(commentsPage, request(`/works/${f.work}/comments?chapter=1`, { cookie: me.cookie }))).data.phoneNeeded).toBe(false);
    await postComment(viewer(me.id), { ...base, parentId: first.id });
    await postReview(viewer(me.id), f.work, { rating: "9", body: "这是一篇值得一读的好作品，推荐给大家。" });
    expect(await countOf()).toBe(2);
    expect(await db.select({ key: rateLimits.key }).from(rateLimits).where(like(rateLimits.key, `sms:phone:${phone}`))).toHaveLength(1);
  });
});
