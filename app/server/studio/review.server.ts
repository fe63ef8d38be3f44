import { createHash } from "node:crypto";
import { and, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { REVIEW_MESSAGES, REVIEW_NOTE_MAX } from "~/schemas/review";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import type { EditReviewFacts, ReviewNoteFacts } from "~/types/studio";
import { DomainError } from "~/server/platform/errors.server";
import { chapters, reviewItems, siteConfigs, users, works } from "~/db/schema";
import { configInt } from "~/server/platform/site-config.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DEFAULT_SITE_CONFIGS } from "~/server/platform/defaults.server";
import { refreshWorkCounts, type Work } from "~/server/catalog/works.server";
import { chapterAiColumns } from "~/server/catalog/ai-labels.server";
import { countWords } from "~/utils/text";
import { screenText, type FieldScreen } from "~/server/screening/screening.server";
import { onChaptersPublished } from "./release.server";
import { waitingMeta, workMetaHash } from "./work-meta.server";

/**
 * 先审后发 (docs/product.md#review, decision 196). Every release of a chapter by its author
 * (the editor's 保存 with 立即发布 or 定时发布, the manager's 立即发布, a new chapter, a
 * new work's chapters) ends in `settleRelease`, in the same transaction as the write: the
 * chapter either goes out as before (its "on publish" effects, onChaptersPublished) or
 * turns 审核中 (`review`) with a review item holding the exact text submitted. Readers'
 * queries all filter on `state = 'published'`, so a chapter under review is nowhere for
 * them; the release poller takes only `scheduled` chapters, so a 定时 chapter under review
 * waits for its approval. A reviewer's 通过 releases it through `releaseReviewed`, exactly
 * as an unreviewed release.
 */

export type ChapterState = "draft" | "scheduled" | "published" | "review";

export interface ReviewPolicy {
  /** Authors with fewer than `trustedAfter` published chapters wait for review. */
  newAuthors: boolean;
  trustedAfter: number;
  /** Chapters of works labelled AI (by the author or from the generation log) always wait. */
  aiWorks: boolean;
  /** The share (0-100) of trusted authors' chapters drawn for 跟踪审读 after release (decision 206). */
  samplePercent: number;
  /** Authors not under contract (签约状态 未签约, decision 236) wait for review however many chapters they have. */
  unsignedAuthors: boolean;
}

const REVIEW_POLICY_KEYS = ["review_new_authors", "review_trusted_after", "review_ai_works", "review_sample_percent", "review_unsigned_authors"] as const;

/** The policy now, read on `executor` (a release's transaction: PGlite has one connection). */
export async function readReviewPolicy(executor: Executor = db): Promise<ReviewPolicy> {
  const rows = await executor.select({ key: siteConfigs.key, value: siteConfigs.value }).from(siteConfigs).where(inArray(siteConfigs.key, [...REVIEW_POLICY_KEYS]));
  const c: Record<string, string> = { ...DEFAULT_SITE_CONFIGS };
  for (const r of rows) c[r.key] = r.value;
  return {
    newAuthors: c.review_new_authors === "on",
    trustedAfter: configInt(c.review_trusted_after, 10),
    aiWorks: c.review_ai_works === "on",
    samplePercent: Math.min(100, configInt(c.review_sample_percent, 10)),
    unsignedAuthors: c.review_unsigned_authors === "on",
  };
}

/** The version a reviewer sees and decides on: the SHA-256 of the title and the text. */
export function reviewedVersionHash(title: string, content: string): string {
  return createHash("sha256").update(`${title}\n${content}`, "utf8").digest("hex");
}

/** The same hash computed by the database, for chapters submitted in one statement. */
const versionHashSql = sql`encode(sha256(convert_to(${chapters.title} || E'\n' || ${chapters.content}, 'UTF8')), 'hex')`;

/** Why this author's chapter must wait for a reviewer, or null when it may go out at once. */
export async function reviewReason(tx: Executor, work: Work, chapterAiLevel: string, releasing: SQL): Promise<string | null> {
  const [author] = await tx.select({ required: users.reviewRequired, contract: users.contract }).from(users).where(eq(users.id, work.userId));
  if (author?.required) return "先审名单";
  const policy = await readReviewPolicy(tx);
  if (policy.aiWorks && (work.isAiGenerated || work.aiLevel !== "none" || chapterAiLevel !== "none")) return "AI 标注作品";
  if (policy.unsignedAuthors && author?.contract === "none") return "未签约作者";
  if (policy.newAuthors && policy.trustedAfter > 0) {
    // "Approved" chapters: the author's chapters readers have (approved, or released while
    // trusted); counted up to the threshold only.
    const [{ n }] = rowsOf<{ n: number }>(
      await tx.execute(sql`
        select count(*)::int as n from (
          select 1 from ${chapters} c join ${works} w on w.id = c.work_id
          where w.user_id = ${work.userId} and c.state = 'published' and not (${releasing})
          limit ${policy.trustedAfter}) t`),
    );
    if (Number(n) < policy.trustedAfter) return `新作者（已发布 ${n} 章）`;
  }
  return null;
}

/**
 * Whether a released chapter of a trusted author is drawn for 跟踪审读 (decision 206): every
 * chapter whose title or text holds a word of the list, and `samplePercent` of the others,
 * chosen by the chapter's id (a stable draw: saving the chapter again does not redraw it).
 * @internal exported for the test of the share drawn.
 */
export function drawnForSample(chapterId: number, percent: number, hit: boolean): string | null {
  if (hit) return SAMPLE_HIT;
  if (percent <= 0) return null;
  const draw = createHash("sha256").update(`sample:${chapterId}`).digest().readUInt16BE(0) % 100;
  return draw < percent ? SAMPLE_DRAWN : null;
}

const SAMPLE_HIT = "跟踪审读（含词库词语）";
const SAMPLE_DRAWN = "跟踪审读（抽样）";

/** Puts released chapters in the 跟踪审读 sample, in one statement: `sample` items; the chapters stay out. */
async function sample(tx: Executor, work: Work, drawn: { chapter: { id: number; title: string; content: string; revision: number }; reason: string }[]): Promise<void> {
  if (drawn.length === 0) return;
  await tx
    .insert(reviewItems)
    .values(
      drawn.map(({ chapter, reason }) => ({
        kind: "sample" as const,
        chapterId: chapter.id,
        workId: work.id,
        authorId: work.userId,
        contentHash: reviewedVersionHash(chapter.title, chapter.content),
        revision: chapter.revision,
        reason,
      })),
    )
    .onConflictDoNothing();
}

/**
 * An edit of a released chapter: a 跟踪审读 item still waiting now stands for the new text
 * (the reviewer reads what readers read), so its version follows the edit.
 */
async function followEdit(tx: Executor, chapter: { id: number; title: string; content: string; revision: number }): Promise<void> {
  await tx
    .update(reviewItems)
    .set({ contentHash: reviewedVersionHash(chapter.title, chapter.content), revision: chapter.revision })
    .where(and(eq(reviewItems.chapterId, chapter.id), eq(reviewItems.kind, "sample"), eq(reviewItems.status, "pending")));
}

/** Withdraws the chapter's open submission (the author changed or took back the chapter). */
async function withdraw(tx: Executor, chapterId: number): Promise<void> {
  await tx
    .update(reviewItems)
    .set({ status: "withdrawn" })
    // Comments on the chapter wait on their own (decision 206).
    .where(and(eq(reviewItems.chapterId, chapterId), eq(reviewItems.status, "pending"), ne(reviewItems.kind, "comment")));
}

/**
 * After a write that released a chapter (its state now `published` or `scheduled`), or
 * changed one that was under review (`before` = review): sends it to review when the
 * policy says so, else runs its "on publish" effects. Call under the work's lock, in the
 * write's transaction. Returns the chapter's state.
 */
export async function settleRelease(
  tx: Executor,
  work: Work,
  chapterId: number,
  before: ChapterState | null,
  /** What the write's own screen of this title and text found, when it made one (not screened twice). */
  screened?: FieldScreen,
): Promise<ChapterState> {
  const [chapter] = await tx
    .select({
      id: chapters.id,
      state: chapters.state,
      title: chapters.title,
      content: chapters.content,
      authorNote: chapters.authorNote,
      revision: chapters.revision,
      aiLevel: chapters.aiLevel,
    })
    .from(chapters)
    .where(eq(chapters.id, chapterId));
  if (!chapter) return "draft";
  // The text under review changed or was taken back: what was submitted is no longer it.
  if (before === "review") await withdraw(tx, chapterId);
  // A draft sent back and released again: the author resubmits instead of appealing.
  if (before === "draft" && chapter.state !== "draft") await withdrawAppeal(tx, chapterId);
  if (chapter.state === "draft" || before === "published") return chapter.state;
  let reason = chapter.state === "review" ? "重新提交" : await reviewReason(tx, work, chapter.aiLevel, sql`c.id = ${chapterId}`);
  if (reason === null) {
    const screen = screened ?? (await screenRelease(chapter.title, chapter.content, chapter.authorNote));
    if (screen.held) reason = HELD_BY_SCREENING;
    else {
      if (chapter.state === "published") await onChaptersPublished(tx, work.id, [chapterId]);
      const drawn = drawnForSample(chapterId, (await readReviewPolicy(tx)).samplePercent, screen.hit);
      if (drawn) await sample(tx, work, [{ chapter, reason: drawn }]);
      return chapter.state;
    }
  }
  if (chapter.state !== "review") {
    // A 定时 chapter keeps its time: approved before it, it goes out then; after, at once.
    await tx
      .update(chapters)
      .set({ state: "review", publishAt: chapter.state === "scheduled" ? undefined : null })
      .where(eq(chapters.id, chapterId));
  }
  await tx.insert(reviewItems).values({
    chapterId,
    workId: work.id,
    authorId: work.userId,
    contentHash: reviewedVersionHash(chapter.title, chapter.content),
    revision: chapter.revision,
    reason,
  });
  return "review";
}

/**
 * A new work's chapters (the publish wizard, a TXT import), under the transaction that
 * created them: all wait for review when the policy holds its author's releases.
 */
export async function settleNewWork(tx: Executor, workId: number): Promise<void> {
  const [work] = await tx.select().from(works).where(eq(works.id, workId));
  if (!work) return;
  const reason = await reviewReason(tx, work, work.aiLevel, sql`c.work_id = ${workId}`);
  // A trusted author's new work: only the chapters holding a 审核 word wait; the others
  // go out, and are drawn for 跟踪审读 like any trusted release.
  let only: SQL = sql`true`;
  let why = reason;
  if (why === null) {
    const released = await tx
      .select({ id: chapters.id, title: chapters.title, content: chapters.content, authorNote: chapters.authorNote, revision: chapters.revision })
      .from(chapters)
      .where(and(eq(chapters.workId, workId), eq(chapters.state, "published")));
    const held: number[] = [];
    const drawn: Parameters<typeof sample>[2] = [];
    const { samplePercent } = await readReviewPolicy(tx);
    for (const chapter of released) {
      const screen = await screenRelease(chapter.title, chapter.content, chapter.authorNote);
      const reason = screen.held ? null : drawnForSample(chapter.id, samplePercent, screen.hit);
      if (screen.held) held.push(chapter.id);
      else if (reason) drawn.push({ chapter, reason });
    }
    await sample(tx, work, drawn);
    if (held.length === 0) return;
    why = HELD_BY_SCREENING;
    only = inArray(chapters.id, held);
  }
  await tx.execute(sql`
    insert into ${reviewItems} (chapter_id, work_id, author_id, content_hash, revision, reason)
    select ${chapters.id}, ${chapters.workId}, ${work.userId}, ${versionHashSql}, ${chapters.revision}, ${why}
    from ${chapters} where ${chapters.workId} = ${workId} and ${chapters.state} = 'published' and ${only}
    order by ${chapters.position}, ${chapters.id}`);
  await tx.update(chapters).set({ state: "review", publishAt: null }).where(and(eq(chapters.workId, workId), eq(chapters.state, "published"), only));
  await refreshWorkCounts(tx, workId);
}

/**
 * 定时 chapters coming due (the release poller, in its transaction, under the work's lock):
 * the policy and the word list are asked again, as either may have changed since the
 * chapter was scheduled (decision 214). A chapter a reviewer approved in this very version
 * goes out as approved. The others that must now wait turn 审核中, keeping their time (an
 * approval after it releases them at once), with an item; anything of theirs still waiting
 * (a 跟踪审读 draw) is withdrawn. Returns the ids held. Call `readyScreening` before the
 * transaction.
 */
export async function holdDueChapters(tx: Executor, work: Work, chapterIds: number[]): Promise<Set<number>> {
  const held = new Set<number>();
  if (chapterIds.length === 0) return held;
  const due = await tx
    .select({
      id: chapters.id,
      title: chapters.title,
      content: chapters.content,
      authorNote: chapters.authorNote,
      revision: chapters.revision,
      aiLevel: chapters.aiLevel,
      // Written out whole: drizzle leaves a one-table query's columns unqualified, which the subquery would take for its own.
      approved: sql<boolean>`exists (select 1 from review_items r where r.chapter_id = chapters.id
        and r.status = 'approved' and r.kind in ('release', 'appeal')
        and r.content_hash = encode(sha256(convert_to(chapters.title || E'\n' || chapters.content, 'UTF8')), 'hex'))`,
    })
    .from(chapters)
    .where(and(inArray(chapters.id, chapterIds), eq(chapters.state, "scheduled")));
  const open = due.filter((c) => !c.approved);
  if (open.length === 0) return held;
  // The author's reason is asked once for the batch (twice when some chapters are labelled AI),
  // the due chapters themselves not counting towards trust.
  const releasing = sql`c.id in (${sql.join(
    open.map((c) => sql`${c.id}`),
    sql`, `,
  )})`;
  const plain = await reviewReason(tx, work, "none", releasing);
  const labelled = open.some((c) => c.aiLevel !== "none") ? await reviewReason(tx, work, "generated", releasing) : plain;
  for (const chapter of open) {
    const reason =
      (chapter.aiLevel === "none" ? plain : labelled) ??
      ((await screenRelease(chapter.title, chapter.content, chapter.authorNote)).held ? HELD_BY_SCREENING : null);
    if (!reason) continue;
    await withdraw(tx, chapter.id);
    await tx.update(chapters).set({ state: "review" }).where(eq(chapters.id, chapter.id));
    await tx.insert(reviewItems).values({
      chapterId: chapter.id,
      workId: work.id,
      authorId: work.userId,
      contentHash: reviewedVersionHash(chapter.title, chapter.content),
      revision: chapter.revision,
      reason,
    });
    held.add(chapter.id);
  }
  return held;
}

/** A published chapter's title, text and 作者的话 as an edit would leave them. */
export interface EditedText {
  title: string;
  content: string;
  authorNote: string;
}

/**
 * An edit of a published chapter (decision 213), in the save's transaction under the work's
 * lock: when the policy holds this author's releases, or the edit holds a 审核 word, the
 * edit waits as an `edit` item holding the text submitted (a later 保存 replaces it) and
 * readers keep the approved text; returns true then. Otherwise the edit goes out as before
 * (false) and any pending edit is withdrawn by the write (reviewFollowsText).
 */
export async function holdEdit(
  tx: Executor,
  work: Work,
  chapter: { id: number; aiLevel: string; revision: number },
  edited: EditedText,
): Promise<boolean> {
  let reason = await reviewReason(tx, work, chapter.aiLevel, sql`false`);
  if (reason === null) {
    if (!(await screenRelease(edited.title, edited.content, edited.authorNote)).held) return false;
    reason = HELD_BY_SCREENING;
  }
  // The same edit saved again keeps its place in the queue.
  const [waiting] = await tx
    .select({ id: reviewItems.id })
    .from(reviewItems)
    .where(
      and(
        eq(reviewItems.chapterId, chapter.id),
        eq(reviewItems.kind, "edit"),
        eq(reviewItems.status, "pending"),
        eq(reviewItems.editTitle, edited.title),
        eq(reviewItems.editContent, edited.content),
        eq(reviewItems.editAuthorNote, edited.authorNote),
      ),
    );
  if (waiting) return true;
  await withdrawEdit(tx, chapter.id);
  await tx.insert(reviewItems).values({
    kind: "edit",
    chapterId: chapter.id,
    workId: work.id,
    authorId: work.userId,
    contentHash: reviewedVersionHash(edited.title, edited.content),
    revision: chapter.revision,
    reason,
    editTitle: edited.title,
    editContent: edited.content,
    editAuthorNote: edited.authorNote,
  });
  return true;
}

/** Withdraws the chapter's pending edit: the author saved something else that went out, or took it back. */
export async function withdrawEdit(tx: Executor, chapterId: number): Promise<void> {
  await tx
    .update(reviewItems)
    .set({ status: "withdrawn" })
    .where(and(eq(reviewItems.chapterId, chapterId), eq(reviewItems.kind, "edit"), eq(reviewItems.status, "pending")));
}

/**
 * 通过 of an edit (decision 213): readers get the title, text and 作者的话 submitted, as if
 * the author had saved them unreviewed; the author's working copy is dropped when it is that
 * same text (kept when they have typed on since). False when the chapter is no longer
 * published. 段评 are re-anchored by the caller after the commit.
 */
export async function applyEdit(tx: Executor, itemId: number): Promise<boolean> {
  const [item] = await tx
    .select({
      chapterId: reviewItems.chapterId,
      workId: reviewItems.workId,
      authorId: reviewItems.authorId,
      title: reviewItems.editTitle,
      content: reviewItems.editContent,
      authorNote: reviewItems.editAuthorNote,
    })
    .from(reviewItems)
    .where(and(eq(reviewItems.id, itemId), eq(reviewItems.kind, "edit")));
  if (!item || item.chapterId === null || item.title === null || item.content === null || item.authorNote === null) return false;
  const chapterId = item.chapterId;
  const [chapter] = await tx
    .select({
      state: chapters.state,
      title: chapters.title,
      authorNote: chapters.authorNote,
      revision: chapters.revision,
      pendingContent: chapters.pendingContent,
      pendingTitle: chapters.pendingTitle,
      pendingAuthorNote: chapters.pendingAuthorNote,
    })
    .from(chapters)
    .where(eq(chapters.id, chapterId));
  if (chapter?.state !== "published") return false;
  const workingCopyIsEdit =
    chapter.pendingContent === item.content &&
    (chapter.pendingTitle ?? chapter.title) === item.title &&
    (chapter.pendingAuthorNote ?? chapter.authorNote) === item.authorNote;
  const revision = chapter.revision + 1;
  await tx
    .update(chapters)
    .set({
      title: item.title,
      content: item.content,
      authorNote: item.authorNote,
      wordCount: countWords(item.content),
      revision,
      updatedAt: new Date(),
      ...(await chapterAiColumns(tx, item.authorId, item.content)),
      ...(workingCopyIsEdit ? { pendingContent: null, pendingTitle: null, pendingAuthorNote: null } : {}),
    })
    .where(eq(chapters.id, chapterId));
  await followEdit(tx, { id: chapterId, title: item.title, content: item.content, revision });
  await refreshWorkCounts(tx, item.workId);
  return true;
}

/** The reason a trusted author's chapter waits: its title or text holds a 审核 word (decision 195). */
export const HELD_BY_SCREENING = "含待审词语";

async function screenRelease(title: string, content: string, authorNote = ""): Promise<FieldScreen> {
  // 作者的话 is screened with the text (decision 202): a 审核 word in it holds the chapter too.
  const { held, hits } = await screenText(`${title}\n${content}\n${authorNote}`);
  return { held, hit: hits.length > 0 };
}

/**
 * 通过: the reviewed chapter goes out, exactly as an unreviewed release would (its "on
 * publish" effects), or waits for its 定时 time when that is still ahead. Returns its state.
 */
export async function releaseReviewed(
  tx: Executor,
  workId: number,
  chapterId: number,
  /** `draft`: a 总编辑 reversing a 退回修改 or 拒绝 (the chapter was sent back as a draft). */
  from: "review" | "draft" = "review",
): Promise<"published" | "scheduled" | null> {
  const [row] = await tx
    .update(chapters)
    .set({
      state: sql`case when ${chapters.publishAt} > now() then 'scheduled'::chapter_state else 'published'::chapter_state end`,
      publishAt: sql`case when ${chapters.publishAt} > now() then ${chapters.publishAt} else now() end`,
      updatedAt: new Date(),
    })
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), eq(chapters.state, from)))
    .returning({ state: chapters.state });
  if (!row) return null;
  if (row.state === "published") await onChaptersPublished(tx, workId, [chapterId]);
  return row.state as "published" | "scheduled";
}

/**
 * A 总编辑 reversing an approval (decision 214): the chapter readers have (or that waits for
 * its 定时 time) goes back to its author as a draft; anything of it still waiting (an edit, a
 * 跟踪审读 draw, an appeal) is withdrawn. Purchases stay: a buyer reads it again once it is
 * out again. False when it is no longer out.
 */
export async function takeBackApproved(tx: Executor, workId: number, chapterId: number): Promise<boolean> {
  const rows = await tx
    .update(chapters)
    .set({ state: "draft", publishAt: null, updatedAt: new Date() })
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), inArray(chapters.state, ["published", "scheduled"])))
    .returning({ id: chapters.id });
  if (rows.length === 0) return false;
  await withdraw(tx, chapterId);
  await refreshWorkCounts(tx, workId);
  return true;
}

/** 退回修改 or 拒绝: the chapter goes back to the author as a draft (存稿). */
export async function returnToAuthor(tx: Executor, workId: number, chapterId: number): Promise<boolean> {
  const rows = await tx
    .update(chapters)
    .set({ state: "draft", publishAt: null, updatedAt: new Date() })
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), eq(chapters.state, "review")))
    .returning({ id: chapters.id });
  return rows.length > 0;
}

/** The state of the author's own chapter (after a save, for the notice shown). */
export async function ownChapterState(userId: string, workId: number, chapterId: number): Promise<ChapterState | null> {
  const [row] = await db
    .select({ state: chapters.state })
    .from(chapters)
    .innerJoin(works, eq(works.id, chapters.workId))
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId), eq(works.userId, userId)));
  return row?.state ?? null;
}

export interface ReviewNote extends ReviewNoteFacts {
  decidedAt: Date;
}

/**
 * What the author sees beside each draft chapter that a reviewer sent back: the last
 * decision's reason, and whether it may be appealed, for the chapters given (those still
 * drafts).
 */
export async function reviewNotes(tx: Executor, workId: number, chapterIds: number[]): Promise<Map<number, ReviewNote>> {
  const out = new Map<number, ReviewNote>();
  if (chapterIds.length === 0) return out;
  const rows = await tx
    .selectDistinctOn([reviewItems.chapterId], {
      chapterId: reviewItems.chapterId,
      kind: reviewItems.kind,
      status: reviewItems.status,
      note: reviewItems.note,
      decidedAt: reviewItems.decidedAt,
      // Written out whole: drizzle leaves a one-table query's columns unqualified, which the
      // subqueries would take for their own.
      appealed: sql<boolean>`exists (select 1 from review_items a where a.appeal_of = review_items.id)`,
      appealPending: sql<boolean>`exists (select 1 from review_items a where a.appeal_of = review_items.id and a.status = 'pending')`,
      // Only the text the decision was made on may be appealed.
      unchanged: sql<boolean>`exists (select 1 from chapters c where c.id = review_items.chapter_id
        and encode(sha256(convert_to(c.title || E'\n' || c.content, 'UTF8')), 'hex') = review_items.content_hash)`,
    })
    .from(reviewItems)
    .where(
      and(
        eq(reviewItems.workId, workId),
        inArray(reviewItems.chapterId, chapterIds),
        inArray(reviewItems.kind, ["release", "appeal"]),
        inArray(reviewItems.status, ["approved", "returned", "rejected"]),
      ),
    )
    .orderBy(reviewItems.chapterId, desc(reviewItems.id));
  for (const r of rows) {
    if (r.chapterId === null) continue;
    if ((r.status === "returned" || r.status === "rejected") && r.decidedAt) {
      const appeal = r.kind === "appeal" || (r.appealed && !r.appealPending) || !r.unchanged ? "closed" : r.appealPending ? "pending" : "open";
      out.set(r.chapterId, { status: r.status, note: r.note ?? "", decidedAt: r.decidedAt, onAppeal: r.kind === "appeal", appeal });
    }
  }
  return out;
}

/**
 * The last edit review of each published chapter given (decision 213): waiting, or sent
 * back / refused with the reason; nothing once it passed or a later save made it moot.
 */
export async function editReviews(tx: Executor, workId: number, chapterIds: number[]): Promise<Map<number, EditReviewFacts>> {
  const out = new Map<number, EditReviewFacts>();
  if (chapterIds.length === 0) return out;
  const rows = await tx
    .selectDistinctOn([reviewItems.chapterId], { chapterId: reviewItems.chapterId, status: reviewItems.status, note: reviewItems.note })
    .from(reviewItems)
    .where(and(eq(reviewItems.workId, workId), inArray(reviewItems.chapterId, chapterIds), eq(reviewItems.kind, "edit")))
    .orderBy(reviewItems.chapterId, desc(reviewItems.id));
  for (const r of rows) {
    if (r.chapterId === null) continue;
    if (r.status === "pending") out.set(r.chapterId, { status: "pending" });
    else if (r.status === "returned" || r.status === "rejected") out.set(r.chapterId, { status: r.status, note: r.note ?? "" });
  }
  return out;
}

/** The note as the studio's pages show it (no decision time). */
export function reviewFacts(note: ReviewNote | undefined): ReviewNoteFacts | null {
  return note ? { status: note.status, note: note.note, onAppeal: note.onAppeal, appeal: note.appeal } : null;
}

/**
 * The author appeals the last 退回修改 or 拒绝 of their chapter (once per decision), with
 * a note: a pending `appeal` item only a 总编辑 or 超级管理员 decides (decision 206). The
 * chapter must still be the unchanged draft the decision sent back; changing it withdraws
 * the appeal (settleRelease, saveChapter). `chapterId` null: the work's own title,
 * description, cover and tags (decision 239), which must still be the version sent back
 * (a save of the settings withdraws the appeal); the appeal holds a copy of that version.
 */
export async function appealReview(userId: string, workId: number, chapterId: number | null, rawNote: string): Promise<void> {
  const note = rawNote.trim();
  if (!note) throw new DomainError(REVIEW_MESSAGES.appealNote, 400, "note");
  if (Array.from(note).length > REVIEW_NOTE_MAX) throw new DomainError(REVIEW_MESSAGES.appealTooLong, 400, "note");
  const notFound = chapterId === null ? WORK_MESSAGES.notFound : STUDIO_MESSAGES.chapterNotFound;
  await db.transaction(async (tx) => {
    const [work] = await tx.select().from(works).where(and(eq(works.id, workId), eq(works.userId, userId))).for("no key update");
    if (!work) throw new DomainError(notFound, 404);
    // The version the author has now, when it is one a decision could have sent back.
    let current: string | null;
    if (chapterId === null) {
      const waiting = waitingMeta(work);
      current = waiting ? workMetaHash(waiting) : null;
    } else {
      const [chapter] = await tx
        .select({ state: chapters.state, title: chapters.title, content: chapters.content })
        .from(chapters)
        .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
      if (!chapter) throw new DomainError(notFound, 404);
      current = chapter.state === "draft" ? reviewedVersionHash(chapter.title, chapter.content) : null;
    }
    const [last] = await tx
      .select({
        id: reviewItems.id,
        kind: reviewItems.kind,
        status: reviewItems.status,
        contentHash: reviewItems.contentHash,
        revision: reviewItems.revision,
        authorNote: reviewItems.authorNote,
        editMeta: reviewItems.editMeta,
      })
      .from(reviewItems)
      .where(
        and(
          eq(reviewItems.workId, workId),
          chapterId === null ? sql`${reviewItems.chapterId} is null` : eq(reviewItems.chapterId, chapterId),
          inArray(reviewItems.kind, [chapterId === null ? "work" : "release", "appeal"]),
          sql`${reviewItems.status} <> 'withdrawn'`,
        ),
      )
      .orderBy(desc(reviewItems.id))
      .limit(1);
    if (last?.kind === "appeal") {
      // The same appeal sent twice (a double click, 重新提交) answers as the first did.
      if (last.status === "pending" && last.authorNote === note) return;
      throw new DomainError(REVIEW_MESSAGES.appealTwice, 409);
    }
    const sentBack = last && (last.status === "returned" || last.status === "rejected");
    if (!sentBack || current !== last.contentHash) {
      throw new DomainError(chapterId === null ? REVIEW_MESSAGES.appealWorkNotAllowed : REVIEW_MESSAGES.appealNotAllowed, 409);
    }
    const made = await tx
      .insert(reviewItems)
      .values({
        kind: "appeal",
        appealOf: last.id,
        chapterId,
        workId,
        authorId: userId,
        contentHash: last.contentHash,
        revision: last.revision,
        reason: "作者申诉",
        authorNote: note,
        editMeta: last.editMeta,
      })
      .onConflictDoNothing()
      .returning({ id: reviewItems.id });
    if (made.length === 0) throw new DomainError(REVIEW_MESSAGES.appealTwice, 409);
  });
}

/**
 * After a change of a chapter's title or text that readers (or a reviewer) would see, by a
 * write that does not itself release it (a save, a rename): a draft's pending appeal is
 * withdrawn (the text appealed is gone); a released chapter's pending 跟踪审读 item now
 * stands for the new text.
 */
export async function reviewFollowsText(tx: Executor, chapter: { id: number; state: ChapterState; title: string; content: string; revision: number }): Promise<void> {
  if (chapter.state === "draft") await withdrawAppeal(tx, chapter.id);
  if (chapter.state === "published" || chapter.state === "scheduled") await followEdit(tx, chapter);
  // Readers have a newer text than an edit still waiting: that edit is moot (decision 213).
  if (chapter.state === "published") await withdrawEdit(tx, chapter.id);
}

/** A change of a draft withdraws the appeal of its last decision: the text appealed is gone. */
async function withdrawAppeal(tx: Executor, chapterId: number): Promise<void> {
  await tx
    .update(reviewItems)
    .set({ status: "withdrawn" })
    .where(and(eq(reviewItems.chapterId, chapterId), eq(reviewItems.kind, "appeal"), eq(reviewItems.status, "pending")));
}
