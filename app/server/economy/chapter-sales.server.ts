import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { autoSubscriptions, chapterPurchases, chapters, credits, works } from "~/db/schema";
import { chapterNumber, isPublished } from "~/server/catalog/chapter-numbers.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { chapterPriceSql, discountedTotal, getEconomySettings } from "./economy-settings.server";
import { DomainError } from "~/server/platform/errors.server";
import { WORK_MESSAGES } from "~/schemas/work";
import { notifyUserChanged } from "~/server/platform/events.server";
import { creditSale } from "./sale-income.server";
import { chargeMinorSpend } from "./minor-caps.server";
import { notifyWorkPurchased } from "~/server/community/notifications.server";
import { addFanValue } from "~/server/community/fans.server";
import { debit, LEDGER_MESSAGES, LedgerError } from "./ledger.server";
import { getWorkForViewer, hasPurchased, type Viewer } from "~/server/catalog/works.server";
import { isByChapter } from "~/server/catalog/chapter-access.server";
import { requireVerifiedIdentity } from "~/server/identity/author-identity.server";

/**
 * Paying by chapter (docs/product.md#paying-by-chapter, D13, decision 110). A work sold by
 * chapter has VIP chapters from number `vipFrom` on; each has a price fixed when it was
 * published. A reader owns a VIP chapter by buying it (chapter_purchases) or by having
 * bought the work whole. Each purchase is one transaction: the work row locked FOR SHARE
 * (a publish, move or delete takes it FOR UPDATE, so chapter numbers and the set of VIP
 * chapters hold still), the purchase rows (unique per reader and chapter: a concurrent
 * second purchase waits and then finds it), the buyer's debit and the author's income.
 */

/** @internal */
export const SALE_MESSAGES = {
  chapterMissing: "章节不存在",
  notByChapter: "该作品不按章销售",
  freeChapter: "本章免费，无需购买",
  nothingToBuy: "你已拥有全部VIP章节",
  priceChanged: (total: number) => `作品有新章节，购买全部现需 ${total} 积分，请确认后再购买`,
} as const;

type SaleWork = Pick<typeof works.$inferSelect, "id" | "userId" | "title" | "visibility" | "saleMode" | "vipFrom" | "pricePerThousand">;

/** The work, locked FOR SHARE, if `userId` may buy its chapters; else a LedgerError, nothing written. */
async function lockWorkForSale(tx: Executor, userId: string, workId: number): Promise<SaleWork & { vipFrom: number }> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new LedgerError(LEDGER_MESSAGES.workMissing, 404);
  const [work] = await tx
    .select({
      id: works.id,
      userId: works.userId,
      title: works.title,
      visibility: works.visibility,
      saleMode: works.saleMode,
      vipFrom: works.vipFrom,
      pricePerThousand: works.pricePerThousand,
    })
    .from(works)
    .where(eq(works.id, workId))
    .for("share");
  if (!work || (work.visibility === "private" && work.userId !== userId)) throw new LedgerError(LEDGER_MESSAGES.workMissing, 404);
  if (work.userId === userId) throw new LedgerError(LEDGER_MESSAGES.ownWork, 403);
  if (!isByChapter(work)) throw new LedgerError(SALE_MESSAGES.notByChapter, 409);
  const [account] = await tx.select({ userId: credits.userId }).from(credits).where(eq(credits.userId, userId));
  if (!account) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  return work;
}

export type ChapterPurchaseResult =
  | { status: "purchased"; price: number; balance: number; order: number }
  | { status: "already-owned"; order: number };

/**
 * Buys one VIP chapter (by id, which a reorder does not change) at its fixed price. Owning
 * it already (bought, or the whole work bought) charges nothing. Refusals: a foreign, draft
 * or missing chapter (404), a free chapter (409), the buyer's own work (403), too few
 * credits (402): each a LedgerError with nothing written.
 */
export async function purchaseChapter(userId: string, workId: number, chapterId: number): Promise<ChapterPurchaseResult> {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) throw new LedgerError(SALE_MESSAGES.chapterMissing, 404);
  return db.transaction(async (tx) => {
    const work = await lockWorkForSale(tx, userId, workId);
    const [chapter] = await tx
      .select({ id: chapters.id, workId: chapters.workId, title: chapters.title, price: chapters.price, position: chapters.position })
      .from(chapters)
      .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), isPublished));
    if (!chapter) throw new LedgerError(SALE_MESSAGES.chapterMissing, 404);
    const order = await chapterNumber(tx, chapter);
    if (order < work.vipFrom) throw new LedgerError(SALE_MESSAGES.freeChapter, 409);
    if (await hasPurchased(userId, workId, tx)) return { status: "already-owned" as const, order };
    const price = Math.max(1, chapter.price);
    const inserted = await tx
      .insert(chapterPurchases)
      .values({ userId, chapterId, workId, price })
      .onConflictDoNothing({ target: [chapterPurchases.userId, chapterPurchases.chapterId] })
      .returning({ id: chapterPurchases.id });
    if (inserted.length === 0) return { status: "already-owned" as const, order };
    await chargeMinorSpend(tx, userId, price);
    const { balance } = await debit(tx, userId, price, `购买章节《${work.title}》第${order}章`);
    const settings = await getEconomySettings(tx);
    await creditSale(tx, work.userId, price, settings, { workId, chapterId, description: `《${work.title}》第${order}章 售出` });
    // 粉丝值: one per credit spent on the work (decision 207).
    await addFanValue(tx, userId, workId, price);
    // The author's inbox line (decision 115), in the sale's transaction.
    await notifyWorkPurchased(tx, { authorId: work.userId, buyerId: userId, workId, chapterIds: [chapterId] });
    await notifyUserChanged(userId, "purchases", tx);
    return { status: "purchased" as const, price, balance, order };
  });
}

/** The published VIP chapters of a work the user does not own yet, numbered, as a SQL source. */
function unownedVipChapters(userId: string | null, workId: number, vipFrom: number) {
  const owned = userId
    ? sql`and not exists (select 1 from ${chapterPurchases} p where p.user_id = ${userId} and p.chapter_id = o.id)`
    : sql``;
  return sql`(
    select o.id, o.price from (
      select id, price, row_number() over (order by position, id) as n
      from ${chapters} where work_id = ${workId} and state = 'published' and kind = 'chapter'
    ) o where o.n >= ${vipFrom} ${owned}
  ) as unowned`;
}

export interface AllChaptersQuote {
  count: number;
  /** The sum of the chapters' prices, and what 购买全部 charges after the discount. */
  sum: number;
  total: number;
  discountPercent: number;
}

/** What 购买全部 would buy and charge now (for the page; the purchase counts again). */
export async function quoteAllChapters(userId: string | null, work: SaleWork): Promise<AllChaptersQuote> {
  const settings = await getEconomySettings();
  if (!isByChapter(work)) return { count: 0, sum: 0, total: 0, discountPercent: settings.wholeBookDiscountPercent };
  const [row] = rowsOf<{ count: number | string; sum: number | string | null }>(
    await db.execute(sql`select count(*)::int as count, coalesce(sum(greatest(price, 1)), 0)::bigint as sum from ${unownedVipChapters(userId, work.id, work.vipFrom)}`),
  );
  const sum = Number(row?.sum ?? 0);
  return { count: Number(row?.count ?? 0), sum, total: discountedTotal(sum, settings), discountPercent: settings.wholeBookDiscountPercent };
}

export type AllChaptersResult =
  | { status: "purchased"; count: number; sum: number; total: number; balance: number }
  | { status: "nothing" };

/**
 * 购买全部: every published VIP chapter the reader does not own, at the sum of their fixed
 * prices less the site's discount, in one transaction (one INSERT ... SELECT for all of
 * them). The reader pays for exactly the chapters inserted. `confirmedTotal`, the total
 * the reader saw, guards against a chapter published since: a higher total is refused
 * (409, nothing written) with the new total in the message.
 */
export async function purchaseAllChapters(userId: string, workId: number, confirmedTotal?: number): Promise<AllChaptersResult> {
  return db.transaction(async (tx) => {
    const work = await lockWorkForSale(tx, userId, workId);
    if (await hasPurchased(userId, workId, tx)) return { status: "nothing" as const };
    const inserted = rowsOf<{ price: number | string; chapter_id: number | string }>(
      await tx.execute(sql`
        insert into ${chapterPurchases} (user_id, chapter_id, work_id, price)
        select ${userId}::uuid, unowned.id, ${workId}::bigint, greatest(unowned.price, 1)
        from ${unownedVipChapters(userId, workId, work.vipFrom)}
        on conflict on constraint chapter_purchases_user_chapter_unique do nothing
        returning price, chapter_id`),
    );
    if (inserted.length === 0) return { status: "nothing" as const };
    const settings = await getEconomySettings(tx);
    const sum = inserted.reduce((acc, r) => acc + Number(r.price), 0);
    const total = discountedTotal(sum, settings);
    if (confirmedTotal !== undefined && total > confirmedTotal) throw new LedgerError(SALE_MESSAGES.priceChanged(total), 409);
    let balance: number;
    if (total > 0) {
      await chargeMinorSpend(tx, userId, total);
      ({ balance } = await debit(tx, userId, total, `购买《${work.title}》全部章节（${inserted.length}章）`));
      await creditSale(tx, work.userId, total, settings, {
        workId,
        chapterId: null,
        description: `《${work.title}》购买全部 ${inserted.length}章 售出`,
      });
      await addFanValue(tx, userId, workId, total);
      await notifyWorkPurchased(tx, { authorId: work.userId, buyerId: userId, workId, chapterIds: inserted.map((r) => Number(r.chapter_id)) });
    } else {
      const [row] = await tx.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, userId));
      balance = Number(row.balance);
    }
    await notifyUserChanged(userId, "purchases", tx);
    return { status: "purchased" as const, count: inserted.length, sum, total, balance };
  });
}

/**
 * How many of a work's published chapters the user bought one by one, as a SQL expression
 * for a list's row (已购买's 已购 N/M 章, the bookshelf's 已购 N 章): `userId` and `workId`
 * are the row's columns or values. Reads the (user, work) index of chapter_purchases.
 */
export function ownedChapterCountSql(userId: SQL, workId: SQL): SQL<number> {
  return sql<number>`(select count(*)::int from ${chapterPurchases} cp
    join ${chapters} oc on oc.id = cp.chapter_id and oc.state = 'published'
    where cp.user_id = ${userId} and cp.work_id = ${workId})`;
}

/**
 * How many VIP chapters a work has now (its published chapters from number vip_from on), or
 * null when it is not sold by chapter, as a SQL expression for a list's row.
 */
export function vipChapterCountSql(workId: SQL): SQL<number | null> {
  return sql<number | null>`(select case when w.visibility = 'public-vip' and w.sale_mode = 'chapter' and w.vip_from is not null
      then greatest(0, (select count(*)::int from ${chapters} vc where vc.work_id = w.id and vc.state = 'published' and vc.kind = 'chapter') - (w.vip_from - 1))
    end from ${works} w where w.id = ${workId})`;
}

/** Which of these chapters the user bought one by one (for the table of contents). */
export async function ownedChapterIds(userId: string, chapterIds: number[]): Promise<Set<number>> {
  if (chapterIds.length === 0) return new Set();
  const rows = await db
    .select({ id: chapterPurchases.chapterId })
    .from(chapterPurchases)
    .where(and(eq(chapterPurchases.userId, userId), inArray(chapterPurchases.chapterId, chapterIds)));
  return new Set(rows.map((r) => Number(r.id)));
}

type View = Awaited<ReturnType<typeof getWorkForViewer>>;

/** A chapter's mark in the table of contents. */
export type ChapterMark = "free" | "locked" | "owned";

export function chapterMark(view: View, order: number, owned: boolean): ChapterMark | null {
  if (!isByChapter(view.work) || view.isOwner) return null;
  if (order < view.work.vipFrom) return "free";
  return view.purchased || owned ? "owned" : "locked";
}

// ---- 自动订阅 ----------------------------------------------------------------------------

export async function isAutoSubscribed(userId: string, workId: number): Promise<boolean> {
  const rows = await db
    .select({ w: autoSubscriptions.workId })
    .from(autoSubscriptions)
    .where(and(eq(autoSubscriptions.userId, userId), eq(autoSubscriptions.workId, workId)));
  return rows.length > 0;
}

/** Turns 自动订阅 on or off for a work the user may see and that is sold by chapter. */
export async function setAutoSubscribe(viewer: NonNullable<Viewer>, workId: number, on: boolean): Promise<void> {
  const view = await getWorkForViewer(workId, viewer);
  if (view.isOwner) throw new DomainError(LEDGER_MESSAGES.ownWork, 403);
  if (!isByChapter(view.work)) throw new DomainError(SALE_MESSAGES.notByChapter, 409);
  if (on) {
    await db.insert(autoSubscriptions).values({ userId: viewer.id, workId }).onConflictDoNothing();
  } else {
    await db.delete(autoSubscriptions).where(and(eq(autoSubscriptions.userId, viewer.id), eq(autoSubscriptions.workId, workId)));
  }
}

/**
 * 自动订阅's purchase: buys the chapter only if the reader turned 自动订阅 on for the work
 * (checked again here, not trusted from the page). Two tabs doing it at once charge once.
 */
export async function autoBuyChapter(userId: string, workId: number, chapterId: number): Promise<ChapterPurchaseResult | null> {
  if (!(await isAutoSubscribed(userId, workId))) return null;
  return purchaseChapter(userId, workId, chapterId);
}

// ---- The author's pricing (work settings) -----------------------------------------------

/** @internal */
export const PRICING_MESSAGES = {
  mode: "请选择销售方式",
  price: "请输入全本价格（正整数）",
  vipFrom: "请输入从第几章开始收费（正整数）",
  perThousand: (min: number, max: number) => `千字价须为 ${min} 到 ${max} 之间的整数`,
  privateWork: "作品未公开，请先上架再设置售价",
  notFound: "作品不存在",
} as const;

export interface PricingInput {
  mode: unknown;
  price?: unknown;
  vipFrom?: unknown;
  pricePerThousand?: unknown;
}

function positiveInt(value: unknown): number | null {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
  if (!/^\d{1,9}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 ? n : null;
}

/**
 * The owner sets how a public work is sold: 免费, 全本 (a whole-work price) or 按章 (VIP
 * from chapter N at a 千字价 within the site's range). Turning to 按章 prices every
 * published chapter now (decision 110); later chapters are priced when they are published.
 * Changing the 千字价 leaves published chapters' prices as they are.
 */
export async function setWorkPricing(userId: string, workId: number, input: PricingInput) {
  const mode = input.mode;
  if (mode !== "free" && mode !== "whole" && mode !== "chapter") throw new DomainError(PRICING_MESSAGES.mode, 400, "mode");
  const settings = await getEconomySettings();
  let price = 0;
  let vipFrom: number | null = null;
  let perThousand: number | null = null;
  if (mode === "whole") {
    price = positiveInt(input.price) ?? 0;
    if (price < 1) throw new DomainError(PRICING_MESSAGES.price, 400, "price");
  }
  if (mode === "chapter") {
    vipFrom = positiveInt(input.vipFrom);
    if (vipFrom === null) throw new DomainError(PRICING_MESSAGES.vipFrom, 400, "vipFrom");
    perThousand = positiveInt(input.pricePerThousand);
    if (perThousand === null || perThousand < settings.pricePerThousandMin || perThousand > settings.pricePerThousandMax) {
      throw new DomainError(PRICING_MESSAGES.perThousand(settings.pricePerThousandMin, settings.pricePerThousandMax), 400, "pricePerThousand");
    }
  }
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(PRICING_MESSAGES.notFound, 404);
  await db.transaction(async (tx) => {
    const [work] = await tx
      .select({ visibility: works.visibility, saleMode: works.saleMode, underReview: sql<boolean>`${works.reviewListing} is not null` })
      .from(works)
      .where(and(eq(works.id, workId), eq(works.userId, userId)))
      .for("update");
    if (!work) throw new DomainError(PRICING_MESSAGES.notFound, 404);
    if (work.underReview) throw new DomainError(WORK_MESSAGES.underReview, 409);
    if (work.visibility === "private") throw new DomainError(PRICING_MESSAGES.privateWork, 409);
    const wasByChapter = work.visibility === "public-vip" && work.saleMode === "chapter";
    // Turning VIP chapters on needs a verified author while the operator's switch is on (decision 205).
    if (mode === "chapter" && !wasByChapter) await requireVerifiedIdentity(tx, userId, "vip");
    await tx
      .update(works)
      .set({
        visibility: mode === "free" ? "public" : "public-vip",
        price,
        saleMode: mode === "chapter" ? "chapter" : "whole",
        vipFrom: mode === "chapter" ? vipFrom : null,
        pricePerThousand: mode === "chapter" ? perThousand : null,
        updatedAt: new Date(),
      })
      .where(eq(works.id, workId));
    if (mode === "chapter" && !wasByChapter) {
      await tx
        .update(chapters)
        .set({ price: chapterPriceSql(chapters.wordCount, perThousand) })
        .where(and(eq(chapters.workId, workId), isPublished));
    }
  });
}

/**
 * Fixes the price of chapters just published, inside their publishing transaction (from
 * onChaptersPublished): for a work sold by chapter, from its 千字价 and their length now.
 */
export async function priceNewlyPublished(tx: Executor, workId: number, chapterIds: number[]): Promise<void> {
  if (chapterIds.length === 0) return;
  await tx.execute(sql`
    update ${chapters} c set price = ${chapterPriceSql(sql`c.word_count`, sql`w.price_per_thousand`)}
    from ${works} w
    where w.id = c.work_id and c.work_id = ${workId} and c.kind = 'chapter' and w.sale_mode = 'chapter' and w.price_per_thousand is not null
      and c.id in (select unnest(${`{${chapterIds.join(",")}}`}::bigint[]))`);
}
