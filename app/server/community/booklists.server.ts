import { and, asc, desc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { db, type Executor } from "~/db/client.server";
import { booklistEntries, booklistFollows, booklists, listedVisibility, profiles, users, works } from "~/db/schema";
import {
  BOOKLIST_DESCRIPTION_MAX,
  BOOKLIST_MAX_ENTRIES,
  BOOKLIST_MAX_PER_USER,
  BOOKLIST_NOTE_MAX,
  BOOKLIST_TITLE_MAX,
} from "~/schemas/booklists";
import { listedFor, workCardColumns, type WorkCard } from "~/server/catalog/search-sql.server";
import type { Viewer } from "~/server/catalog/works.server";
import { banActive } from "~/server/identity/auth.server";
import { DomainError } from "~/server/platform/errors.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { maskTexts, refuseForbidden } from "~/server/screening/screening.server";
import { pageWithin } from "~/utils/pagination";
import type { BooklistCard, BooklistEditEntry } from "~/types/booklists";

/**
 * 书单 (docs/product.md#booklists, decision 232): a reader's public lists of works, each
 * entry with the owner's note; others follow a list; /booklists shows the most followed and
 * the newest. A list's page shows only the works the viewer may see anywhere else (the
 * catalog's `listedFor`: public or paid, within the viewer's R-18 and AI settings). Titles,
 * descriptions and notes are screened like comments: 禁止 refuses naming the words, 替换
 * masks where shown, a 审核 word refuses (no review queue place, as 书评, decision 211).
 */

const LISTS_PAGE_SIZE = 20;
const ENTRIES_PAGE_SIZE = 30;

/** @internal The messages, for tests to compare against. */
export const BOOKLIST_MESSAGES = {
  notFound: "书单不存在或已被删除",
  notOwner: "只能修改自己的书单",
  titleEmpty: "请填写书单名称",
  titleTooLong: `书单名称最多 ${BOOKLIST_TITLE_MAX} 字`,
  descriptionTooLong: `书单简介最多 ${BOOKLIST_DESCRIPTION_MAX} 字`,
  noteTooLong: `推荐语最多 ${BOOKLIST_NOTE_MAX} 字`,
  held: "内容含有需要人工审核的词语，书单暂不接受此类内容，请修改后再保存",
  tooManyLists: `每人最多创建 ${BOOKLIST_MAX_PER_USER} 个书单，可以先删除不用的书单`,
  full: `一个书单最多收录 ${BOOKLIST_MAX_ENTRIES} 部作品，这个书单已经满了`,
  workHidden: "作品不存在，或暂时不能加入书单",
  duplicate: "这部作品已经在这个书单里了",
  noEntry: "这部作品不在这个书单里",
  chooseList: "请选择一个书单，或新建一个",
  self: "不能关注自己的书单",
  banned: "你的账号已被封禁，不能编辑书单",
  confirmDelete: "请勾选“确认删除”后再删除书单",
} as const;

type Reader = Pick<NonNullable<Viewer>, "id">;

/** A list's id as sent: a positive whole number, or 0 (which no list has). */
export function parseBooklistId(value: unknown): number {
  const n = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : typeof value === "number" ? value : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** A text as stored: trimmed, line breaks normalised, at most two in a row; its length checked in 字. */
function cleanText(raw: unknown, max: number, tooLong: string, field: string, empty?: string): string {
  const text = (typeof raw === "string" ? raw : "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (empty && (!text || isOnlyInvisible(text))) throw new DomainError(empty, 400, field);
  if (Array.from(text).length > max) throw new DomainError(tooLong, 400, field);
  return text;
}

const cleanTitle = (raw: unknown) => cleanText(typeof raw === "string" ? raw.replace(/\s+/g, " ") : raw, BOOKLIST_TITLE_MAX, BOOKLIST_MESSAGES.titleTooLong, "title", BOOKLIST_MESSAGES.titleEmpty);
const cleanDescription = (raw: unknown) => cleanText(raw, BOOKLIST_DESCRIPTION_MAX, BOOKLIST_MESSAGES.descriptionTooLong, "description");
const cleanNote = (raw: unknown) => cleanText(raw, BOOKLIST_NOTE_MAX, BOOKLIST_MESSAGES.noteTooLong, "note");

/** 禁止 refuses naming the words; a 审核 word refuses too (decision 232, as 书评). */
async function screen(fields: { label: string; field: string; text: string }[]): Promise<void> {
  const { held } = await refuseForbidden(fields);
  if (held) throw new DomainError(BOOKLIST_MESSAGES.held, 400, fields.find((f) => f.text)?.field);
}

/** A banned account edits nothing (a session cannot exist for one, but scripts and tests call these too). */
async function refuseBanned(user: Reader, tx: Executor): Promise<void> {
  const [row] = await tx.select({ banned: banActive }).from(users).where(eq(users.id, user.id));
  if (!row || row.banned) throw new DomainError(BOOKLIST_MESSAGES.banned, 403);
}

/**
 * The reader's own list, its row locked for the rest of `tx` (adding an entry counts them
 * under this lock): 404 for no such list, 403 for another reader's.
 */
async function ownList(user: Reader, listId: number, tx: Executor) {
  if (!Number.isSafeInteger(listId) || listId <= 0) throw new DomainError(BOOKLIST_MESSAGES.notFound, 404);
  const [row] = await tx.select({ id: booklists.id, userId: booklists.userId, title: booklists.title }).from(booklists).where(eq(booklists.id, listId)).for("update");
  if (!row) throw new DomainError(BOOKLIST_MESSAGES.notFound, 404);
  if (row.userId !== user.id) throw new DomainError(BOOKLIST_MESSAGES.notOwner, 403);
  return row;
}

/** A new list in `tx`, within the reader's limit (their user row locked, so two at once cannot both pass it). */
async function insertList(user: Reader, title: string, description: string, tx: Executor): Promise<number> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for("update");
  const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(booklists).where(eq(booklists.userId, user.id));
  if (Number(n) >= BOOKLIST_MAX_PER_USER) throw new DomainError(BOOKLIST_MESSAGES.tooManyLists, 400);
  const [row] = await tx.insert(booklists).values({ userId: user.id, title, description }).returning({ id: booklists.id });
  return row.id;
}

/** 新建书单. `record` writes the form's one-time token in the same transaction (decision 077). */
export async function createBooklist(user: Reader, input: { title: unknown; description: unknown }, record?: RecordResult): Promise<{ id: number }> {
  const title = cleanTitle(input.title);
  const description = cleanDescription(input.description);
  await screen([
    { label: "书单名称", field: "title", text: title },
    { label: "书单简介", field: "description", text: description },
  ]);
  return db.transaction(async (tx) => {
    await refuseBanned(user, tx);
    const id = await insertList(user, title, description, tx);
    await record?.(tx, id);
    return { id };
  });
}

/** The owner renames a list or rewrites its description. */
export async function updateBooklist(user: Reader, listId: number, input: { title: unknown; description: unknown }): Promise<void> {
  const title = cleanTitle(input.title);
  const description = cleanDescription(input.description);
  await screen([
    { label: "书单名称", field: "title", text: title },
    { label: "书单简介", field: "description", text: description },
  ]);
  await db.transaction(async (tx) => {
    await refuseBanned(user, tx);
    await ownList(user, listId, tx);
    await tx.update(booklists).set({ title, description, updatedAt: new Date() }).where(eq(booklists.id, listId));
  });
}

/** The owner deletes a list: its entries and followers go with it. Returns its title for the notice. */
export async function deleteBooklist(user: Reader, listId: number, confirmed: boolean): Promise<string> {
  return db.transaction(async (tx) => {
    const list = await ownList(user, listId, tx);
    if (!confirmed) throw new DomainError(BOOKLIST_MESSAGES.confirmDelete, 400, "confirm");
    await tx.delete(booklists).where(eq(booklists.id, list.id));
    return list.title;
  });
}

/** A work a reader may put in a list: one the catalog lists for them (public or paid, within their settings). */
async function listableWork(viewer: NonNullable<Viewer>, workId: number, tx: Executor) {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(BOOKLIST_MESSAGES.workHidden, 404);
  const [row] = await tx
    .select({ id: works.id, title: works.title })
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(and(eq(works.id, workId), ...listedFor(viewer)));
  if (!row) throw new DomainError(BOOKLIST_MESSAGES.workHidden, 404);
  return row;
}

/**
 * 加入书单: the work into one of the reader's lists (`list`, an id) or into a new one
 * (`list` = "new", with `title`), with a note. One transaction: a new list whose entry is
 * refused is not made. A duplicate (the primary key list + work decides, even for two at
 * once) and a full list are refused with their messages.
 */
export async function addToBooklist(
  user: NonNullable<Viewer>,
  workId: number,
  input: { list: unknown; title: unknown; note: unknown },
  record?: RecordResult,
): Promise<{ listId: number; title: string; workTitle: string }> {
  const note = cleanNote(input.note);
  const isNew = input.list === "new";
  const listId = isNew ? 0 : parseBooklistId(input.list);
  if (!isNew && listId === 0) throw new DomainError(BOOKLIST_MESSAGES.chooseList, 400, "list");
  const newTitle = isNew ? cleanTitle(input.title) : "";
  await screen([
    { label: "书单名称", field: "title", text: newTitle },
    { label: "推荐语", field: "note", text: note },
  ]);
  return db.transaction(async (tx) => {
    await refuseBanned(user, tx);
    const work = await listableWork(user, workId, tx);
    const list = isNew ? { id: await insertList(user, newTitle, "", tx), title: newTitle } : await ownList(user, listId, tx);
    const [{ n, last }] = await tx
      .select({ n: sql<number>`count(*)::int`, last: sql<number>`coalesce(max(${booklistEntries.position}), 0)::int` })
      .from(booklistEntries)
      .where(eq(booklistEntries.booklistId, list.id));
    if (Number(n) >= BOOKLIST_MAX_ENTRIES) throw new DomainError(BOOKLIST_MESSAGES.full, 400, "list");
    const [added] = await tx
      .insert(booklistEntries)
      .values({ booklistId: list.id, workId: work.id, note, position: Number(last) + 1 })
      .onConflictDoNothing()
      .returning({ workId: booklistEntries.workId });
    if (!added) throw new DomainError(BOOKLIST_MESSAGES.duplicate, 409, "list");
    await tx.update(booklists).set({ updatedAt: new Date() }).where(eq(booklists.id, list.id));
    await record?.(tx, list.id);
    return { listId: list.id, title: list.title, workTitle: work.title };
  });
}

/** The title of a reader's list, for a replayed 加入书单 / 新建书单 (the form's token found). */
export async function booklistTitle(user: Reader, listId: number): Promise<string | null> {
  const [row] = await db.select({ title: booklists.title }).from(booklists).where(and(eq(booklists.id, listId), eq(booklists.userId, user.id)));
  return row?.title ?? null;
}

/** The owner rewrites an entry's note (empty: no note). */
export async function setEntryNote(user: Reader, listId: number, workId: number, raw: unknown): Promise<void> {
  const note = cleanNote(raw);
  await screen([{ label: "推荐语", field: "note", text: note }]);
  await db.transaction(async (tx) => {
    await refuseBanned(user, tx);
    await ownList(user, listId, tx);
    const changed = await tx
      .update(booklistEntries)
      .set({ note })
      .where(and(eq(booklistEntries.booklistId, listId), eq(booklistEntries.workId, workId)))
      .returning({ workId: booklistEntries.workId });
    if (changed.length === 0) throw new DomainError(BOOKLIST_MESSAGES.noEntry, 404);
  });
}

/** The owner removes a work from a list. */
export async function removeEntry(user: Reader, listId: number, workId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await ownList(user, listId, tx);
    const removed = await tx
      .delete(booklistEntries)
      .where(and(eq(booklistEntries.booklistId, listId), eq(booklistEntries.workId, workId)))
      .returning({ workId: booklistEntries.workId });
    if (removed.length === 0) throw new DomainError(BOOKLIST_MESSAGES.noEntry, 404);
  });
}

/**
 * The owner moves an entry: 上移 and 下移 swap it with its neighbour, 置顶 puts it first.
 * At the top (or bottom) already, nothing changes.
 */
export async function moveEntry(user: Reader, listId: number, workId: number, how: "up" | "down" | "top"): Promise<void> {
  await db.transaction(async (tx) => {
    await ownList(user, listId, tx);
    const [entry] = await tx
      .select({ position: booklistEntries.position })
      .from(booklistEntries)
      .where(and(eq(booklistEntries.booklistId, listId), eq(booklistEntries.workId, workId)));
    if (!entry) throw new DomainError(BOOKLIST_MESSAGES.noEntry, 404);
    const inList = eq(booklistEntries.booklistId, listId);
    if (how === "top") {
      const [{ first }] = await tx.select({ first: sql<number>`min(${booklistEntries.position})::int` }).from(booklistEntries).where(inList);
      if (Number(first) < entry.position) {
        await tx.update(booklistEntries).set({ position: Number(first) - 1 }).where(and(inList, eq(booklistEntries.workId, workId)));
      }
      return;
    }
    const [neighbour] = await tx
      .select({ workId: booklistEntries.workId, position: booklistEntries.position })
      .from(booklistEntries)
      .where(and(inList, how === "up" ? lt(booklistEntries.position, entry.position) : gt(booklistEntries.position, entry.position)))
      .orderBy(how === "up" ? desc(booklistEntries.position) : asc(booklistEntries.position))
      .limit(1);
    if (!neighbour) return;
    await tx.update(booklistEntries).set({ position: neighbour.position }).where(and(inList, eq(booklistEntries.workId, workId)));
    await tx.update(booklistEntries).set({ position: entry.position }).where(and(inList, eq(booklistEntries.workId, neighbour.workId)));
  });
}

/** 关注书单 (`on`) or 取消关注: idempotent; the follower count moves only when the state does. */
export async function setBooklistFollow(user: Reader, listId: number, on: boolean): Promise<boolean> {
  const id = parseBooklistId(listId);
  const [list] = id ? await db.select({ id: booklists.id, userId: booklists.userId }).from(booklists).where(eq(booklists.id, id)) : [];
  if (!list) throw new DomainError(BOOKLIST_MESSAGES.notFound, 404);
  if (on && list.userId === user.id) throw new DomainError(BOOKLIST_MESSAGES.self, 400);
  await db.transaction(async (tx) => {
    const changed = on
      ? await tx.insert(booklistFollows).values({ booklistId: list.id, userId: user.id }).onConflictDoNothing().returning({ id: booklistFollows.booklistId })
      : await tx
          .delete(booklistFollows)
          .where(and(eq(booklistFollows.booklistId, list.id), eq(booklistFollows.userId, user.id)))
          .returning({ id: booklistFollows.booklistId });
    if (changed.length === 0) return;
    await tx
      .update(booklists)
      .set({ followerCount: sql`greatest(0, ${booklists.followerCount} + ${on ? 1 : -1})` })
      .where(eq(booklists.id, list.id));
  });
  return on;
}

/**
 * A closed account's follows of lists (注销账号, decision 231), inside its transaction: each
 * list it followed counts one follower fewer, as an 取消关注 would.
 */
export async function forgetBooklistFollows(tx: Executor, userId: string): Promise<void> {
  const gone = await tx.delete(booklistFollows).where(eq(booklistFollows.userId, userId)).returning({ id: booklistFollows.booklistId });
  if (gone.length === 0) return;
  await tx
    .update(booklists)
    .set({ followerCount: sql`greatest(0, ${booklists.followerCount} - 1)` })
    .where(inArray(booklists.id, gone.map((g) => g.id)));
}

/** The entries of the list in `booklists.id` this viewer may see: the catalog's own listing rule. */
function visibleEntries(viewer: Viewer): SQL {
  return sql`(select count(*)::int from ${booklistEntries} be join ${works} on ${works.id} = be.work_id where be.booklist_id = ${booklists.id} and ${and(...listedFor(viewer))})`;
}

const owner = alias(profiles, "owner");

/** Lists shown to others: their owner is not banned now (as comments and 书评 hide a banned writer's, decision 137). */
const ownerInGoodStanding: SQL = sql`not exists (select 1 from ${users} bu where bu.id = ${booklists.userId} and bu.banned_at is not null and (bu.banned_until is null or bu.banned_until > now()))`;

function selectCards(viewer: Viewer) {
  return db
    .select({
      id: booklists.id,
      title: booklists.title,
      description: booklists.description,
      ownerId: booklists.userId,
      ownerNickname: owner.nickname,
      followers: booklists.followerCount,
      updatedAt: booklists.updatedAt,
      works: sql<number>`${visibleEntries(viewer)}`.mapWith(Number),
    })
    .from(booklists)
    .innerJoin(owner, eq(owner.id, booklists.userId))
    .$dynamic();
}

async function shapeCards(rows: Awaited<ReturnType<typeof selectCards>>): Promise<BooklistCard[]> {
  const titles = await maskTexts(rows.map((r) => r.title));
  const descriptions = await maskTexts(rows.map((r) => r.description));
  return rows.map((r, i) => ({
    id: r.id,
    title: titles[i] ?? r.title,
    description: descriptions[i] ?? r.description,
    owner: { id: r.ownerId, nickname: r.ownerNickname },
    works: r.works,
    followers: r.followers,
    updatedAt: r.updatedAt.toISOString(),
  }));
}

export type BooklistSort = "popular" | "new";

export function parseBooklistSort(value: string | null): BooklistSort {
  return value === "new" ? "new" : "popular";
}

/**
 * /booklists: 热门 (most followers first) or 最新 (newest first), 20 a page, only lists with
 * a work this viewer may see (an empty list, or one of hidden works only, is no shelf to browse).
 */
export async function listBooklists(viewer: Viewer, sort: BooklistSort, requested: number) {
  const where = and(sql`${visibleEntries(viewer)} > 0`, ownerInGoodStanding);
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(booklists).where(where);
  const { page, pageCount } = pageWithin(requested, Number(total), LISTS_PAGE_SIZE);
  const order = sort === "new" ? [desc(booklists.createdAt), desc(booklists.id)] : [desc(booklists.followerCount), desc(booklists.id)];
  const rows = await selectCards(viewer)
    .where(where)
    .orderBy(...order)
    .limit(LISTS_PAGE_SIZE)
    .offset((page - 1) * LISTS_PAGE_SIZE);
  return { lists: await shapeCards(rows), sort, total: Number(total), page, pageCount };
}

/** A person's lists on their author page: those with a work this viewer may see, most followed first. */
export async function booklistsOf(userId: string, viewer: Viewer): Promise<BooklistCard[]> {
  const rows = await selectCards(viewer)
    .where(and(eq(booklists.userId, userId), sql`${visibleEntries(viewer)} > 0`, ownerInGoodStanding))
    .orderBy(desc(booklists.followerCount), desc(booklists.id))
    .limit(BOOKLIST_MAX_PER_USER);
  return shapeCards(rows);
}

/** 我的书单: the reader's own lists (every one, empty ones too) and the lists they follow. */
export async function myBooklists(user: NonNullable<Viewer>): Promise<{ mine: BooklistCard[]; followed: BooklistCard[]; limit: number }> {
  const mine = await selectCards(user).where(eq(booklists.userId, user.id)).orderBy(desc(booklists.updatedAt), desc(booklists.id));
  const followed = await selectCards(user)
    .innerJoin(booklistFollows, and(eq(booklistFollows.booklistId, booklists.id), eq(booklistFollows.userId, user.id)))
    .orderBy(desc(booklistFollows.createdAt))
    .limit(100);
  return { mine: await shapeCards(mine), followed: await shapeCards(followed), limit: BOOKLIST_MAX_PER_USER };
}

export interface BooklistPage {
  list: BooklistCard & { createdAt: string; ownerAvatarUrl: string | null };
  entries: { work: WorkCard; note: string }[];
  isOwner: boolean;
  following: boolean;
  /** For the owner: entries readers cannot see now (private, taken down, or outside the owner's own settings). */
  hiddenCount: number;
  page: number;
  pageCount: number;
}

/** `/booklists/:id`: the list, its owner, and the page's works this viewer may see, in the owner's order. */
export async function getBooklistPage(listId: number, viewer: Viewer, requested: number): Promise<BooklistPage> {
  const id = parseBooklistId(listId);
  // A banned owner's list is shown to its owner only.
  const shown = viewer ? or(ownerInGoodStanding, eq(booklists.userId, viewer.id)) : ownerInGoodStanding;
  const [[cardRow], [extra]] = id
    ? await Promise.all([
        selectCards(viewer).where(and(eq(booklists.id, id), shown)),
        db.select({ createdAt: booklists.createdAt, avatarUrl: owner.avatarUrl }).from(booklists).innerJoin(owner, eq(owner.id, booklists.userId)).where(eq(booklists.id, id)),
      ])
    : [[], []];
  const row = cardRow && extra ? { card: cardRow, ...extra } : null;
  if (!row) throw new DomainError(BOOKLIST_MESSAGES.notFound, 404);
  const [card] = await shapeCards([row.card]);
  const isOwner = viewer?.id === card.owner.id;
  const { page, pageCount } = pageWithin(requested, card.works, ENTRIES_PAGE_SIZE);
  const rows = await db
    .select({ ...workCardColumns, note: booklistEntries.note })
    .from(booklistEntries)
    .innerJoin(works, eq(works.id, booklistEntries.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(and(eq(booklistEntries.booklistId, id), ...listedFor(viewer)))
    .orderBy(asc(booklistEntries.position), asc(booklistEntries.createdAt))
    .limit(ENTRIES_PAGE_SIZE)
    .offset((page - 1) * ENTRIES_PAGE_SIZE);
  const notes = await maskTexts(rows.map((r) => r.note));
  let hiddenCount = 0;
  if (isOwner) {
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(booklistEntries).where(eq(booklistEntries.booklistId, id));
    hiddenCount = Number(n) - card.works;
  }
  const following = viewer && !isOwner ? await isFollowing(viewer.id, id) : false;
  return {
    list: { ...card, createdAt: row.createdAt.toISOString(), ownerAvatarUrl: row.avatarUrl },
    entries: rows.map(({ note, ...work }, i) => ({ work: work as WorkCard, note: notes[i] ?? note })),
    isOwner,
    following,
    hiddenCount,
    page,
    pageCount,
  };
}

async function isFollowing(userId: string, listId: number): Promise<boolean> {
  const [row] = await db
    .select({ one: sql`1` })
    .from(booklistFollows)
    .where(and(eq(booklistFollows.booklistId, listId), eq(booklistFollows.userId, userId)));
  return Boolean(row);
}

/** The owner's edit page: the list's own words (unmasked) and every entry, with whether readers can see it. */
export async function getBooklistForEdit(
  user: Reader,
  listId: number,
): Promise<{ id: number; title: string; description: string; entries: BooklistEditEntry[] }> {
  const id = parseBooklistId(listId);
  const [list] = id ? await db.select().from(booklists).where(eq(booklists.id, id)) : [];
  if (!list) throw new DomainError(BOOKLIST_MESSAGES.notFound, 404);
  if (list.userId !== user.id) throw new DomainError(BOOKLIST_MESSAGES.notOwner, 403);
  const rows = await db
    .select({
      workId: booklistEntries.workId,
      title: works.title,
      authorNickname: profiles.nickname,
      note: booklistEntries.note,
      listed: sql<boolean>`${listedVisibility(works.visibility)}`,
    })
    .from(booklistEntries)
    .innerJoin(works, eq(works.id, booklistEntries.workId))
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(eq(booklistEntries.booklistId, id))
    .orderBy(asc(booklistEntries.position), asc(booklistEntries.createdAt));
  return { id: list.id, title: list.title, description: list.description, entries: rows };
}

/**
 * 加入书单's page: the work (which the reader may list) and the reader's lists, each saying
 * whether the work is in it already.
 */
export async function addToBooklistChoices(user: NonNullable<Viewer>, workId: number) {
  const work = await listableWork(user, workId, db);
  const lists = await db
    .select({
      id: booklists.id,
      title: booklists.title,
      has: sql<boolean>`exists (select 1 from ${booklistEntries} be where be.booklist_id = ${booklists.id} and be.work_id = ${work.id})`,
    })
    .from(booklists)
    .where(eq(booklists.userId, user.id))
    .orderBy(desc(booklists.updatedAt), desc(booklists.id));
  const titles = await maskTexts(lists.map((l) => l.title));
  return {
    work,
    lists: lists.map((l, i) => ({ id: l.id, title: titles[i] ?? l.title, has: l.has })),
    canCreate: lists.length < BOOKLIST_MAX_PER_USER,
  };
}
