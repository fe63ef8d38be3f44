import { and, desc, eq, ilike, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterComments, chapterPurchases, chapters, commentReports, profiles, workPurchases, works } from "~/db/schema";
import { pageWithin } from "~/utils/pagination";
import { chapterOrder } from "~/server/catalog/chapter-numbers.server";
import { DomainError } from "~/server/platform/errors.server";
import { substringMatch } from "~/server/catalog/search-sql.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { escapeLike } from "~/server/platform/db-utils.server";

const ADMIN_WORKS_PAGE_SIZE = 30;

export interface AdminWorkFilters {
  visibility: "" | "public" | "public-vip" | "private" | "taken-down";
  type: "" | "single_chapter" | "multi_chapter" | "series";
  rating: "" | "all_ages" | "r18";
  ai: "" | "none" | "assisted" | "generated";
  /** Only works with open comment reports. */
  reported: boolean;
}

const EMPTY_WORK_FILTERS: AdminWorkFilters = { visibility: "", type: "", rating: "", ai: "", reported: false };

const pick = <T extends string>(value: string | null, allowed: readonly T[]): T | "" =>
  value && (allowed as readonly string[]).includes(value) ? (value as T) : "";

/** The filters from a query string; anything unknown is ignored. */
export function parseWorkFilters(params: URLSearchParams): AdminWorkFilters {
  return {
    visibility: pick(params.get("visibility"), ["public", "public-vip", "private", "taken-down"] as const),
    type: pick(params.get("type"), ["single_chapter", "multi_chapter", "series"] as const),
    rating: pick(params.get("rating"), ["all_ages", "r18"] as const),
    ai: pick(params.get("ai"), ["none", "assisted", "generated"] as const),
    reported: params.get("reported") === "1",
  };
}

/** Open reports per work: comments on its chapters with unresolved reports. */
const openReports = sql<number>`(select count(*)::int from ${commentReports} r join ${chapterComments} c on c.id = r.comment_id
  join ${chapters} ch on ch.id = c.chapter_id where ch.work_id = ${works.id} and r.resolved_at is null)`;

/**
 * Every work whatever its visibility, 30 a page, newest first (docs/product.md: Back office,
 * works). `query` matches the title or description (the index-backed substring search) or
 * the author's nickname or e-mail; the filters narrow by visibility (or taken down), type,
 * rating, AI level and open comment reports.
 */
export async function listWorksForAdmin({ query, page, filters = EMPTY_WORK_FILTERS }: { query: string; page: number; filters?: AdminWorkFilters }) {
  const parts: (SQL | undefined)[] = [];
  if (query) {
    const pattern = `%${escapeLike(query)}%`;
    parts.push(or(substringMatch(query), ilike(profiles.nickname, pattern), ilike(profiles.email, pattern)));
  }
  if (filters.visibility === "taken-down") parts.push(isNotNull(works.takenDownAt));
  else if (filters.visibility) parts.push(and(eq(works.visibility, filters.visibility), isNull(works.takenDownAt)));
  if (filters.type) parts.push(eq(works.type, filters.type));
  if (filters.rating) parts.push(eq(works.rating, filters.rating));
  if (filters.ai) parts.push(eq(works.aiLevel, filters.ai));
  if (filters.reported) parts.push(sql`${openReports} > 0`);
  const where = and(...parts);
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where);
  const { page: current, pageCount } = pageWithin(page, total, ADMIN_WORKS_PAGE_SIZE);
  const rows = await db
    .select({
      id: works.id,
      title: works.title,
      userId: works.userId,
      authorNickname: profiles.nickname,
      authorEmail: profiles.email,
      type: works.type,
      status: works.status,
      visibility: works.visibility,
      rating: works.rating,
      aiLevel: works.aiLevel,
      price: works.price,
      wordCount: works.wordCount,
      chapterCount: works.chapterCount,
      takenDownAt: works.takenDownAt,
      openReports,
      createdAt: works.createdAt,
    })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where)
    .orderBy(desc(works.createdAt), desc(works.id))
    .limit(ADMIN_WORKS_PAGE_SIZE)
    .offset((current - 1) * ADMIN_WORKS_PAGE_SIZE);
  return { works: rows, total, page: current, pageCount };
}

const WORK_MISSING = "作品不存在";

/**
 * Any work for an administrator, private and taken-down ones included (decision 138): its
 * facts, its chapters in order (every state) and, when `chapterNumber` names one, that
 * chapter's text.
 */
export async function getWorkForAdmin(workId: number, chapterNumber: number | null) {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(WORK_MISSING, 404);
  const [row] = await db
    .select({ work: works, authorNickname: profiles.nickname, authorEmail: profiles.email, openReports })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(eq(works.id, workId));
  if (!row) throw new DomainError(WORK_MISSING, 404);
  const heads = (
    await db
      .select({ id: chapters.id, title: chapters.title, wordCount: chapters.wordCount, state: chapters.state })
      .from(chapters)
      .where(eq(chapters.workId, workId))
      .orderBy(...chapterOrder)
  ).map((c, i) => ({ ...c, number: i + 1 }));
  const chosen = chapterNumber ? heads.find((c) => c.number === chapterNumber) : undefined;
  const chapter = chosen
    ? { ...chosen, content: (await db.select({ content: chapters.content }).from(chapters).where(eq(chapters.id, chosen.id)))[0]?.content ?? "" }
    : null;
  return { work: row.work, author: { nickname: row.authorNickname, email: row.authorEmail }, openReports: row.openReports, chapters: heads, chapter };
}

function reasonOf(raw: unknown, message: string): string {
  const reason = typeof raw === "string" ? raw.trim() : "";
  if (!reason) throw new DomainError(message, 400);
  if (Array.from(reason).length > 200) throw new DomainError("原因不能超过200个字", 400);
  return reason;
}

/**
 * Takes a work down (decision 138): in one transaction it becomes private (price 0) with the
 * reason, the listing it had is kept for a restore, and the audit row is written. The works
 * trigger announces the change, so public caches drop it at once.
 */
export async function takeDownWork(actor: AdminActor, workId: number, rawReason: unknown): Promise<void> {
  const reason = reasonOf(rawReason, "请填写下架原因");
  await db.transaction(async (tx) => {
    const [work] = await tx.select().from(works).where(eq(works.id, workId)).for("update");
    if (!work) throw new DomainError(WORK_MISSING, 404);
    if (work.takenDownAt) throw new DomainError("该作品已被下架", 409);
    const previous = { visibility: work.visibility, price: work.price };
    await tx
      .update(works)
      .set({ visibility: "private", price: 0, takenDownAt: new Date(), takedownReason: reason, takedownPrevious: previous, updatedAt: new Date() })
      .where(eq(works.id, workId));
    await recordAdminAction(tx, actor, {
      action: "work.take-down",
      targetType: "work",
      targetId: workId,
      before: previous,
      after: { visibility: "private", takenDown: true },
      reason,
    });
  });
}

/** Restores a taken-down work to the listing it had (decision 138). */
export async function restoreWork(actor: AdminActor, workId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [work] = await tx.select().from(works).where(eq(works.id, workId)).for("update");
    if (!work) throw new DomainError(WORK_MISSING, 404);
    if (!work.takenDownAt || !work.takedownPrevious) throw new DomainError("该作品未被下架", 409);
    const previous = work.takedownPrevious;
    // A paid work sold by chapter has no whole-work price (the CHECK allows 0 then).
    await tx
      .update(works)
      .set({ visibility: previous.visibility, price: previous.price, takenDownAt: null, takedownReason: null, takedownPrevious: null, updatedAt: new Date() })
      .where(eq(works.id, workId));
    await recordAdminAction(tx, actor, {
      action: "work.restore",
      targetType: "work",
      targetId: workId,
      before: { takenDown: true, reason: work.takedownReason },
      after: previous,
    });
  });
}

/** Marks a work R-18 (or back to all ages), audited. */
export async function setWorkRating(actor: AdminActor, workId: number, rating: "all_ages" | "r18"): Promise<void> {
  await db.transaction(async (tx) => {
    const [work] = await tx.select({ rating: works.rating }).from(works).where(eq(works.id, workId)).for("update");
    if (!work) throw new DomainError(WORK_MISSING, 404);
    if (work.rating === rating) return;
    await tx.update(works).set({ rating, updatedAt: new Date() }).where(eq(works.id, workId));
    await recordAdminAction(tx, actor, { action: "work.rating", targetType: "work", targetId: workId, before: { rating: work.rating }, after: { rating } });
  });
}

/**
 * Deletes a work with a reason (chapters, comments and favourites go with it). A work someone
 * bought is refused, as for its owner: buyers keep what they paid for; take it down instead.
 */
export async function deleteWorkAsAdmin(actor: AdminActor, workId: number, rawReason: unknown): Promise<void> {
  const reason = reasonOf(rawReason, "请填写删除原因");
  await db.transaction(async (tx) => {
    const [work] = await tx
      .select({ id: works.id, title: works.title, userId: works.userId, visibility: works.visibility })
      .from(works)
      .where(eq(works.id, workId))
      .for("update");
    if (!work) throw new DomainError(WORK_MISSING, 404);
    const [sold] = await tx.select({ id: workPurchases.id }).from(workPurchases).where(eq(workPurchases.workId, workId)).limit(1);
    const [soldChapter] = await tx.select({ id: chapterPurchases.id }).from(chapterPurchases).where(eq(chapterPurchases.workId, workId)).limit(1);
    if (sold || soldChapter) throw new DomainError("已有读者购买的作品不能删除，请改为下架", 409);
    await tx.delete(works).where(eq(works.id, workId));
    await recordAdminAction(tx, actor, { action: "work.delete", targetType: "work", targetId: workId, before: work, reason });
  });
}
