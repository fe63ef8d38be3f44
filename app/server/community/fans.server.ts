import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { profiles, siteConfigs, workFans } from "~/db/schema";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import type { FanLevel, FanRankingRow } from "~/types/fans";
import { sendInOrder } from "~/server/platform/db-utils.server";
import { monthlySpendStatement } from "./votes.server";

/**
 * 粉丝值 and 粉丝等级 (docs/product.md#tips-and-fans, decision 207). A reader's 粉丝值 on a work
 * is the credits they spent on it: every tip and every purchase (a chapter, 购买全部 at what
 * was paid, the whole work) adds its amount in the spending transaction. The levels (name
 * and the 粉丝值 each starts at) are a site setting, `fan_levels`, one level a line.
 * Here, in community (left of economy), so that the comments can show levels and the
 * economy's spending can add to them.
 */

const FAN_LEVELS_KEY = "fan_levels";
const MAX_LEVELS = 30;
const MAX_NAME_CHARS = 8;
const MAX_THRESHOLD = 1_000_000_000_000;

/** @internal */
export const FAN_LEVEL_MESSAGES = {
  empty: "请至少填写一个等级",
  tooMany: `最多 ${MAX_LEVELS} 个等级`,
  line: (n: number) => `第 ${n} 行格式不对：应为“名称 粉丝值”，如“学徒 500”`,
  name: (n: number) => `第 ${n} 行：等级名称须为 1-${MAX_NAME_CHARS} 个字`,
  first: "第一个等级的粉丝值须为 0",
  order: (n: number) => `第 ${n} 行：粉丝值须比上一级大`,
  duplicate: (name: string) => `等级名称重复：${name}`,
} as const;

/**
 * Parses the levels' text (one `名称 粉丝值` a line, blank lines skipped); throws the first problem.
 * @internal
 */
export function parseFanLevels(text: string): FanLevel[] {
  const levels: FanLevel[] = [];
  const names = new Set<string>();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const match = /^(\S+)[\s:：]+(\d{1,13})$/u.exec(line);
    if (!match) throw new DomainError(FAN_LEVEL_MESSAGES.line(i + 1), 400, "levels");
    const [, name, value] = match;
    if (Array.from(name).length > MAX_NAME_CHARS) throw new DomainError(FAN_LEVEL_MESSAGES.name(i + 1), 400, "levels");
    const threshold = Number(value);
    if (threshold > MAX_THRESHOLD) throw new DomainError(FAN_LEVEL_MESSAGES.line(i + 1), 400, "levels");
    if (levels.length === 0 && threshold !== 0) throw new DomainError(FAN_LEVEL_MESSAGES.first, 400, "levels");
    if (levels.length > 0 && threshold <= levels[levels.length - 1].threshold) throw new DomainError(FAN_LEVEL_MESSAGES.order(i + 1), 400, "levels");
    if (names.has(name)) throw new DomainError(FAN_LEVEL_MESSAGES.duplicate(name), 400, "levels");
    names.add(name);
    levels.push({ name, threshold });
  });
  if (levels.length === 0) throw new DomainError(FAN_LEVEL_MESSAGES.empty, 400, "levels");
  if (levels.length > MAX_LEVELS) throw new DomainError(FAN_LEVEL_MESSAGES.tooMany, 400, "levels");
  return levels;
}

export function formatFanLevels(levels: FanLevel[]): string {
  return levels.map((l) => `${l.name} ${l.threshold}`).join("\n");
}

/** The site's levels, lowest first; a stored value that no longer parses falls back to the defaults. */
export async function getFanLevels(): Promise<FanLevel[]> {
  const stored = await getSiteConfigValue(FAN_LEVELS_KEY);
  try {
    return parseFanLevels(stored);
  } catch {
    return parseFanLevels(DEFAULT_SITE_CONFIGS[FAN_LEVELS_KEY]);
  }
}

/**
 * The level a 粉丝值 reaches: the last whose threshold it meets.
 * @internal
 */
export function fanLevelOf(value: number, levels: FanLevel[]): string {
  let name = levels[0]?.name ?? "";
  for (const level of levels) if (value >= level.threshold) name = level.name;
  return name;
}

/** The operator saves the levels (/admin/settings/fans); audited; a bad text changes nothing. */
export async function saveFanLevels(actor: AdminActor, text: unknown): Promise<FanLevel[]> {
  const levels = parseFanLevels(typeof text === "string" ? text : "");
  const value = formatFanLevels(levels);
  const before = formatFanLevels(await getFanLevels());
  await db.transaction(async (tx) => {
    await tx
      .insert(siteConfigs)
      .values({ key: FAN_LEVELS_KEY, value })
      .onConflictDoUpdate({ target: siteConfigs.key, set: { value, updatedAt: new Date() } });
    await recordAdminAction(tx, actor, { action: "settings.fans", targetType: "setting", targetId: "fans", ...changedFields({ levels: before }, { levels: value }) });
  });
  return levels;
}

/**
 * Adds `amount` credits spent on a work to the reader's 粉丝值, inside the spending
 * transaction (a tip, a purchase), and to the month's spending that earns 月票. An upsert:
 * two at once add both.
 */
export async function addFanValue(tx: Executor, userId: string, workId: number, amount: number): Promise<void> {
  await sendInOrder(tx, fanValueStatements(tx, userId, workId, amount));
}

/** `addFanValue`'s statements (none for amount ≤ 0), for a caller that sends them with others (sendInOrder). */
export function fanValueStatements(tx: Executor, userId: string, workId: number, amount: number): SQL[] {
  if (amount <= 0) return [];
  return [
    tx
      .insert(workFans)
      .values({ workId, userId, fanValue: amount })
      .onConflictDoUpdate({
        target: [workFans.workId, workFans.userId],
        set: { fanValue: sql`${workFans.fanValue} + ${amount}`, updatedAt: new Date() },
      })
      .getSQL(),
    // The same credits earn this month's 月票 (decision 222).
    monthlySpendStatement(tx, userId, amount),
  ];
}

/** The 粉丝值 of these readers on a work (0 for none), for the comments' level marks. */
async function fanValues(workId: number, userIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (userIds.length === 0) return out;
  const rows = await db
    .select({ userId: workFans.userId, value: workFans.fanValue })
    .from(workFans)
    .where(and(eq(workFans.workId, workId), inArray(workFans.userId, [...new Set(userIds)])));
  for (const r of rows) out.set(r.userId, Number(r.value));
  return out;
}

/** The fan level of each of these readers on a work (every reader has one: the first level at 0). */
export async function fanLevelsOf(workId: number, userIds: string[]): Promise<Map<string, string>> {
  const [values, levels] = await Promise.all([fanValues(workId, userIds), getFanLevels()]);
  return new Map(userIds.map((id) => [id, fanLevelOf(values.get(id) ?? 0, levels)]));
}

/** How many fans a 粉丝榜 lists. */
const FAN_RANKING_SIZE = 50;

/**
 * The places a reader's own 第 N 名 is counted to (decision 207, amended): beyond it the page
 * says 未进入前 1000 名, so the count reads at most this many index entries however many fans
 * a work has (docs/benchmarks.md#votes-tips-and-their-rankings).
 */
const FAN_PLACE_WITHIN = 1000;

/**
 * The work's first `limit` fans, read off the ranking index before their profiles are joined:
 * the planner cannot then choose to join every fan of a work with 100,000 of them and sort
 * (docs/benchmarks.md#votes-tips-and-their-rankings).
 */
function topFans(workId: number, limit: number) {
  const top = db
    .select({ userId: workFans.userId, value: workFans.fanValue })
    .from(workFans)
    .where(and(eq(workFans.workId, workId), sql`${workFans.fanValue} > 0`))
    .orderBy(desc(workFans.fanValue), workFans.userId)
    .limit(limit)
    .as("top");
  return db
    .select({ userId: top.userId, value: top.value, nickname: profiles.nickname, avatarUrl: profiles.avatarUrl })
    .from(top)
    .innerJoin(profiles, eq(profiles.id, top.userId))
    .orderBy(desc(top.value), top.userId);
}

/**
 * A work's 粉丝榜: its top fans by 粉丝值 (ties: who reached it first... by id, stable), with
 * nickname and level, and the viewer's own value and place when they have one: `place` within
 * the first `placeWithin`, else null with `outside` = placeWithin.
 */
export async function fanRanking(workId: number, viewerId: string | null, { limit = FAN_RANKING_SIZE, placeWithin = FAN_PLACE_WITHIN } = {}) {
  const [rows, levels, mine] = await Promise.all([
    topFans(workId, limit),
    getFanLevels(),
    viewerId
      ? db
          .select({
            value: sql<number>`mine.fan_value`,
            // The fans above the viewer, counted on the ranking index up to the bound.
            above: sql<number>`(select count(*)::int from (select 1 from work_fans above where above.work_id = ${workId} and above.fan_value > mine.fan_value limit ${placeWithin}) t)`,
          })
          .from(sql`work_fans mine`)
          .where(sql`mine.work_id = ${workId} and mine.user_id = ${viewerId}`)
      : Promise.resolve([]),
  ]);
  const fans: FanRankingRow[] = rows.map((r, i) => ({
    place: i + 1,
    userId: r.userId,
    nickname: r.nickname,
    avatarUrl: r.avatarUrl,
    fanValue: Number(r.value),
    level: fanLevelOf(Number(r.value), levels),
  }));
  const own = mine[0];
  const viewerValue = own ? Number(own.value) : 0;
  const ranked = own !== undefined && viewerValue > 0;
  const inside = ranked && Number(own.above) < placeWithin;
  return {
    fans,
    levels,
    viewer: viewerId
      ? { fanValue: viewerValue, level: fanLevelOf(viewerValue, levels), place: inside ? Number(own.above) + 1 : null, outside: ranked && !inside ? placeWithin : null }
      : null,
  };
}

/** The 粉丝榜 page (/works/:id/fans): the work as the viewer may see it (404 / R-18 gate as the reader), its ranking. */
export async function workFanPage(viewer: Viewer, workId: number) {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError("当前显示设置下无法查看该作品", 403);
  const ranking = await fanRanking(workId, viewer?.id ?? null);
  return { work: { id: view.work.id, title: view.work.title, authorNickname: view.author.nickname }, isOwner: view.isOwner, ...ranking };
}
