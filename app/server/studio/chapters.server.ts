import { and, asc, eq, gt, lt, ne, or, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapterPurchases, chapters, readingProgress, volumes, works } from "~/db/schema";
import { AUTHOR_NOTE_MAX, CHAPTER_KINDS, CHAPTER_TITLE_MAX, STUDIO_MESSAGES, type ChapterKind } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { publish } from "~/server/platform/events.server";
import { chapterAiColumns } from "~/server/catalog/ai-labels.server";
import { refreshWorkCounts, type Work } from "~/server/catalog/works.server";
import { formatShanghai } from "~/utils/shanghai-time";
import { positionsBefore, slotsOf, writePositions, type Slot } from "~/server/catalog/chapter-positions.server";
import { editReviews, holdEdit, reviewFacts, reviewNotes, reviewFollowsText, settleRelease } from "./review.server";
import { recordWritten } from "./writing-days.server";
import { isPublished } from "~/server/catalog/chapter-numbers.server";
import { readyScreening } from "~/server/screening/screening.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import type { ManagerRow } from "~/types/studio";
import { maskTexts, refuseForbidden, screenedName, type FieldScreen } from "~/server/screening/screening.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { hasControlCharacter } from "~/server/platform/form-data.server";

/**
 * The chapter manager's operations (docs/product.md#author-studio, decision 080): one
 * function each, called by the /works/:id/chapters action, the tests and bench:studio.
 * Each runs in one transaction that first locks the work's row, so two tabs editing
 * the same work take turns and never allocate the same gap; another user's work or a
 * chapter of another work is a 404 and nothing changes.
 */

const MANAGER_PAGE_SIZE = 100;

function notFound(): DomainError {
  return new DomainError(WORK_MESSAGES.notFound, 404);
}
export function chapterNotFound(): DomainError {
  return new DomainError(STUDIO_MESSAGES.chapterNotFound, 404);
}

/**
 * The owner's work, its row locked until the transaction ends. `FOR NO KEY UPDATE`: edits
 * of one work still take turns, but rows that merely point at the work (a follow, the
 * notification lines a delivery batch writes: their foreign-key checks take KEY SHARE) do
 * not make the author wait (decision 115).
 */
export async function lockOwnedWork(tx: Executor, userId: string, workId: number): Promise<Work> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw notFound();
  const [work] = await tx.select().from(works).where(and(eq(works.id, workId), eq(works.userId, userId))).for("no key update");
  if (!work) throw notFound();
  return work;
}

async function chapterOf(tx: Executor, workId: number, chapterId: number) {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) throw chapterNotFound();
  const [row] = await tx
    .select({ id: chapters.id, position: chapters.position, title: chapters.title, state: chapters.state, kind: chapters.kind })
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
  if (!row) throw chapterNotFound();
  return row;
}

async function volumeOf(tx: Executor, workId: number, volumeId: number) {
  if (!Number.isSafeInteger(volumeId) || volumeId <= 0) throw new DomainError(STUDIO_MESSAGES.volumeNotFound, 404);
  const [row] = await tx.select().from(volumes).where(and(eq(volumes.id, volumeId), eq(volumes.workId, workId)));
  if (!row) throw new DomainError(STUDIO_MESSAGES.volumeNotFound, 404);
  return row;
}

async function chapterTotal(tx: Executor, workId: number): Promise<number> {
  const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(chapters).where(eq(chapters.workId, workId));
  return n;
}

/** The chapter at 1-based `index` in the work's order, leaving one chapter out (the one moving). */
async function chapterAt(tx: Executor, workId: number, index: number, without: number | null) {
  const [row] = await tx
    .select({ id: chapters.id, position: chapters.position })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), without === null ? undefined : ne(chapters.id, without)))
    .orderBy(asc(chapters.position), asc(chapters.id))
    .offset(index - 1)
    .limit(1);
  return row ?? null;
}

/** Tells open pages the work changed (the `works` trigger covers the writes that touch its row). */
async function announce(tx: Executor, workId: number): Promise<void> {
  await publish({ topic: "work", workId }, tx);
}

function checkTitle(title: string): string {
  const t = title.trim();
  if (!t) throw new DomainError(STUDIO_MESSAGES.chapterTitle, 400, "title");
  if (Array.from(t).length > CHAPTER_TITLE_MAX) throw new DomainError(STUDIO_MESSAGES.chapterTitleTooLong, 400, "title");
  return t;
}

/**
 * A chapter title checked (1 to 100 characters) and as readers will see it: its 替换 words
 * masked with ＊ when written (decision 237). Screened for 禁止 and 审核 words by screenChapter.
 */
export async function chapterTitleOf(title: string): Promise<string> {
  return (await maskTexts([checkTitle(title)]))[0];
}

/** 作者的话 (decision 202): at most AUTHOR_NOTE_MAX characters, no control characters. */
export function checkAuthorNote(note: string): string {
  if (typeof note !== "string") throw new DomainError(STUDIO_MESSAGES.authorNoteTooLong, 400, "authorNote");
  if (Array.from(note).length > AUTHOR_NOTE_MAX) throw new DomainError(STUDIO_MESSAGES.authorNoteTooLong, 400, "authorNote");
  if (hasControlCharacter(note)) throw new DomainError(STUDIO_MESSAGES.authorNoteControl, 400, "authorNote");
  return note;
}

function positionError(total: number): DomainError {
  return new DomainError(STUDIO_MESSAGES.positionRange(total), 400, "to");
}

/** Moves a chapter so it becomes the `to`-th (1..total); it joins the volume of the chapter it lands before. */
export async function moveChapter(userId: string, workId: number, chapterId: number, to: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    const total = await chapterTotal(tx, workId);
    if (!Number.isSafeInteger(to) || to < 1 || to > total) throw positionError(total);
    const self: Slot = { kind: "chapter", id: chapter.id, position: chapter.position };
    let hi: number | null;
    if (to === total) {
      // The last place: after the last other chapter, before any volume heading after it.
      const last = await chapterAt(tx, workId, total - 1, chapter.id);
      hi = last ? await nextSlotPosition(tx, workId, last.position, self) : null;
    } else {
      hi = (await chapterAt(tx, workId, to, chapter.id))!.position;
    }
    const [position] = await positionsBefore(tx, workId, hi, 1, [self]);
    await tx.update(chapters).set({ position }).where(eq(chapters.id, chapter.id));
    await announce(tx, workId);
  });
}

/** The position of the first slot after `position` (skipping `exclude`), or null. */
async function nextSlotPosition(tx: Executor, workId: number, position: number, exclude: Slot): Promise<number | null> {
  const [row] = rowsOf<{ p: string | number | null }>(
    await tx.execute(sql`
      select least(
        (select min(position) from ${chapters} where work_id = ${workId} and position > ${position} and id <> ${exclude.kind === "chapter" ? exclude.id : 0}),
        (select min(position) from ${volumes} where work_id = ${workId} and position > ${position} and id <> ${exclude.kind === "volume" ? exclude.id : 0})
      ) as p`),
  );
  return row.p === null ? null : Number(row.p);
}

/**
 * One step up or down. A chapter first in its volume steps up to the end of the volume
 * (or the chapters without one) before it; last in its volume, it steps down to the
 * start of the next one. Already first (last) overall: a message.
 */
export async function stepChapter(userId: string, workId: number, chapterId: number, direction: "up" | "down"): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    const slots = await slotsOf(tx, workId);
    const at = slots.findIndex((s) => s.kind === "chapter" && s.id === chapter.id);
    const self = slots[at];
    let hi: number | null;
    if (direction === "up") {
      const before = slots[at - 1];
      if (!before) throw new DomainError(STUDIO_MESSAGES.alreadyFirst, 400);
      // Above a heading: to the end of the group before it; above a chapter: before it.
      hi = before.position;
    } else {
      const after = slots[at + 1];
      if (!after) throw new DomainError(STUDIO_MESSAGES.alreadyLast, 400);
      // Past the next chapter (staying in this volume), or past the next heading (the
      // first place of that volume).
      hi = slots[at + 2]?.position ?? null;
    }
    const [position] = await positionsBefore(tx, workId, hi, 1, [self]);
    await tx.update(chapters).set({ position }).where(eq(chapters.id, chapter.id));
    await announce(tx, workId);
  });
}

/** Moves a chapter to the end of a volume (null: to the end of the chapters before the first volume). */
export async function moveChapterToVolume(userId: string, workId: number, chapterId: number, volumeId: number | null): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    const self: Slot = { kind: "chapter", id: chapter.id, position: chapter.position };
    const heads = await tx.select().from(volumes).where(eq(volumes.workId, workId)).orderBy(asc(volumes.position), asc(volumes.id));
    let hi: number | null;
    if (volumeId === null) {
      hi = heads[0]?.position ?? null;
    } else {
      const i = heads.findIndex((v) => v.id === volumeId);
      if (i === -1) throw new DomainError(STUDIO_MESSAGES.volumeNotFound, 404);
      hi = heads[i + 1]?.position ?? null;
    }
    const [position] = await positionsBefore(tx, workId, hi, 1, [self]);
    await tx.update(chapters).set({ position }).where(eq(chapters.id, chapter.id));
    await announce(tx, workId);
  });
}

export interface NewChapter {
  title: string;
  content: string;
  /** 作者的话 (decision 202). */
  authorNote?: string;
  /** 正文 (default), 请假条 or 作品相关 (decision 203). */
  kind?: ChapterKind;
}

/** How a chapter is saved: 存稿 (draft), published now, or scheduled for a time. */
export type Release = { mode: "draft" } | { mode: "now" } | { mode: "at"; at: Date };

/** The state, time and checks of a release; the text must not be empty unless it is a draft. */
export function releaseColumns(release: Release, content: string) {
  if (release.mode !== "draft" && !content.trim()) throw new DomainError(STUDIO_MESSAGES.contentRequired, 400, "content");
  if (release.mode === "at") {
    if (!(release.at instanceof Date) || Number.isNaN(release.at.getTime())) {
      throw new DomainError(STUDIO_MESSAGES.scheduleInvalid, 400, "publishAt");
    }
    if (release.at.getTime() <= Date.now()) throw new DomainError(STUDIO_MESSAGES.scheduleInPast, 400, "publishAt");
    return { state: "scheduled" as const, publishAt: release.at };
  }
  if (release.mode === "now") return { state: "published" as const, publishAt: new Date() };
  return { state: "draft" as const, publishAt: null };
}

/**
 * A chapter's title and text screened (docs/product.md#screening): a 禁止 word refuses the
 * write, naming it. Every chapter write passes here (saveChapter, insertChapter, renames,
 * 立即发布).
 */
export async function screenChapter(
  title: string | null | undefined,
  content: string | null | undefined,
  authorNote?: string | null,
): Promise<FieldScreen> {
  if (title && isOnlyInvisible(title)) throw new DomainError(STUDIO_MESSAGES.titleInvisible, 400, "title");
  if (content && isOnlyInvisible(content)) throw new DomainError(STUDIO_MESSAGES.contentInvisible, 400, "content");
  return refuseForbidden([
    { label: "章节标题", field: "title", text: title },
    { label: "章节正文", field: "content", text: content },
    // 作者的话 like the text (decision 202): 禁止 refused, 审核 holds, 替换 masked for readers.
    { label: "作者的话", field: "authorNote", text: authorNote },
  ]);
}

/**
 * Inserts a chapter so it becomes the `at`-th (1..total+1; total+1 is the end), at the end
 * of a volume (null: of the chapters before the first volume), or after everything. A
 * single-chapter work keeps its one chapter.
 */
export async function insertChapter(
  userId: string,
  workId: number,
  input: NewChapter & { release?: Release },
  where: { at: number } | { volumeId: number | null } | "end",
  options: {
    /** A further rule the work must pass, checked under its lock (the old add-chapter page's). */
    allow?: (work: Work) => void;
    /** Records a one-time form token with the new chapter (decision 077). */
    record?: RecordResult;
  } = {},
): Promise<number> {
  const title = await chapterTitleOf(input.title);
  const authorNote = checkAuthorNote(input.authorNote ?? "");
  const kind = input.kind ?? "chapter";
  if (!(CHAPTER_KINDS as readonly string[]).includes(kind)) throw new DomainError(STUDIO_MESSAGES.kindInvalid, 400, "kind");
  const release = releaseColumns(input.release ?? { mode: "now" }, input.content);
  const screened = await screenChapter(title, input.content, authorNote);
  return db.transaction(async (tx) => {
    const work = await lockOwnedWork(tx, userId, workId);
    options.allow?.(work);
    if (work.type === "single_chapter") throw new DomainError(STUDIO_MESSAGES.singleChapter, 400);
    let hi: number | null;
    if (where === "end") {
      hi = null;
    } else if ("at" in where) {
      const total = await chapterTotal(tx, workId);
      if (!Number.isSafeInteger(where.at) || where.at < 1 || where.at > total + 1) {
        throw new DomainError(STUDIO_MESSAGES.insertRange(total + 1), 400, "at");
      }
      hi = where.at === total + 1 ? null : (await chapterAt(tx, workId, where.at, null))!.position;
    } else {
      const heads = await tx.select().from(volumes).where(eq(volumes.workId, workId)).orderBy(asc(volumes.position), asc(volumes.id));
      if (where.volumeId === null) hi = heads[0]?.position ?? null;
      else {
        const i = heads.findIndex((v) => v.id === where.volumeId);
        if (i === -1) throw new DomainError(STUDIO_MESSAGES.volumeNotFound, 404);
        hi = heads[i + 1]?.position ?? null;
      }
    }
    const [position] = await positionsBefore(tx, workId, hi, 1);
    const ai = await chapterAiColumns(tx, userId, input.content);
    const [row] = await tx
      .insert(chapters)
      .values({ workId, title, content: input.content, authorNote, kind, position, wordCount: countWords(input.content), ...ai, ...release })
      .returning({ id: chapters.id });
    // Out at once, or 审核中 under the review policy (docs/product.md#review).
    const state = await settleRelease(tx, work, row.id, null, screened);
    if (state !== "published") await announce(tx, workId);
    await recordWritten(tx, workId, countWords(input.content), new Date());
    await options.record?.(tx, row.id);
    return row.id;
  });
}

/**
 * The old add-chapter page (/works/:id/new-chapter): publishes a chapter at the end of an
 * ongoing series. The studio's insertChapter does the work; this adds the page's rule.
 */
export async function addChapter(userId: string, workId: number, input: NewChapter, record?: RecordResult): Promise<number> {
  if (!input.title.trim() || !input.content.trim()) throw new DomainError(WORK_MESSAGES.chapter, 400);
  return insertChapter(userId, workId, { ...input, release: { mode: "now" } }, "end", {
    record,
    allow: (work) => {
      if (work.type !== "series" || work.status !== "ongoing") throw new DomainError(WORK_MESSAGES.onlyOngoing, 400);
    },
  });
}

/**
 * Deletes a chapter. Readers whose saved position was in it continue at the published
 * chapter that took its place (the next one, or the previous one at the end), from its
 * start. A work keeps at least one published chapter; drafts and scheduled chapters
 * have no readers and simply go.
 * @internal
 */
export const SOLD_CHAPTER_UNDELETABLE = "已有读者购买的章节不能删除";

export async function deleteChapter(userId: string, workId: number, chapterId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    // A chapter readers paid for stays: they keep what they bought (decision 110).
    const [sold] = await tx.select({ id: chapterPurchases.id }).from(chapterPurchases).where(eq(chapterPurchases.chapterId, chapter.id)).limit(1);
    if (sold) throw new DomainError(SOLD_CHAPTER_UNDELETABLE, 409);
    // A notice chapter holds no reading position (decision 203): it simply goes.
    if (chapter.state === "published" && chapter.kind === "chapter") {
      const published = and(eq(chapters.workId, workId), isPublished);
      const [next] = await tx
        .select({ id: chapters.id })
        .from(chapters)
        .where(
          and(
            published,
            or(gt(chapters.position, chapter.position), and(eq(chapters.position, chapter.position), gt(chapters.id, chapter.id))),
          ),
        )
        .orderBy(asc(chapters.position), asc(chapters.id))
        .limit(1);
      const [prev] = next
        ? [next]
        : await tx
            .select({ id: chapters.id })
            .from(chapters)
            .where(
              and(
                published,
                or(lt(chapters.position, chapter.position), and(eq(chapters.position, chapter.position), lt(chapters.id, chapter.id))),
              ),
            )
            .orderBy(sql`${chapters.position} desc, ${chapters.id} desc`)
            .limit(1);
      const heir = next ?? prev;
      if (!heir) throw new DomainError(STUDIO_MESSAGES.lastPublished, 409);
      await tx.update(readingProgress).set({ chapterId: heir.id, paragraph: 0 }).where(eq(readingProgress.chapterId, chapter.id));
    }
    await tx.delete(chapters).where(eq(chapters.id, chapter.id));
    await refreshWorkCounts(tx, workId);
  });
}

/** Renames a chapter (1 to 100 characters). */
export async function renameChapter(userId: string, workId: number, chapterId: number, title: string): Promise<"renamed" | "held"> {
  const t = await chapterTitleOf(title);
  await screenChapter(t, null);
  return db.transaction(async (tx) => {
    const work = await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    if (chapter.state === "published" && t !== chapter.title) {
      // A published chapter's new title is an edit like any (decision 213): it may wait for
      // review with the author's working copy, readers keeping the approved title.
      const [full] = await tx
        .select({
          aiLevel: chapters.aiLevel,
          revision: chapters.revision,
          content: sql<string>`coalesce(${chapters.pendingContent}, ${chapters.content})`,
          authorNote: sql<string>`coalesce(${chapters.pendingAuthorNote}, ${chapters.authorNote})`,
        })
        .from(chapters)
        .where(eq(chapters.id, chapter.id));
      if (await holdEdit(tx, work, { id: chapter.id, ...full }, { title: t, content: full.content, authorNote: full.authorNote })) {
        await tx
          .update(chapters)
          .set({ pendingTitle: t, pendingContent: full.content, pendingAuthorNote: full.authorNote, revision: full.revision + 1 })
          .where(eq(chapters.id, chapter.id));
        return "held";
      }
    }
    const [renamed] = await tx
      .update(chapters)
      .set({ title: t, updatedAt: new Date() })
      .where(eq(chapters.id, chapter.id))
      .returning({ id: chapters.id, state: chapters.state, title: chapters.title, content: chapters.content, revision: chapters.revision });
    // The version a reviewer decides on is title and text: a chapter under review is
    // submitted again, and the others' review items follow (decision 206).
    if (renamed.state === "review") await settleRelease(tx, work, chapter.id, "review");
    else await reviewFollowsText(tx, renamed);
    await announce(tx, workId);
    return "renamed";
  });
}

/** Publishes a draft or scheduled chapter now (the manager's 立即发布). */
export async function publishChapterNow(userId: string, workId: number, chapterId: number): Promise<void> {
  // Screened under the work's lock below: the matcher is built before it.
  await readyScreening();
  await db.transaction(async (tx) => {
    const work = await lockOwnedWork(tx, userId, workId);
    const chapter = await chapterOf(tx, workId, chapterId);
    if (chapter.state === "published") throw new DomainError(STUDIO_MESSAGES.alreadyPublished, 409);
    if (chapter.state === "review") throw new DomainError(STUDIO_MESSAGES.inReview, 409);
    const [{ content, authorNote }] = await tx.select({ content: chapters.content, authorNote: chapters.authorNote }).from(chapters).where(eq(chapters.id, chapter.id));
    // Screened again as it goes out: the list may have grown since the text was saved.
    const screened = await screenChapter(chapter.title, content, authorNote);
    const release = releaseColumns({ mode: "now" }, content);
    // Conditional on the state read under the work's lock: published once.
    const done = await tx
      .update(chapters)
      .set({ ...release, updatedAt: new Date() })
      .where(and(eq(chapters.id, chapter.id), ne(chapters.state, "published")))
      .returning({ id: chapters.id });
    if (done.length > 0 && (await settleRelease(tx, work, chapter.id, chapter.state, screened)) !== "published") await announce(tx, workId);
  });
}

/**
 * A volume title checked, screened and as it is stored: 禁止 refused, 替换 masked (decision
 * 237); a heading has no review of its own, so a 审核 word is refused too.
 */
async function volumeTitleOf(title: string): Promise<string> {
  const t = title.trim();
  if (!t) throw new DomainError(STUDIO_MESSAGES.volumeTitle, 400, "title");
  if (Array.from(t).length > CHAPTER_TITLE_MAX) throw new DomainError(STUDIO_MESSAGES.volumeTitleTooLong, 400, "title");
  const { masked, held } = await screenedName({ label: "卷名", field: "title", text: t });
  if (held) throw new DomainError(STUDIO_MESSAGES.volumeTitleHeld, 400, "title");
  return masked;
}

/**
 * Adds a volume heading: before a chapter (which, with the chapters after it up to the
 * next volume, then belongs to it), or at the end (an empty volume).
 */
export async function createVolume(userId: string, workId: number, title: string, beforeChapterId: number | null, record?: RecordResult): Promise<number> {
  const t = await volumeTitleOf(title);
  return db.transaction(async (tx) => {
    const work = await lockOwnedWork(tx, userId, workId);
    if (work.type === "single_chapter") throw new DomainError(STUDIO_MESSAGES.singleChapterVolumes, 400);
    const hi = beforeChapterId === null ? null : (await chapterOf(tx, workId, beforeChapterId)).position;
    const [position] = await positionsBefore(tx, workId, hi, 1);
    const [row] = await tx.insert(volumes).values({ workId, title: t, position }).returning({ id: volumes.id });
    await announce(tx, workId);
    // The form's one-time token: a replayed 新建分卷 makes one volume (decision 077).
    await record?.(tx, row.id);
    return row.id;
  });
}

export async function renameVolume(userId: string, workId: number, volumeId: number, title: string): Promise<void> {
  const t = await volumeTitleOf(title);
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    await volumeOf(tx, workId, volumeId);
    await tx.update(volumes).set({ title: t }).where(eq(volumes.id, volumeId));
    await announce(tx, workId);
  });
}

/** Removes a volume heading; its chapters stay where they are and join the group before. */
export async function deleteVolume(userId: string, workId: number, volumeId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    await volumeOf(tx, workId, volumeId);
    await tx.delete(volumes).where(eq(volumes.id, volumeId));
    await announce(tx, workId);
  });
}

/**
 * Moves a volume with its chapters above the previous volume or below the next one.
 * Writes the moved volume's rows only (its heading and chapters).
 */
export async function moveVolume(userId: string, workId: number, volumeId: number, direction: "up" | "down"): Promise<void> {
  await db.transaction(async (tx) => {
    await lockOwnedWork(tx, userId, workId);
    await volumeOf(tx, workId, volumeId);
    const slots = await slotsOf(tx, workId);
    const heads = slots.map((s, i) => ({ s, i })).filter((x) => x.s.kind === "volume");
    const h = heads.findIndex((x) => x.s.id === volumeId);
    const start = heads[h].i;
    const end = heads[h + 1]?.i ?? slots.length;
    const block = slots.slice(start, end);
    let hi: number | null;
    if (direction === "up") {
      if (h === 0) throw new DomainError(STUDIO_MESSAGES.volumeFirst, 400);
      hi = heads[h - 1].s.position;
    } else {
      if (h === heads.length - 1) throw new DomainError(STUDIO_MESSAGES.volumeLast, 400);
      hi = heads[h + 2]?.s.position ?? null;
    }
    const positions = await positionsBefore(tx, workId, hi, block.length, block);
    await writePositions(tx, block.map((s, i) => ({ ...s, position: positions[i] })));
    await announce(tx, workId);
  });
}

/**
 * One page of the chapter manager: the chapters in order (100 a page) with their 1-based
 * place, and the volume headings that fall on the page (the page's first volume again,
 * marked continued, when it began on an earlier page). Plus every volume, for the
 * "move to volume" choice.
 */
export async function managerPage(userId: string, workId: number, page: number) {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw notFound();
  const [work] = await db.select().from(works).where(and(eq(works.id, workId), eq(works.userId, userId)));
  if (!work) throw notFound();
  const total = await chapterTotal(db, workId);
  const pageCount = Math.max(1, Math.ceil(total / MANAGER_PAGE_SIZE));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), pageCount);
  const offset = (current - 1) * MANAGER_PAGE_SIZE;
  const [rows, heads, before] = await Promise.all([
    db
      .select({
        id: chapters.id,
        title: chapters.title,
        wordCount: chapters.wordCount,
        position: chapters.position,
        state: chapters.state,
        publishAt: chapters.publishAt,
        pending: sql<boolean>`${chapters.pendingContent} is not null or ${chapters.pendingAuthorNote} is not null`,
        aiLevel: chapters.aiLevel,
        kind: chapters.kind,
      })
      .from(chapters)
      .where(eq(chapters.workId, workId))
      .orderBy(asc(chapters.position), asc(chapters.id))
      .offset(offset)
      .limit(MANAGER_PAGE_SIZE),
    db.select().from(volumes).where(eq(volumes.workId, workId)).orderBy(asc(volumes.position), asc(volumes.id)),
    offset > 0
      ? chapterAt(db, workId, offset, null)
      : Promise.resolve(null),
  ]);
  // A reviewer's 退回修改 or 拒绝 reason, beside the draft it sent back (docs/product.md#review).
  const notes = await reviewNotes(db, workId, rows.filter((r) => r.state === "draft").map((r) => r.id));
  const edits = await editReviews(db, workId, rows.filter((r) => r.state === "published").map((r) => r.id));
  const lowBound = before?.position ?? Number.NEGATIVE_INFINITY;
  const highBound = current === pageCount ? Number.POSITIVE_INFINITY : (rows.at(-1)?.position ?? Number.POSITIVE_INFINITY);
  const volumeAt = (position: number) => {
    let found: (typeof heads)[number] | null = null;
    for (const v of heads) if (v.position < position) found = v;
    return found;
  };
  const out: ManagerRow[] = [];
  const headRow = (v: (typeof heads)[number], continued: boolean): ManagerRow => ({
    kind: "volume",
    id: v.id,
    title: v.title,
    continued,
    first: v.id === heads[0].id,
    last: v.id === heads.at(-1)!.id,
  });
  const firstVolume = rows[0] ? volumeAt(rows[0].position) : null;
  if (firstVolume && firstVolume.position <= lowBound) out.push(headRow(firstVolume, true));
  let h = heads.findIndex((v) => v.position > lowBound);
  if (h === -1) h = heads.length;
  rows.forEach((r, i) => {
    while (h < heads.length && heads[h].position < r.position) out.push(headRow(heads[h++], false));
    out.push({
      kind: "chapter",
      id: r.id,
      title: r.title,
      wordCount: r.wordCount,
      index: offset + i + 1,
      volumeId: volumeAt(r.position)?.id ?? null,
      state: r.state,
      publishAt: (r.state === "scheduled" || r.state === "review") && r.publishAt ? formatShanghai(r.publishAt) : null,
      pending: Boolean(r.pending),
      aiLevel: r.aiLevel,
      chapterKind: r.kind,
      review: reviewFacts(notes.get(r.id)),
      edit: edits.get(r.id) ?? null,
    });
  });
  while (h < heads.length && heads[h].position <= highBound) out.push(headRow(heads[h++], false));
  return {
    work,
    total,
    page: current,
    pageCount,
    rows: out,
    volumes: heads.map((v) => ({ id: v.id, title: v.title })),
  };
}
