import { and, eq, inArray, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { attendanceBonuses, siteConfigs, users } from "~/db/schema";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import { configInt, getSiteConfig } from "~/server/platform/site-config.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { shanghaiDate, shanghaiDayStart } from "~/utils/shanghai-time";
import { CONTRACT_LABELS, type ContractState } from "~/types/contracts";
import { addIncome } from "./sale-income.server";

/**
 * 全勤奖 (docs/product.md#contracts, decision 236): an author under contract (签约 or 买断)
 * who published at least `minWords` 字 of numbered chapters on every China-time day of a
 * month earns `bonus` credits of income. A chapter counts on the day it went out (its
 * `publish_at`; a work's first chapters, published with it, their creation) while it is
 * still published. The job pays the month just ended, once: the attendance_bonuses row and
 * the `bonus` income row are written in one transaction, the row's key refusing a second.
 */

export interface AttendanceSettings {
  /** 字 to publish on every day of the month. */
  minWords: number;
  /** The bonus in credits of income; 0: no 全勤奖. */
  bonus: number;
}

const KEYS = { minWords: "attendance_min_words", bonus: "attendance_bonus" } as const;

export async function attendanceSettings(executor: Executor = db): Promise<AttendanceSettings> {
  const c = await getSiteConfig(Object.values(KEYS), executor);
  return {
    minWords: Math.max(1, configInt(c[KEYS.minWords], Number(DEFAULT_SITE_CONFIGS[KEYS.minWords]))),
    bonus: configInt(c[KEYS.bonus], Number(DEFAULT_SITE_CONFIGS[KEYS.bonus])),
  };
}

/** @internal */
export const ATTENDANCE_MESSAGES = {
  minWords: "每日字数请输入 1 到 100000 之间的整数",
  bonus: "全勤奖金额请输入 0 到 10000000 之间的整数（0 表示不发放）",
  contract: "请选择签约状态",
} as const;

function wholeWithin(value: unknown, min: number, max: number, message: string, field: string): number {
  const raw = typeof value === "string" ? value.trim() : value;
  const n = raw === "" || raw == null ? Number.NaN : Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new DomainError(message, 400, field);
  return n;
}

/** The operator's 全勤奖 rule; applies to the months paid after it (audited). */
export async function saveAttendanceSettings(actor: AdminActor, input: { minWords: unknown; bonus: unknown }): Promise<AttendanceSettings> {
  const parsed: AttendanceSettings = {
    minWords: wholeWithin(input.minWords, 1, 100_000, ATTENDANCE_MESSAGES.minWords, "minWords"),
    bonus: wholeWithin(input.bonus, 0, 10_000_000, ATTENDANCE_MESSAGES.bonus, "bonus"),
  };
  await db.transaction(async (tx) => {
    const before = await attendanceSettings(tx);
    await tx
      .insert(siteConfigs)
      .values([
        { key: KEYS.minWords, value: String(parsed.minWords) },
        { key: KEYS.bonus, value: String(parsed.bonus) },
      ])
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value: sql`excluded.value`, updatedAt: new Date() } });
    await recordAdminAction(tx, actor, { action: "settings.attendance", targetType: "setting", targetId: "attendance", ...changedFields(before, parsed) });
  });
  return parsed;
}

const CONTRACTS = Object.keys(CONTRACT_LABELS) as ContractState[];

/** An operator sets an author's 签约状态 (audited); the author sees it on 我的收入. */
export async function setContract(actor: AdminActor, userId: string, input: unknown): Promise<void> {
  if (!CONTRACTS.includes(input as ContractState)) throw new DomainError(ATTENDANCE_MESSAGES.contract, 400, "contract");
  const contract = input as ContractState;
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ contract: users.contract }).from(users).where(eq(users.id, userId)).for("update");
    if (!before) throw new DomainError("用户不存在", 404);
    if (before.contract === contract) return;
    await tx.update(users).set({ contract }).where(eq(users.id, userId));
    await recordAdminAction(tx, actor, { action: "user.contract", targetType: "user", targetId: userId, before, after: { contract } });
  });
}

/** A China-time month `YYYY-MM`: its first day's start, the next month's, and its days ("2026-11-01" …). */
function monthSpan(month: string): { start: Date; end: Date; days: string[] } {
  const [y, m] = month.split("-").map(Number);
  const first = Date.UTC(y, m - 1, 1);
  const next = Date.UTC(y, m, 1);
  const days = Array.from({ length: Math.round((next - first) / 86_400_000) }, (_, i) => new Date(first + i * 86_400_000).toISOString().slice(0, 10));
  return { start: shanghaiDayStart(days[0]), end: shanghaiDayStart(new Date(next).toISOString().slice(0, 10)), days };
}

/** The China-time month of `at` ("2026-11"), and the one before it. */
function shanghaiMonthOf(at: Date): { month: string; previous: string } {
  const day = shanghaiDate(at);
  const [y, m] = day.split("-").map(Number);
  const prev = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 7);
  return { month: day.slice(0, 7), previous: prev };
}

/**
 * The 字 each author published on each day of `month` (China time) that reached `minWords`:
 * numbered chapters still published, by the day they went out. `author` narrows it (the
 * author's own page); otherwise every author under contract.
 */
async function daysMet(executor: Executor, month: string, minWords: number, author?: string): Promise<Map<string, Map<string, number>>> {
  const { start, end } = monthSpan(month);
  const who = author ? sql`w.user_id = ${author}` : sql`u.contract in ('signed', 'buyout')`;
  const rows = rowsOf<{ user_id: string; day: string; words: string | number }>(
    await executor.execute(sql`
      select w.user_id, to_char((coalesce(c.publish_at, c.created_at) at time zone 'Asia/Shanghai')::date, 'YYYY-MM-DD') as day,
             sum(c.word_count)::bigint as words
      from chapters c join works w on w.id = c.work_id join users u on u.id = w.user_id
      where ${who} and c.state = 'published' and c.kind = 'chapter'
        and coalesce(c.publish_at, c.created_at) >= ${start.toISOString()}::timestamptz
        and coalesce(c.publish_at, c.created_at) < ${end.toISOString()}::timestamptz
      group by 1, 2`),
  );
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const words = Number(r.words);
    if (!out.has(r.user_id)) out.set(r.user_id, new Map());
    out.get(r.user_id)!.set(r.day, words);
  }
  for (const [user, days] of out) {
    for (const [day, words] of days) if (words < minWords) days.delete(day);
    if (days.size === 0) out.delete(user);
  }
  return out;
}

/**
 * Pays 全勤奖 for the China-time month before `now`'s to every author under contract who
 * met the rule on each of its days; returns how many were paid now. Any number of
 * processes may run it at once, as often as they like: each month is paid once per author.
 */
export async function payAttendanceBonuses(now = new Date()): Promise<number> {
  const settings = await attendanceSettings();
  if (settings.bonus <= 0) return 0;
  const { previous: month } = shanghaiMonthOf(now);
  const { days } = monthSpan(month);
  const met = await daysMet(db, month, settings.minWords);
  const earned = [...met].filter(([, d]) => d.size === days.length).map(([user]) => user);
  if (earned.length === 0) return 0;
  const paidAlready = new Set(
    (await db.select({ userId: attendanceBonuses.userId }).from(attendanceBonuses).where(and(eq(attendanceBonuses.month, month), inArray(attendanceBonuses.userId, earned)))).map((r) => r.userId),
  );
  let paid = 0;
  for (const userId of earned) {
    if (paidAlready.has(userId)) continue;
    const done = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(attendanceBonuses)
        .values({ userId, month, amount: settings.bonus, minWords: settings.minWords })
        .onConflictDoNothing()
        .returning({ userId: attendanceBonuses.userId });
      if (!row) return false;
      const [y, m] = month.split("-");
      await addIncome(tx, userId, { type: "bonus", amount: settings.bonus, gross: settings.bonus, workId: null, chapterId: null, description: `${y}年${Number(m)}月全勤奖` });
      return true;
    });
    if (done) paid++;
  }
  return paid;
}

/** What 我的收入 shows an author: their 签约状态, the rule, and this month so far. */
export async function attendanceOverview(userId: string, now = new Date()) {
  const [[author], settings] = await Promise.all([db.select({ contract: users.contract }).from(users).where(eq(users.id, userId)), attendanceSettings()]);
  const { month } = shanghaiMonthOf(now);
  const today = shanghaiDate(now);
  const { days } = monthSpan(month);
  const met = (await daysMet(db, month, settings.minWords, userId)).get(userId) ?? new Map<string, number>();
  const soFar = days.filter((d) => d <= today);
  return {
    contract: (author?.contract ?? "none") as ContractState,
    minWords: settings.minWords,
    bonus: settings.bonus,
    month,
    daysInMonth: days.length,
    daysSoFar: soFar.length,
    daysMet: soFar.filter((d) => met.has(d)).length,
    /** Every day up to today met: the bonus is still within reach this month. */
    onTrack: soFar.slice(0, -1).every((d) => met.has(d)),
    todayMet: met.has(today),
  };
}
