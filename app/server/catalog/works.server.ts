import { and, asc, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapterPurchases, chapters, favorites, profiles, workPurchases, works } from "~/db/schema";
import { WORK_MESSAGES, type PublishInput } from "~/schemas/work";
import { pageWithin } from "~/utils/pagination";
import { countWords } from "~/utils/text";
import { chapterOrder } from "./chapter-numbers.server";
import { insertJsonBatches } from "~/server/platform/db-utils.server";
import { GAP } from "~/server/catalog/chapter-positions.server";
import { labelWorkChapters, workAiLevelSql } from "~/server/catalog/ai-labels.server";
import { DomainError } from "~/server/platform/errors.server";
import { substringMatch, workCardColumns, type WorkCard } from "./search-sql.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import type { SessionUser } from "~/server/identity/session.server";

export type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi"> | null;
export type Work = typeof works.$inferSelect;

export interface ChapterInput {
  title: string;
  content: string;
}

/**
 * Inserts a new work's chapters itself (the n-th at position n × GAP) and returns how
 * many: for chapters the database already holds, such as a staged TXT import.
 */
export type ChapterInserter = (tx: Executor, workId: number) => Promise<number>;

function notFound(): DomainError {
  return new DomainError(WORK_MESSAGES.notFound, 404);
}

/**
 * Inserts chapters in JSON batches (insertJsonBatches: no statement carries thousands
 * of bind parameters or megabytes of JSON). The chapters may be produced as they are
 * inserted (a TXT being parsed). Returns how many were inserted.
 */
function insertChapters(tx: Executor, workId: number, list: Iterable<ChapterInput>): Promise<number> {
  let n = 0;
  const rows = (function* () {
    for (const c of list) yield { title: c.title, content: c.content, position: ++n * GAP, word_count: countWords(c.content) };
  })();
  return insertJsonBatches(
    rows,
    (r) => r.content.length,
    (json) =>
      tx.execute(sql`
        insert into ${chapters} (work_id, title, content, position, word_count)
        select ${workId}, r.title, r.content, r.position, r.word_count
        from jsonb_to_recordset(${json}::jsonb)
          as r(title text, content text, position bigint, word_count int)`),
  );
}

/** docs/product.md D5: word_count and chapter_count follow every chapter write; they count published chapters only (D12). */
export async function refreshWorkCounts(tx: Executor, workId: number): Promise<void> {
  await tx
    .update(works)
    .set({
      wordCount: sql`(select coalesce(sum(${chapters.wordCount}), 0)::int from ${chapters} where ${chapters.workId} = ${workId} and ${chapters.state} = 'published' and ${chapters.kind} = 'chapter')`,
      chapterCount: sql`(select count(*)::int from ${chapters} where ${chapters.workId} = ${workId} and ${chapters.state} = 'published' and ${chapters.kind} = 'chapter')`,
      aiLevel: workAiLevelSql(workId),
      updatedAt: new Date(),
    })
    .where(eq(works.id, workId));
}

/**
 * Publishes a work with its chapters in one transaction: any failure leaves nothing.
 * `chapterList` is what the type needs: the body as 正文, the parsed TXT, or the
 * series' first chapter; or an inserter for chapters the database already holds.
 */
export async function createWork(
  userId: string,
  input: Omit<PublishInput, "content" | "chapterTitle" | "chapterContent" | "separator" | "importToken" | "categoryId"> & {
    categoryId?: number | null;
  },
  chapterList: Iterable<ChapterInput> | ChapterInserter,
  coverUrl: string | null,
  /** Records the publish form's token with the new work (form-tokens.server.ts). */
  record?: RecordResult,
): Promise<Work> {
  if (Array.isArray(chapterList) && chapterList.length === 0) throw new DomainError(WORK_MESSAGES.content, 400);
  return db.transaction(async (tx) => {
    const [work] = await tx
      .insert(works)
      .values({
        userId,
        title: input.title,
        description: input.description,
        coverUrl,
        type: input.type,
        status: input.status,
        visibility: input.visibility,
        rating: input.rating,
        isAiGenerated: input.isAiGenerated,
        price: 0,
        categoryId: input.categoryId ?? null,
        completedAt: input.status === "completed" ? new Date() : null,
      })
      .returning();
    const inserted =
      typeof chapterList === "function" ? await chapterList(tx, work.id) : await insertChapters(tx, work.id, chapterList);
    if (inserted === 0) throw new DomainError(WORK_MESSAGES.content, 400);
    await labelWorkChapters(tx, userId, work.id);
    await refreshWorkCounts(tx, work.id);
    await record?.(tx, work.id);
    const [fresh] = await tx.select().from(works).where(eq(works.id, work.id));
    return fresh;
  });
}

/** The work if `userId` owns it; 404 otherwise (another user's work is not revealed). */
export async function getOwnedWork(userId: string, workId: number, tx: Executor = db): Promise<Work> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw notFound();
  const [work] = await tx.select().from(works).where(and(eq(works.id, workId), eq(works.userId, userId)));
  if (!work) throw notFound();
  return work;
}

export type ListingAction =
  | { intent: "set-price"; price: number }
  | { intent: "make-free" }
  | { intent: "take-down" }
  | { intent: "put-on-shelf" };

/**
 * docs/product.md D3: paid→free (public, 0); free→paid (public-vip, price); take down
 * (private, 0); put on shelf (private→public, 0). Only the owner; checked in the UPDATE.
 */
export async function updateListing(userId: string, workId: number, action: ListingAction): Promise<Work> {
  const next =
    action.intent === "set-price"
      ? // A price is a whole-work price: the work is sold whole from now on (decision 110).
        { visibility: "public-vip" as const, price: action.price, saleMode: "whole" as const, vipFrom: null, pricePerThousand: null }
      : action.intent === "take-down"
        ? { visibility: "private" as const, price: 0 }
        : { visibility: "public" as const, price: 0 };
  if (action.intent === "set-price" && (!Number.isSafeInteger(action.price) || action.price < 1)) {
    throw new DomainError(WORK_MESSAGES.price, 400, "price");
  }
  const [work] = await db
    .update(works)
    .set({ ...next, updatedAt: new Date() })
    .where(and(eq(works.id, workId), eq(works.userId, userId), isNull(works.takenDownAt), isNull(works.reviewListing)))
    .returning();
  if (!work) {
    const owned = await getOwnedWork(userId, workId);
    // Only an administrator's restore brings a taken-down work back (decision 138).
    if (owned.takenDownAt) throw new DomainError(takenDownMessage(owned.takedownReason), 409);
    if (owned.reviewListing) throw new DomainError(WORK_MESSAGES.underReview, 409);
    throw notFound();
  }
  return work;
}

/** What the owner of a taken-down work is told (decision 138). */
function takenDownMessage(reason: string | null): string {
  return `该作品已被管理员下架，原因：${reason ?? ""}。如有疑问请联系管理员`;
}

/** Deletes a work and (by cascade) its chapters, favourites and purchases. @internal */
export const SOLD_WORK_UNDELETABLE = "已有读者购买的作品不能删除，你可以将它下架";

/**
 * Deletes a work and (by cascade) its chapters and favourites. A work someone has
 * bought is not deleted: buyers keep what they paid for (it can be taken down instead).
 */
export async function deleteWork(userId: string, workId: number): Promise<Work> {
  return db.transaction(async (tx) => {
    const work = await getOwnedWork(userId, workId, tx);
    const [sold] = await tx.select({ id: workPurchases.id }).from(workPurchases).where(eq(workPurchases.workId, work.id)).limit(1);
    // Bought chapters count too (docs/product.md#paying-by-chapter).
    const [soldChapter] = sold
      ? [sold]
      : await tx.select({ id: chapterPurchases.id }).from(chapterPurchases).where(eq(chapterPurchases.workId, work.id)).limit(1);
    if (sold || soldChapter) throw new DomainError(SOLD_WORK_UNDELETABLE, 409);
    await tx.delete(works).where(eq(works.id, work.id));
    return work;
  });
}

export async function listChapterHeads(workId: number, tx: Executor = db) {
  return tx
    .select({ id: chapters.id, title: chapters.title, wordCount: chapters.wordCount })
    .from(chapters)
    .where(eq(chapters.workId, workId))
    .orderBy(...chapterOrder)
    .then((rows) => rows.map((r, i) => ({ ...r, order: i + 1 })));
}

const MY_WORKS_PAGE_SIZE = 12;
export type MyWorksTab = "paid" | "free" | "private";
const TAB_VISIBILITY = { paid: "public-vip", free: "public", private: "private" } as const;

export function tabOfVisibility(visibility: Work["visibility"]): MyWorksTab {
  return visibility === "public-vip" ? "paid" : visibility === "public" ? "free" : "private";
}

/** /my-works: one tab, newest or oldest first, optional search, 12 a page. */
export async function listMyWorks(
  userId: string,
  opts: { tab: MyWorksTab; sort: "newest" | "oldest"; query: string; page: number },
) {
  const where = and(
    eq(works.userId, userId),
    eq(works.visibility, TAB_VISIBILITY[opts.tab]),
    substringMatch(opts.query),
  ) as SQL;
  const order = opts.sort === "oldest" ? [asc(works.createdAt), asc(works.id)] : [desc(works.createdAt), desc(works.id)];
  const [{ n: total }] = await db.select({ n: sql<number>`count(*)::int` }).from(works).where(where);
  const { page, pageCount } = pageWithin(opts.page, total, MY_WORKS_PAGE_SIZE);
  const rows = await db
    .select({ ...workCardColumns, takedownReason: works.takedownReason })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(where)
    .orderBy(...order)
    .limit(MY_WORKS_PAGE_SIZE)
    .offset((page - 1) * MY_WORKS_PAGE_SIZE);
  return { works: rows as (WorkCard & { takedownReason: string | null })[], total, page, pageCount };
}

/** Whether the viewer has bought the work (owners never need to). */
export async function hasPurchased(userId: string, workId: number, tx: Executor = db): Promise<boolean> {
  const rows = await tx
    .select({ id: workPurchases.id })
    .from(workPurchases)
    .where(and(eq(workPurchases.userId, userId), eq(workPurchases.workId, workId)));
  return rows.length > 0;
}

export async function isFavorited(userId: string, workId: number): Promise<boolean> {
  const rows = await db
    .select({ w: favorites.workId })
    .from(favorites)
    .where(and(eq(favorites.userId, userId), eq(favorites.workId, workId)));
  return rows.length > 0;
}

type WorkGate = "ok" | "login-for-r18" | "enable-r18";

/**
 * Who may open a work page (docs/product.md: D5, Roles): private works only
 * their owner (others get 404); r18 works need a signed-in user with show_r18 on.
 * Paid content is a separate check (canReadContent).
 */
export async function getWorkForViewer(workId: number, viewer: Viewer) {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw notFound();
  const [row] = await db
    .select({ work: works, authorNickname: profiles.nickname, authorAvatarUrl: profiles.avatarUrl })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(eq(works.id, workId));
  if (!row) throw notFound();
  const { work } = row;
  const isOwner = viewer?.id === work.userId;
  // Taken down by an administrator: only the owner still sees it, buyers included (decision 138).
  if (work.takenDownAt && !isOwner) throw notFound();
  // A buyer keeps what they paid for: a paid work taken down stays readable to them.
  const purchased = viewer && !isOwner && work.visibility !== "public" ? await hasPurchased(viewer.id, work.id) : false;
  if (work.visibility === "private" && !isOwner && !purchased) throw notFound();
  let gate: WorkGate = "ok";
  if (work.rating === "r18" && !isOwner) {
    if (!viewer) gate = "login-for-r18";
    else if (!viewer.showR18) gate = "enable-r18";
  }
  const canReadContent = gate === "ok" && (isOwner || work.visibility === "public" || purchased);
  return {
    work,
    author: { nickname: row.authorNickname, avatarUrl: row.authorAvatarUrl },
    isOwner,
    purchased,
    gate,
    canReadContent,
  };
}
