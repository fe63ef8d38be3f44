import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, attendanceBonuses, chapters, incomeTransactions, users } from "~/db/schema";
import { ATTENDANCE_MESSAGES, attendanceOverview, attendanceSettings, payAttendanceBonuses } from "~/server/economy/attendance.server";
import { incomeBalance, incomeOverview } from "~/server/economy/income.server";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor } from "../fixtures/accounts";
import { quickUsers, setConfig } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * 签约状态 and 全勤奖 (decision 236): an operator signs an author; a signed author who published
 * at least the set 字 on every China-time day of a month is paid the bonus once, into income,
 * by the job; the income ledger shows each row's gross and platform share.
 */

const BONUS = 600;
const MIN_WORDS = 3000;
// February 2026 has 28 days; the job runs in March, China time.
const MONTH = "2026-02";
const IN_MARCH = new Date("2026-03-01T00:30:00+08:00");

beforeEach(async () => {
  await setConfig({ attendance_min_words: String(MIN_WORDS), attendance_bonus: String(BONUS) });
});

/** `words` 字 of numbered chapters out on each day of February (China time) `except` some; `kind` and `state` as given. */
async function february(
  authorId: string,
  opts: { words?: (day: number) => number; skip?: number[]; kind?: "chapter" | "leave"; contract?: "none" | "signed" | "buyout" } = {},
): Promise<number> {
  await db.update(users).set({ contract: opts.contract ?? "signed" }).where(eq(users.id, authorId));
  const [workId] = await insertWorks([{ userId: authorId, title: `日更${authorId.slice(0, 6)}` }]);
  const rows = [];
  for (let day = 1; day <= 28; day++) {
    if (opts.skip?.includes(day)) continue;
    // Late in the evening, China time: the day's last minutes still count for that day.
    const at = new Date(`2026-02-${String(day).padStart(2, "0")}T23:50:00+08:00`);
    rows.push({ workId, title: `第${day}章`, content: "正文", position: day * 65_536, wordCount: opts.words?.(day) ?? MIN_WORDS, publishAt: at, createdAt: at, kind: opts.kind ?? "chapter" });
  }
  await db.insert(chapters).values(rows);
  return workId;
}

async function bonusRows(userId: string) {
  return db
    .select({ type: incomeTransactions.type, amount: incomeTransactions.amount, gross: incomeTransactions.gross, description: incomeTransactions.description })
    .from(incomeTransactions)
    .where(and(eq(incomeTransactions.userId, userId), eq(incomeTransactions.type, "bonus")));
}

describe("全勤奖", () => {
  it("pays a signed author who met every day of the month once, however often and from however many runs", async () => {
    const [signed, bought] = await quickUsers(2);
    await february(signed.id);
    await february(bought.id, { contract: "buyout", words: (day) => (day % 2 ? MIN_WORDS : MIN_WORDS + 5000) });

    // Two runs at once and one after: each author's month is paid once.
    const runs = await Promise.all([payAttendanceBonuses(IN_MARCH), payAttendanceBonuses(IN_MARCH)]);
    expect(runs[0] + runs[1]).toBeGreaterThanOrEqual(2);
    await payAttendanceBonuses(new Date("2026-03-20T12:00:00+08:00"));
    for (const author of [signed, bought]) {
      expect(await bonusRows(author.id)).toEqual([{ type: "bonus", amount: BONUS, gross: BONUS, description: "2026年2月全勤奖" }]);
      expect(await incomeBalance(author.id)).toEqual({ balance: BONUS, held: 0 });
      expect(await db.select({ month: attendanceBonuses.month, amount: attendanceBonuses.amount, minWords: attendanceBonuses.minWords }).from(attendanceBonuses).where(eq(attendanceBonuses.userId, author.id))).toEqual([
        { month: MONTH, amount: BONUS, minWords: MIN_WORDS },
      ]);
    }
    // The ledger check agrees, and would not if a bonus row were missing its income.
    const mine = (await checkLedger()).filter((d) => d.userId === signed.id || d.userId === bought.id);
    expect(mine).toEqual([]);
    await db.delete(incomeTransactions).where(and(eq(incomeTransactions.userId, signed.id), eq(incomeTransactions.type, "bonus")));
    expect((await checkLedger()).filter((d) => d.userId === signed.id).map((d) => d.check)).toEqual(expect.arrayContaining(["income", "bonuses"]));

    // 我的收入's ledger: the bonus's amount, no platform share.
    const overview = await incomeOverview(bought.id);
    expect(overview.ledger.map((r) => [r.type, r.gross, r.amount])).toEqual([["bonus", BONUS, BONUS]]);
  });

  it("pays nobody who missed a day, wrote too little one day, is not signed, or wrote only notices; nor when the bonus is 0", async () => {
    const [missed, short, unsigned, notices, unpublished] = await quickUsers(5);
    await february(missed.id, { skip: [14] });
    await february(short.id, { words: (day) => (day === 28 ? MIN_WORDS - 1 : MIN_WORDS) });
    await february(unsigned.id, { contract: "none" });
    await february(notices.id, { kind: "leave" });
    // Every day met, then one day's chapter taken back to a draft: it no longer counts.
    const workId = await february(unpublished.id);
    await db.update(chapters).set({ state: "draft" }).where(and(eq(chapters.workId, workId), eq(chapters.title, "第9章")));
    await payAttendanceBonuses(IN_MARCH);
    for (const author of [missed, short, unsigned, notices, unpublished]) expect(await bonusRows(author.id)).toEqual([]);

    // Days just past midnight belong to the next day: 23:50 on the 28th is February, 00:10 on 1 March is not.
    const [edge] = await quickUsers(1);
    const edgeWork = await february(edge.id, { skip: [28] });
    await db.insert(chapters).values({ workId: edgeWork, title: "三月", content: "正文", position: 99 * 65_536, wordCount: MIN_WORDS, publishAt: new Date("2026-03-01T00:10:00+08:00") });
    await payAttendanceBonuses(IN_MARCH);
    expect(await bonusRows(edge.id)).toEqual([]);

    const [off] = await quickUsers(1);
    await february(off.id);
    await setConfig({ attendance_bonus: "0" });
    expect(await payAttendanceBonuses(IN_MARCH)).toBe(0);
    expect(await bonusRows(off.id)).toEqual([]);
  });

  it("shows the author their 签约状态 and this month so far on 我的收入", async () => {
    const [author] = await quickUsers(1);
    const [workId] = await insertWorks([{ userId: author.id, title: "本月日更" }]);
    const now = new Date("2026-02-03T20:00:00+08:00");
    await db.insert(chapters).values([
      { workId, title: "一", content: "正文", position: 1, wordCount: MIN_WORDS, publishAt: new Date("2026-02-01T09:00:00+08:00") },
      { workId, title: "二", content: "正文", position: 2, wordCount: MIN_WORDS, publishAt: new Date("2026-02-02T09:00:00+08:00") },
    ]);
    expect(await attendanceOverview(author.id, now)).toMatchObject({ contract: "none", daysMet: 2, daysSoFar: 3, todayMet: false, onTrack: true, bonus: BONUS, minWords: MIN_WORDS });

    const page = await callLoader(await import("~/routes/shell/credits/income"), request("/income", { cookie: await sessionCookieFor(author.id) }));
    expect(page.data.attendance).toMatchObject({ contract: "none", bonus: BONUS });
  });
});

describe("签约状态 and the 全勤奖 rule in the back office", () => {
  it("an operator signs an author (audited, shown); a bad value changes nothing", async () => {
    const admin = await createAdmin({ role: "operator" });
    const cookie = await adminCookieFor(admin.id);
    const [author] = await quickUsers(1);
    const mod = await import("~/routes/admin/user-edit");
    const path = `/admin/users/${author.id}`;

    const bad = await callAction(mod, request(path, { cookie }, { intent: "contract", contract: "forever" }), { id: author.id });
    expect(bad.status).toBe(400);
    expect(bad.data.result.error[""]).toEqual([ATTENDANCE_MESSAGES.contract]);
    const signed = await callAction(mod, request(path, { cookie }, { intent: "contract", contract: "signed" }), { id: author.id });
    expect([signed.status, signed.location]).toEqual([302, `${path}?notice=contract`]);
    const [row] = await db.select({ contract: users.contract }).from(users).where(eq(users.id, author.id));
    expect(row.contract).toBe("signed");
    const audit = await db.select({ action: adminAuditLog.action, before: adminAuditLog.before, after: adminAuditLog.after }).from(adminAuditLog).where(eq(adminAuditLog.targetId, author.id));
    expect(audit).toEqual([{ action: "user.contract", before: { contract: "none" }, after: { contract: "signed" } }]);
    const page = await callLoader(mod, request(path, { cookie }), { id: author.id });
    expect(page.data.user.contract).toBe("signed");
  });

  it("saves the rule on 稿酬与定价 and refuses a bad one by its field, changing nothing", async () => {
    const admin = await createAdmin();
    const cookie = await adminCookieFor(admin.id);
    const mod = await import("~/routes/admin/settings/economy");
    const send = (body: Record<string, string>) => callAction(mod, request("/admin/settings/economy", { cookie }, { intent: "attendance", ...body }));
    const zeroWords = await send({ minWords: "0", bonus: "100" });
    expect([zeroWords.status, zeroWords.data]).toEqual([400, { field: "minWords", error: ATTENDANCE_MESSAGES.minWords }]);
    const negative = await send({ minWords: "4000", bonus: "-5" });
    expect(negative.data).toEqual({ field: "bonus", error: ATTENDANCE_MESSAGES.bonus });
    const empty = await send({ minWords: "", bonus: "" });
    expect(empty.status).toBe(400);
    expect(await attendanceSettings()).toEqual({ minWords: MIN_WORDS, bonus: BONUS });

    const saved = await send({ minWords: "6000", bonus: "1500" });
    expect([saved.status, saved.location]).toEqual([302, "/admin/settings/economy?notice=saved"]);
    expect(await attendanceSettings()).toEqual({ minWords: 6000, bonus: 1500 });
    const page = await callLoader(mod, request("/admin/settings/economy", { cookie }));
    expect(page.data.attendance).toEqual({ minWords: 6000, bonus: 1500 });
  });
});
