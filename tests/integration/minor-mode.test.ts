import { and, eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, authorIdentities, chapterPurchases, creditTransactions, minorModes, minorSpending, paymentOrders, profiles, workTips } from "~/db/schema";
import { MINOR_MESSAGES } from "~/schemas/minor-mode";
import { purchaseAllChapters, purchaseChapter } from "~/server/economy/chapter-sales.server";
import { createPaymentOrder } from "~/server/economy/epay.server";
import { purchaseWork } from "~/server/economy/ledger.server";
import { tipWork } from "~/server/economy/tips.server";
import { getWorkForViewer } from "~/server/catalog/works.server";
import { setDisplayPreference } from "~/server/identity/profile.server";
import { getSessionUser } from "~/server/identity/session.server";
import {
  enterMinorMode,
  getMinorSettings,
  inClosedHours,
  isInMinorMode,
  leaveMinorMode,
  minorModeState,
  refuseClosedHours,
} from "~/server/identity/minor-mode.server";
import { readChapter } from "~/server/reading/reader.server";
import { submitIdentity } from "~/server/identity/author-identity.server";
import { decideIdentity } from "~/server/admin/identity-queue.server";
import { residentCheckDigit } from "~/schemas/identity";
import { shanghaiDate } from "~/utils/shanghai-time";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { creditBalance, fund, quickUsers, setConfig } from "../fixtures/ledger";
import { addChapter, insertWorks, serialByChapter } from "../fixtures/works";
import { actorOf, adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";
import * as minorPage from "~/routes/shell/settings/minor-mode";
import * as minorSettingsPage from "~/routes/admin/settings/minors";

const viewer = (id: string) => ({ id, showR18: false, showAi: true });
const GATEWAY = { payment_method_v2: "payment_api", payment_gateway_url: "https://pay.example.com/submit.php", merchant_pid: "1001", merchant_key: "minor-key" };

async function minorReader(balance = 1000) {
  const [reader] = await quickUsers(1);
  if (balance > 0) await fund(reader.id, balance);
  await enterMinorMode(reader.id, "1234", "1234");
  return reader;
}

async function consumed(userId: string) {
  const rows = await db.select({ amount: creditTransactions.amount }).from(creditTransactions).where(and(eq(creditTransactions.userId, userId), eq(creditTransactions.type, "consume")));
  return rows.reduce((a, r) => a + Number(r.amount), 0);
}

async function spentThisMonth(userId: string) {
  const rows = await db.select({ spent: minorSpending.spent }).from(minorSpending).where(eq(minorSpending.userId, userId));
  return rows.reduce((a, r) => a + r.spent, 0);
}

beforeEach(async () => {
  await setConfig({ minor_cap_per_payment: "50", minor_cap_per_month: "200", minor_hours: "off", minor_hours_from: "22:00", minor_hours_to: "06:00" });
});

describe("turning 青少年模式 on and off", () => {
  it("refuses a PIN that is not 4 digits or not typed twice alike, writing nothing", async () => {
    const [reader] = await quickUsers(1);
    for (const [pin, again, message, field] of [
      ["123", "123", MINOR_MESSAGES.pinShape, "pin"],
      ["12345", "12345", MINOR_MESSAGES.pinShape, "pin"],
      ["abcd", "abcd", MINOR_MESSAGES.pinShape, "pin"],
      ["１２３４", "１２３４", MINOR_MESSAGES.pinShape, "pin"],
      ["1234", "", MINOR_MESSAGES.pinShape, "pinAgain"],
      ["1234", "4321", MINOR_MESSAGES.pinMismatch, "pinAgain"],
    ] as const) {
      const error = await domainError(enterMinorMode(reader.id, pin, again));
      expect([error.message, error.status, error.field]).toEqual([message, 400, field]);
    }
    expect(await isInMinorMode(reader.id)).toBe(false);
    await enterMinorMode(reader.id, "0000", "0000");
    expect(await domainError(enterMinorMode(reader.id, "1111", "1111"))).toMatchObject({ message: MINOR_MESSAGES.alreadyOn, status: 409 });
  });

  it("hides R-18 everywhere: the session says showR18 off, the work is gated, the preference cannot come back on", async () => {
    const [author, reader] = await quickUsers(2);
    await setDisplayPreference(reader.id, "showR18", true, { adultConfirmed: true });
    const [r18] = await insertWorks([{ userId: author.id, title: "成人向之书", rating: "r18" }]);
    await addChapter(r18);
    const cookie = await sessionCookieFor(reader.id);
    const before = await getSessionUser(request("/", { cookie }));
    expect(before?.showR18).toBe(true);
    expect((await getWorkForViewer(r18, before)).gate).toBe("ok");

    await enterMinorMode(reader.id, "1234", "1234");
    const after = await getSessionUser(request("/", { cookie }));
    expect(after?.showR18).toBe(false);
    expect((await getWorkForViewer(r18, after)).gate).not.toBe("ok");
    await expect(readChapter(r18, after, 1, 0)).rejects.toMatchObject({ status: 403 });
    const refused = await domainError(setDisplayPreference(reader.id, "showR18", true, { adultConfirmed: true }));
    expect([refused.message, refused.status]).toEqual([MINOR_MESSAGES.r18Refused, 403]);
    // A stored preference turned back on by hand still reads as off in the mode.
    await db.update(profiles).set({ showR18: true }).where(eq(profiles.id, reader.id));
    expect((await getSessionUser(request("/", { cookie })))?.showR18).toBe(false);

    await leaveMinorMode(reader.id, "1234");
    expect((await getSessionUser(request("/", { cookie })))?.showR18).toBe(true);
  });

  it("locks the exit after 5 wrong PINs, counts each wrong PIN, and opens again after the lock", async () => {
    const reader = await minorReader(0);
    for (let left = 4; left >= 1; left--) {
      const error = await domainError(leaveMinorMode(reader.id, "9999"));
      expect([error.message, error.status]).toEqual([MINOR_MESSAGES.wrongPin(left), 400]);
    }
    const locked = await domainError(leaveMinorMode(reader.id, "9999"));
    expect(locked.status).toBe(429);
    expect(locked.message).toMatch(/^密码错误次数过多，退出青少年模式已锁定，请于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}（北京时间）后再试$/);
    // The right PIN does not open a locked exit.
    expect((await domainError(leaveMinorMode(reader.id, "1234"))).status).toBe(429);
    expect(await isInMinorMode(reader.id)).toBe(true);
    const state = await minorModeState(reader.id);
    expect(state.lockedUntil!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    // The day passed: the count starts again, and the right PIN leaves.
    await db.update(minorModes).set({ lockedUntil: sql`now() - interval '1 minute'` }).where(eq(minorModes.userId, reader.id));
    expect((await domainError(leaveMinorMode(reader.id, "9999"))).message).toBe(MINOR_MESSAGES.wrongPin(4));
    await leaveMinorMode(reader.id, "1234");
    expect(await isInMinorMode(reader.id)).toBe(false);
    expect((await domainError(leaveMinorMode(reader.id, "1234"))).message).toBe(MINOR_MESSAGES.notOn);
  });

  it("counts 30 guesses sent at once one after another: 5 wrong, then locked", async () => {
    const reader = await minorReader(0);
    const guesses = Array.from({ length: 30 }, (_, i) => String(5000 + i));
    const results = await Promise.allSettled(guesses.map((pin) => leaveMinorMode(reader.id, pin)));
    const statuses = results.map((r) => (r.status === "rejected" ? (r.reason as { status: number }).status : 200));
    expect(statuses.filter((s) => s === 400)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(26);
    expect(await isInMinorMode(reader.id)).toBe(true);
  });

  it("reads the 18th birthday from an approved 居民身份证号: a 17-year-old is in the mode, an adult is not", async () => {
    const operator = await createAdmin({ role: "operator" });
    const today = shanghaiDate(new Date());
    const yearsAgo = (n: number) => `${Number(today.slice(0, 4)) - n}${today.slice(5, 7)}${today.slice(8, 10)}`;
    const idFor = (birth: string) => {
      const first = `110105${birth}002`;
      return first + residentCheckDigit(first);
    };
    const [minor, adult] = await quickUsers(2);
    // Born 17 years ago today: 18 a year from today. Born 18 years ago today: 18 today.
    for (const [user, birth] of [[minor, yearsAgo(17)], [adult, yearsAgo(18)]] as const) {
      await submitIdentity(user.id, { documentType: "resident_id", legalName: "李四", documentNumber: idFor(birth), birthDate: "" });
      const [row] = await db.select({ id: authorIdentities.id }).from(authorIdentities).where(eq(authorIdentities.userId, user.id));
      await decideIdentity(actorOf(operator), row.id, "approve", "");
    }
    expect(await isInMinorMode(minor.id)).toBe(true);
    expect(await isInMinorMode(adult.id)).toBe(false);
    const [row] = await db.select({ adultOn: authorIdentities.adultOn }).from(authorIdentities).where(eq(authorIdentities.userId, minor.id));
    expect(row.adultOn).toBe(`${Number(today.slice(0, 4)) + 1}-${today.slice(5)}`);
  });

  it("keeps a reader whose verified identity says under 18 in the mode, PIN or not, until the 18th birthday", async () => {
    const [reader] = await quickUsers(1);
    const identity = {
      userId: reader.id,
      documentType: "resident_id" as const,
      nameCipher: "x",
      numberCipher: "x",
      nameMasked: "张*",
      numberMasked: "1101**********002X",
      keyId: "k",
      status: "approved" as const,
      decidedAt: new Date(),
    };
    const [row] = await db
      .insert(authorIdentities)
      .values({ ...identity, adultOn: sql`(now() at time zone 'Asia/Shanghai')::date + 30` })
      .returning({ id: authorIdentities.id });
    expect(await isInMinorMode(reader.id)).toBe(true);
    expect(await minorModeState(reader.id)).toMatchObject({ on: true, self: false, verifiedMinor: true });
    expect((await domainError(leaveMinorMode(reader.id, "1234"))).message).toBe(MINOR_MESSAGES.verifiedMinor);
    // With a PIN of their own too, the right PIN still does not leave.
    await enterMinorMode(reader.id, "1234", "1234");
    expect((await domainError(leaveMinorMode(reader.id, "1234"))).message).toBe(MINOR_MESSAGES.verifiedMinor);
    expect(await db.select().from(minorModes).where(eq(minorModes.userId, reader.id))).toHaveLength(1);
    // Eighteen today: out of the verified mode (their own PIN mode remains until they leave it).
    await db.update(authorIdentities).set({ adultOn: sql`(now() at time zone 'Asia/Shanghai')::date` }).where(eq(authorIdentities.id, row.id));
    await leaveMinorMode(reader.id, "1234");
    expect(await isInMinorMode(reader.id)).toBe(false);
  });
});

describe("青少年模式's caps", () => {
  it("refuses a purchase, a chapter, 购买全部 or a tip over the cap per payment, writing nothing", async () => {
    const [author] = await quickUsers(1);
    const reader = await minorReader();
    const [whole] = await insertWorks([{ userId: author.id, title: "整本", visibility: "public-vip", price: 60 }]);
    await addChapter(whole);
    const serial = await serialByChapter(author.id, { count: 14, vipFrom: 2, wordsOf: () => 1000 });
    const tipTarget = (await insertWorks([{ userId: author.id, title: "打赏" }]))[0];
    await addChapter(tipTarget);

    for (const attempt of [
      () => purchaseWork(reader.id, whole),
      () => purchaseAllChapters(reader.id, serial.workId),
      () => tipWork(viewer(reader.id), { workId: tipTarget, chapterOrder: null, amount: "51", message: "" }),
    ]) {
      const error = await domainError(attempt());
      expect([error.message, error.status]).toEqual([MINOR_MESSAGES.perPayment(50), 403]);
    }
    expect(await creditBalance(reader.id)).toBe(1000);
    expect(await consumed(reader.id)).toBe(0);
    expect(await db.select().from(chapterPurchases).where(eq(chapterPurchases.userId, reader.id))).toEqual([]);
    expect(await db.select().from(workTips).where(eq(workTips.userId, reader.id))).toEqual([]);
    expect(await spentThisMonth(reader.id)).toBe(0);
    // Within the cap it goes through, and counts.
    await tipWork(viewer(reader.id), { workId: tipTarget, chapterOrder: null, amount: "50", message: "" });
    await purchaseChapter(reader.id, serial.workId, serial.chapterIds[1]);
    expect(await spentThisMonth(reader.id)).toBe(55);
  });

  it("stops the spend that would pass the month's cap, with what is left in the message", async () => {
    const [author] = await quickUsers(1);
    const reader = await minorReader();
    const [work] = await insertWorks([{ userId: author.id, title: "打赏月度" }]);
    await addChapter(work);
    for (let i = 0; i < 3; i++) await tipWork(viewer(reader.id), { workId: work, chapterOrder: null, amount: "50", message: "" });
    await tipWork(viewer(reader.id), { workId: work, chapterOrder: null, amount: "40", message: "" });
    const error = await domainError(tipWork(viewer(reader.id), { workId: work, chapterOrder: null, amount: "20", message: "" }));
    expect([error.message, error.status]).toEqual([MINOR_MESSAGES.perMonth(200, 10), 403]);
    expect(error.message).toBe("青少年模式下每月消费不能超过 200 积分，本月还可消费 10 积分");
    await tipWork(viewer(reader.id), { workId: work, chapterOrder: null, amount: "10", message: "" });
    expect(await spentThisMonth(reader.id)).toBe(200);
    expect(await consumed(reader.id)).toBe(200);
    expect(await creditBalance(reader.id)).toBe(800);
    // A reader not in the mode is not counted or capped.
    const [adult] = await quickUsers(1);
    await fund(adult.id, 1000);
    await tipWork(viewer(adult.id), { workId: work, chapterOrder: null, amount: "500", message: "" });
    expect(await spentThisMonth(adult.id)).toBe(0);
  });

  it("caps top-ups per order and per month (pending and paid orders count, a refused one is not stored)", async () => {
    await setConfig(GATEWAY);
    const reader = await minorReader(0);
    const tooBig = await domainError(createPaymentOrder(reader.id, 51, "http://site"));
    expect([tooBig.message, tooBig.status, tooBig.field]).toEqual([MINOR_MESSAGES.topUpPerPayment(50), 403, "amount"]);
    for (let i = 0; i < 4; i++) await createPaymentOrder(reader.id, 45, "http://site");
    const over = await domainError(createPaymentOrder(reader.id, 30, "http://site"));
    expect(over.message).toBe("青少年模式下每月充值不能超过 200 元，本月还可充值 20 元");
    await createPaymentOrder(reader.id, 20, "http://site");
    const orders = await db.select({ amount: paymentOrders.amount }).from(paymentOrders).where(eq(paymentOrders.userId, reader.id));
    expect(orders.map((o) => o.amount).sort()).toEqual([20, 45, 45, 45, 45]);
  });

  it("holds under races: 50 top-ups, and 50 chapter buys and 购买全部 at once, never past the cap; the ledger stays clean", async () => {
    await setConfig(GATEWAY);
    const [author] = await quickUsers(1);
    const reader = await minorReader(1000);

    const topUps = await Promise.allSettled(Array.from({ length: 50 }, () => createPaymentOrder(reader.id, 7, "http://site")));
    expect(topUps.filter((r) => r.status === "fulfilled")).toHaveLength(28);
    for (const r of topUps) if (r.status === "rejected") expect((r.reason as Error).message).toBe(MINOR_MESSAGES.topUpPerMonth(200, 4));
    const [{ total }] = await db.select({ total: sql<number>`sum(amount)::int` }).from(paymentOrders).where(eq(paymentOrders.userId, reader.id));
    expect(total).toBe(196);

    // Five serials of 9 VIP chapters at 5 each (45 for 购买全部): 50 purchases at once.
    const serials = [];
    for (let i = 0; i < 5; i++) serials.push(await serialByChapter(author.id, { count: 10, vipFrom: 2, wordsOf: () => 1000 }));
    const attempts = serials.flatMap((s) => [
      ...Array.from({ length: 5 }, () => () => purchaseAllChapters(reader.id, s.workId)),
      ...s.chapterIds.slice(1, 6).map((id) => () => purchaseChapter(reader.id, s.workId, id)),
    ]);
    expect(attempts).toHaveLength(50);
    const results = await Promise.allSettled(attempts.map((run) => run()));
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as Error).message).toMatch(/^青少年模式下每月消费不能超过 200 积分，本月还可消费 \d+ 积分$/);
    }
    expect(results.some((r) => r.status === "rejected")).toBe(true);
    const spent = await consumed(reader.id);
    expect(spent).toBeLessThanOrEqual(200);
    // A refusal came, and no spend costs more than 45: the cap was nearly reached.
    expect(spent).toBeGreaterThan(155);
    expect(await spentThisMonth(reader.id)).toBe(spent);
    expect(await creditBalance(reader.id)).toBe(1000 - spent);
    const [{ bought }] = await db.select({ bought: sql<number>`coalesce(sum(price), 0)::int` }).from(chapterPurchases).where(eq(chapterPurchases.userId, reader.id));
    // 购买全部 charges the sum of the chapters it inserted (no discount by default).
    expect(bought).toBe(spent);
    expect(await checkLedger()).toEqual([]);
  });
});

describe("reading hours", () => {
  it("knows a window past midnight and one within a day, in China time", () => {
    const at = (hhmm: string) => new Date(`2026-11-29T${hhmm}:00+08:00`);
    const night = { hours: true, hoursFrom: "22:00", hoursTo: "06:00" };
    expect(["21:59", "22:00", "23:30", "00:00", "05:59", "06:00", "12:00"].map((t) => inClosedHours(night, at(t)))).toEqual([false, true, true, true, true, false, false]);
    const noon = { hours: true, hoursFrom: "12:00", hoursTo: "14:00" };
    expect(["11:59", "12:00", "13:59", "14:00"].map((t) => inClosedHours(noon, at(t)))).toEqual([false, true, true, false]);
    expect(inClosedHours({ ...night, hours: false }, at("23:00"))).toBe(false);
  });

  it("refuses a chapter to a reader in the mode inside the hours, no one else", async () => {
    await setConfig({ minor_hours: "on", minor_hours_from: "22:00", minor_hours_to: "06:00" });
    const reader = await minorReader(0);
    const [adult] = await quickUsers(1);
    const late = new Date("2026-11-29T23:00:00+08:00");
    const error = await domainError(refuseClosedHours(reader.id, late));
    expect([error.message, error.status]).toEqual(["青少年模式下 22:00–06:00（北京时间）不能阅读章节，请休息一下", 403]);
    await refuseClosedHours(adult.id, late);
    await refuseClosedHours(null, late);
    await refuseClosedHours(reader.id, new Date("2026-11-29T12:00:00+08:00"));
  });
});

describe("the pages", () => {
  it("the reader's page turns the mode on and off, and answers bad input with 400 and its message", async () => {
    const [reader] = await quickUsers(1);
    const cookie = await sessionCookieFor(reader.id);
    const page = await callLoader(minorPage, request("/settings/minor-mode", { cookie }));
    expect(page.data).toMatchObject({ on: false, settings: { perPayment: 50, perMonth: 200 } });

    const bad = await callAction(minorPage, request("/settings/minor-mode", { cookie }, { intent: "enter", pin: "12a4", pinAgain: "12a4" }));
    expect(bad.status).toBe(400);
    expect(bad.data.error.pin).toEqual([MINOR_MESSAGES.pinShape]);
    const unknown = await callAction(minorPage, request("/settings/minor-mode", { cookie }, { intent: "drop" }));
    expect(unknown.status).toBe(400);
    expect(await isInMinorMode(reader.id)).toBe(false);

    const on = await callAction(minorPage, request("/settings/minor-mode", { cookie }, { intent: "enter", pin: "2468", pinAgain: "2468" }));
    expect([on.status, on.location]).toEqual([302, "/settings/minor-mode"]);
    expect(await isInMinorMode(reader.id)).toBe(true);
    const wrong = await callAction(minorPage, request("/settings/minor-mode", { cookie }, { intent: "leave", pin: "1357" }));
    expect(wrong.status).toBe(400);
    expect(wrong.data.error.pin).toEqual([MINOR_MESSAGES.wrongPin(4)]);
    const off = await callAction(minorPage, request("/settings/minor-mode", { cookie }, { intent: "leave", pin: "2468" }));
    expect(off.status).toBe(302);
    expect(await isInMinorMode(reader.id)).toBe(false);
  });

  it("the operator's page checks every field (nothing saved on a bad one) and audits a change", async () => {
    const admin = await createAdmin({ role: "super" });
    const cookie = await adminCookieFor(admin.id);
    const send = (body: Record<string, string>) =>
      callAction(minorSettingsPage, request("/admin/settings/minors", { cookie }, { perPayment: "30", perMonth: "100", hours: "on", hoursFrom: "21:30", hoursTo: "07:00", ...body }));
    for (const [body, message] of [
      [{ perPayment: "-1" }, MINOR_MESSAGES.settingsCap],
      [{ perMonth: "一百" }, MINOR_MESSAGES.settingsCap],
      [{ perPayment: "300" }, MINOR_MESSAGES.settingsOrder],
      [{ hoursFrom: "24:00" }, MINOR_MESSAGES.settingsTime],
      [{ hoursTo: "7点" }, MINOR_MESSAGES.settingsTime],
      [{ hoursTo: "21:30" }, MINOR_MESSAGES.settingsSameTime],
    ] as const) {
      const answer = await send(body);
      expect([answer.status, answer.data.error]).toEqual([400, message]);
    }
    expect(await getMinorSettings()).toMatchObject({ perPayment: 50, perMonth: 200, hours: false });
    const saved = await send({});
    expect([saved.status, saved.location]).toEqual([302, "/admin/settings/minors?notice=saved"]);
    expect(await getMinorSettings()).toEqual({ perPayment: 30, perMonth: 100, hours: true, hoursFrom: "21:30", hoursTo: "07:00" });
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "settings.minors"), eq(adminAuditLog.adminId, admin.id)));
    expect(audit).toMatchObject({ targetId: "minors" });
    expect(audit.after).toEqual({ perPayment: 30, perMonth: 100, hours: "21:30-07:00" });
    // An operator who is not 超级管理员 gets 403 from the layout.
    const operator = await createAdmin({ role: "operator" });
    const refused = await callAction(minorSettingsPage, request("/admin/settings/minors", { cookie: await adminCookieFor(operator.id) }, { perPayment: "1", perMonth: "1", hours: "", hoursFrom: "22:00", hoursTo: "06:00" }));
    expect(refused.status).toBe(403);
  });
});
