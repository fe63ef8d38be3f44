import { and, eq, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { readerVoteDays, readerVoteMonths, siteConfigs, users, workRankingTallies, workVotes, works } from "~/db/schema";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import { banActive } from "~/server/identity/auth.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { shanghaiPeriods } from "~/utils/shanghai-time";
import type { VoteBalance, VoteKind, RecommendLevel } from "~/types/votes";

/**
 * 月票 and 推荐票 (docs/product.md#votes, decision 222).
 * - 月票: one per N credits a reader spends on works (chapters, whole works, tips) in a
 *   China-time month, N the operator's `monthly_vote_credits`; the month's row holds what
 *   was spent and what was cast, so the votes expire with the month.
 * - 推荐票: a daily allowance (China-time day) by reader level; the level is the reader's
 *   累计消费 (credits spent on works since votes began), the levels the operator's
 *   `recommend_vote_levels`, one `名称 累计消费 每日张数` a line.
 * A cast is one transaction: the reader's counter changed by one conditional statement
 * (refused when it would go past what they hold), the `work_votes` row, the rankings'
 * day, week and month tallies and the form's one-time token. So no vote is spent twice,
 * whatever the number of processes and parallel casts.
 */

const MAX_LEVELS = 20;
const MAX_NAME_CHARS = 8;
const MAX_DAILY = 100;
/** The most votes one cast may hold. */
const MAX_VOTES_PER_CAST = 100;

/** @internal */
export const VOTE_MESSAGES = {
  count: "请选择投票张数（1 到 100 的整数）",
  kind: "请选择月票或推荐票",
  ownWork: "不能给自己的作品投票",
  banned: "账号已被封禁，不能投票",
  tooNew: (days: number) => `注册满 ${days} 天后才能投票`,
  gated: "当前显示设置下无法给该作品投票",
  noMonthly: "月票不足",
  noRecommend: "今日推荐票不足",
  workMissing: "作品不存在",
  userMissing: "账号不存在",
  credits: "每张月票所需积分须为 1 到 1000000 的整数",
  minDays: "新账号投票门槛须为 0 到 365 天",
  levelsEmpty: "请至少填写一个读者等级",
  levelsTooMany: `最多 ${MAX_LEVELS} 个读者等级`,
  levelLine: (n: number) => `第 ${n} 行格式不对：应为“名称 累计消费 每日推荐票”，如“中级读者 500 3”`,
  levelName: (n: number) => `第 ${n} 行：等级名称须为 1-${MAX_NAME_CHARS} 个字`,
  levelFirst: "第一个等级的累计消费须为 0",
  levelOrder: (n: number) => `第 ${n} 行：累计消费须比上一级大`,
  levelDaily: (n: number) => `第 ${n} 行：每日推荐票须为 0 到 ${MAX_DAILY}`,
  levelDuplicate: (name: string) => `等级名称重复：${name}`,
} as const;

const KEYS = ["monthly_vote_credits", "vote_min_account_days", "recommend_vote_levels"] as const;

export interface VoteSettings {
  /** Credits spent per 月票. */
  monthlyVoteCredits: number;
  /** An account votes from this many days after it registered (0: at once). */
  minAccountDays: number;
  levels: RecommendLevel[];
}

/**
 * Parses the levels (one `名称 累计消费 每日推荐票` a line, lowest first from 0); throws the first problem.
 * @internal
 */
export function parseRecommendLevels(text: string): RecommendLevel[] {
  const levels: RecommendLevel[] = [];
  const names = new Set<string>();
  text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line) return;
      const match = /^(\S+)[\s:：]+(\d{1,13})[\s:：]+(\d{1,4})$/u.exec(line);
      if (!match) throw new DomainError(VOTE_MESSAGES.levelLine(i + 1), 400, "levels");
      const [, name, spent, daily] = match;
      if (Array.from(name).length > MAX_NAME_CHARS) throw new DomainError(VOTE_MESSAGES.levelName(i + 1), 400, "levels");
      const threshold = Number(spent);
      if (levels.length === 0 && threshold !== 0) throw new DomainError(VOTE_MESSAGES.levelFirst, 400, "levels");
      if (levels.length > 0 && threshold <= levels[levels.length - 1].threshold) throw new DomainError(VOTE_MESSAGES.levelOrder(i + 1), 400, "levels");
      if (Number(daily) > MAX_DAILY) throw new DomainError(VOTE_MESSAGES.levelDaily(i + 1), 400, "levels");
      if (names.has(name)) throw new DomainError(VOTE_MESSAGES.levelDuplicate(name), 400, "levels");
      names.add(name);
      levels.push({ name, threshold, daily: Number(daily) });
    });
  if (levels.length === 0) throw new DomainError(VOTE_MESSAGES.levelsEmpty, 400, "levels");
  if (levels.length > MAX_LEVELS) throw new DomainError(VOTE_MESSAGES.levelsTooMany, 400, "levels");
  return levels;
}

export function formatRecommendLevels(levels: RecommendLevel[]): string {
  return levels.map((l) => `${l.name} ${l.threshold} ${l.daily}`).join("\n");
}

function wholeIn(text: string, min: number, max: number): number | null {
  const t = text.trim();
  if (!/^\d{1,9}$/.test(t)) return null;
  const n = Number(t);
  return n >= min && n <= max ? n : null;
}

/** The operator's vote settings; a stored value that no longer parses falls back to its default. */
export async function getVoteSettings(): Promise<VoteSettings> {
  const stored = await getSiteConfig(KEYS);
  const pick = (key: (typeof KEYS)[number], min: number, max: number) => wholeIn(stored[key], min, max) ?? Number(DEFAULT_SITE_CONFIGS[key]);
  let levels: RecommendLevel[];
  try {
    levels = parseRecommendLevels(stored.recommend_vote_levels);
  } catch {
    levels = parseRecommendLevels(DEFAULT_SITE_CONFIGS.recommend_vote_levels);
  }
  return { monthlyVoteCredits: pick("monthly_vote_credits", 1, 1_000_000), minAccountDays: pick("vote_min_account_days", 0, 365), levels };
}

/** The operator saves the vote settings (/admin/settings/votes): whole or not at all, audited. */
export async function saveVoteSettings(actor: AdminActor, input: { monthlyVoteCredits: unknown; minAccountDays: unknown; levels: unknown }): Promise<VoteSettings> {
  const credits = wholeIn(String(input.monthlyVoteCredits ?? ""), 1, 1_000_000);
  if (credits === null) throw new DomainError(VOTE_MESSAGES.credits, 400, "monthlyVoteCredits");
  const minDays = wholeIn(String(input.minAccountDays ?? ""), 0, 365);
  if (minDays === null) throw new DomainError(VOTE_MESSAGES.minDays, 400, "minAccountDays");
  const levels = parseRecommendLevels(typeof input.levels === "string" ? input.levels : "");
  const before = await getVoteSettings();
  const values = { monthly_vote_credits: String(credits), vote_min_account_days: String(minDays), recommend_vote_levels: formatRecommendLevels(levels) };
  await db.transaction(async (tx) => {
    for (const [key, value] of Object.entries(values)) {
      await tx.insert(siteConfigs).values({ key, value }).onConflictDoUpdate({ target: siteConfigs.key, set: { value, updatedAt: new Date() } });
    }
    await recordAdminAction(tx, actor, {
      action: "settings.votes",
      targetType: "setting",
      targetId: "votes",
      ...changedFields(
        { monthlyVoteCredits: before.monthlyVoteCredits, minAccountDays: before.minAccountDays, levels: formatRecommendLevels(before.levels) },
        { monthlyVoteCredits: credits, minAccountDays: minDays, levels: values.recommend_vote_levels },
      ),
    });
  });
  return { monthlyVoteCredits: credits, minAccountDays: minDays, levels };
}

/**
 * Adds credits a reader spent on a work this China-time month (the 月票 it earns), inside
 * the spending transaction; the app sends its statement (`monthlySpendStatement`) with the
 * 粉丝值's (`fanValueStatements`) with every purchase and tip; tests call this.
 * @internal
 */
export async function addMonthlySpend(tx: Executor, userId: string, amount: number, now = new Date()): Promise<void> {
  if (amount <= 0) return;
  await tx.execute(monthlySpendStatement(tx, userId, amount, now));
}

/** `addMonthlySpend`'s statement (amount > 0), for a caller that sends it with others (sendInOrder). */
export function monthlySpendStatement(tx: Executor, userId: string, amount: number, now = new Date()): SQL {
  return tx
    .insert(readerVoteMonths)
    .values({ userId, month: shanghaiPeriods(now).month, spent: amount })
    .onConflictDoUpdate({ target: [readerVoteMonths.userId, readerVoteMonths.month], set: { spent: sql`${readerVoteMonths.spent} + ${amount}` } })
    .getSQL();
}

/**
 * Adds to a work's day, week and month totals on a ranking (月票, 推荐票, 打赏), inside the
 * cast's or the tip's transaction; the three rows always in the same order, so two
 * transactions never wait on each other in a circle.
 */
async function addRankingTally(tx: Executor, metric: "monthly" | "recommend" | "tip", workId: number, amount: number, now = new Date()): Promise<void> {
  await tx.execute(rankingTallyStatement(tx, metric, workId, amount, now));
}

/** `addRankingTally`'s one statement, for a caller that sends it with others (sendInOrder). */
export function rankingTallyStatement(tx: Executor, metric: "monthly" | "recommend" | "tip", workId: number, amount: number, now = new Date()): SQL {
  const p = shanghaiPeriods(now);
  return tx
    .insert(workRankingTallies)
    .values([
      { metric, period: "day", startsOn: p.day, workId, total: amount },
      { metric, period: "week", startsOn: p.week, workId, total: amount },
      { metric, period: "month", startsOn: p.month, workId, total: amount },
    ])
    .onConflictDoUpdate({
      target: [workRankingTallies.metric, workRankingTallies.period, workRankingTallies.startsOn, workRankingTallies.workId],
      set: { total: sql`${workRankingTallies.total} + excluded.total` },
    })
    .getSQL();
}

function levelOf(spent: number, levels: RecommendLevel[]): RecommendLevel {
  let level = levels[0];
  for (const l of levels) if (spent >= l.threshold) level = l;
  return level;
}

/** What a reader holds now: 月票 left this month, 推荐票 left today, their level. */
export async function voteBalance(userId: string, now = new Date(), settings?: VoteSettings): Promise<VoteBalance> {
  const s = settings ?? (await getVoteSettings());
  const p = shanghaiPeriods(now);
  const [[month], [day], [total]] = await Promise.all([
    db.select({ spent: readerVoteMonths.spent, used: readerVoteMonths.monthlyUsed }).from(readerVoteMonths).where(and(eq(readerVoteMonths.userId, userId), eq(readerVoteMonths.month, p.month))),
    db.select({ used: readerVoteDays.recommendUsed }).from(readerVoteDays).where(and(eq(readerVoteDays.userId, userId), eq(readerVoteDays.day, p.day))),
    db.select({ spent: sql<number>`coalesce(sum(${readerVoteMonths.spent}), 0)`.mapWith(Number) }).from(readerVoteMonths).where(eq(readerVoteMonths.userId, userId)),
  ]);
  const level = levelOf(total?.spent ?? 0, s.levels);
  const spentThisMonth = Number(month?.spent ?? 0);
  const earned = Math.floor(spentThisMonth / s.monthlyVoteCredits);
  return {
    monthly: Math.max(0, earned - (month?.used ?? 0)),
    monthlyEarned: earned,
    spentThisMonth,
    creditsPerMonthly: s.monthlyVoteCredits,
    recommend: Math.max(0, level.daily - (day?.used ?? 0)),
    recommendDaily: level.daily,
    level: level.name,
  };
}

function voteCount(value: unknown): number {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const n = wholeIn(text, 1, MAX_VOTES_PER_CAST);
  if (n === null) throw new DomainError(VOTE_MESSAGES.count, 400, "count");
  return n;
}

export interface CastInput {
  workId: number;
  kind: unknown;
  count: unknown;
}

export interface CastResult {
  id: number;
  kind: VoteKind;
  count: number;
}

/** The voter's account: banned, when registered, and 累计消费 (their level's measure), in one query. */
async function voterAccount(userId: string) {
  const [account] = await db
    .select({
      banned: banActive,
      createdAt: users.createdAt,
      totalSpent: sql<number>`(select coalesce(sum(${readerVoteMonths.spent}), 0) from ${readerVoteMonths} where ${readerVoteMonths.userId} = ${users.id})`.mapWith(Number),
    })
    .from(users)
    .where(eq(users.id, userId));
  return account;
}

/**
 * Casts `count` 月票 or 推荐票 on a work. Refusals, each with nothing written: a bad kind
 * or count (400), the reader's own work, a banned or too new account (403), a work they
 * may not see (404 / 403), too few votes (402, 月票不足 / 今日推荐票不足). `record` writes
 * the form's one-time token in the same transaction (decision 077).
 */
export async function castVotes(user: NonNullable<Viewer>, input: CastInput, record?: RecordResult, now = new Date()): Promise<CastResult> {
  if (input.kind !== "monthly" && input.kind !== "recommend") throw new DomainError(VOTE_MESSAGES.kind, 400, "kind");
  const kind: VoteKind = input.kind;
  const count = voteCount(input.count);
  // The reads are independent: asked at once (each awaited by Promise.all, so none rejects unheard).
  const [view, settings, account] = await Promise.all([getWorkForViewer(input.workId, user), getVoteSettings(), voterAccount(user.id)]);
  if (view.isOwner) throw new DomainError(VOTE_MESSAGES.ownWork, 403);
  if (view.gate !== "ok") throw new DomainError(VOTE_MESSAGES.gated, 403);
  if (!account) throw new DomainError(VOTE_MESSAGES.userMissing, 404);
  if (account.banned) throw new DomainError(VOTE_MESSAGES.banned, 403);
  const { minAccountDays } = settings;
  if (minAccountDays > 0 && now.getTime() - account.createdAt.getTime() < minAccountDays * 86_400_000) throw new DomainError(VOTE_MESSAGES.tooNew(minAccountDays), 403);
  const p = shanghaiPeriods(now);
  // The daily allowance by level: 累计消费 only grows, so one read before the cast never allows too many.
  const daily = kind === "recommend" ? levelOf(account.totalSpent, settings.levels).daily : 0;
  if (kind === "recommend" && count > daily) throw new DomainError(VOTE_MESSAGES.noRecommend, 402, "count");

  return db.transaction(async (tx) => {
    const [work] = await tx.select({ id: works.id, userId: works.userId, takenDownAt: works.takenDownAt }).from(works).where(eq(works.id, input.workId)).for("share");
    if (!work || work.takenDownAt) throw new DomainError(VOTE_MESSAGES.workMissing, 404);
    if (work.userId === user.id) throw new DomainError(VOTE_MESSAGES.ownWork, 403);
    if (kind === "monthly") {
      // One statement: spends only what the month's spending earned and is not yet cast.
      const spent = await tx
        .update(readerVoteMonths)
        .set({ monthlyUsed: sql`${readerVoteMonths.monthlyUsed} + ${count}` })
        .where(
          and(
            eq(readerVoteMonths.userId, user.id),
            eq(readerVoteMonths.month, p.month),
            sql`${readerVoteMonths.monthlyUsed} + ${count} <= ${readerVoteMonths.spent} / ${settings.monthlyVoteCredits}::bigint`,
          ),
        )
        .returning({ used: readerVoteMonths.monthlyUsed });
      if (spent.length === 0) throw new DomainError(VOTE_MESSAGES.noMonthly, 402, "count");
    } else {
      const spent = await tx
        .insert(readerVoteDays)
        .values({ userId: user.id, day: p.day, recommendUsed: count })
        .onConflictDoUpdate({
          target: [readerVoteDays.userId, readerVoteDays.day],
          set: { recommendUsed: sql`${readerVoteDays.recommendUsed} + excluded.recommend_used` },
          setWhere: sql`${readerVoteDays.recommendUsed} + excluded.recommend_used <= ${daily}`,
        })
        .returning({ used: readerVoteDays.recommendUsed });
      if (spent.length === 0) throw new DomainError(VOTE_MESSAGES.noRecommend, 402, "count");
    }
    const [vote] = await tx.insert(workVotes).values({ userId: user.id, workId: work.id, kind, count, createdAt: now }).returning({ id: workVotes.id });
    await addRankingTally(tx, kind, work.id, count, now);
    await record?.(tx, vote.id);
    return { id: vote.id, kind, count };
  });
}

/** A cast already made (a form sent twice): what the first submission did. */
export async function voteById(userId: string, voteId: number): Promise<CastResult> {
  const [row] = await db
    .select({ id: workVotes.id, kind: workVotes.kind, count: workVotes.count })
    .from(workVotes)
    .where(and(eq(workVotes.id, voteId), eq(workVotes.userId, userId)));
  if (!row) throw new DomainError(VOTE_MESSAGES.count, 404);
  return row;
}

/**
 * What the vote page (/works/:id/vote) shows: the work and the reader's votes. The
 * reader's own work is refused here already (403, 不能给自己的作品投票).
 */
export async function votePage(user: NonNullable<Viewer>, workId: number) {
  const view = await getWorkForViewer(workId, user);
  if (view.isOwner) throw new DomainError(VOTE_MESSAGES.ownWork, 403);
  if (view.gate !== "ok") throw new DomainError(VOTE_MESSAGES.gated, 403);
  return { work: { id: view.work.id, title: view.work.title, authorNickname: view.author.nickname }, votes: await voteBalance(user.id) };
}
