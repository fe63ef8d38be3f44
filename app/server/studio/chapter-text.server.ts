import { and, desc, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapterRevisions, chapters } from "~/db/schema";
import { AUTOSAVE_MERGE_MINUTES, CHAPTER_REVISIONS_KEPT, STUDIO_MESSAGES } from "~/schemas/studio";
import { CHAPTER_CONTENT_MAX } from "~/schemas/work";
import { countWords } from "~/utils/text";
import { chapterAiColumns } from "~/server/catalog/ai-labels.server";
import { reanchorAfterCommit } from "~/server/community/comments.server";
import { DomainError } from "~/server/platform/errors.server";
import { hasControlCharacter } from "~/server/platform/form-data.server";
import { getOwnedWork, refreshWorkCounts } from "~/server/catalog/works.server";
import { chapterNotFound, checkAuthorNote, chapterTitleOf, lockOwnedWork, releaseColumns, screenChapter, type Release } from "./chapters.server";
import { holdEdit, reviewFollowsText, settleRelease, withdrawEdit } from "./review.server";
import { readyScreening } from "~/server/screening/screening.server";
import { checkAfterSave } from "./continuity.server";
import { recordWritten } from "./writing-days.server";

/**
 * Every write of a chapter's text (docs/decisions/095): the studio editor's 保存 and its
 * autosave, the old /works/:id/edit page, and restoring one of the last saves. One
 * transaction each, under the work's row lock like every studio edit (decision 080);
 * 段评 are re-anchored after it commits when the text readers see changed (decision 090).
 */

const AUTOSAVE_MERGE_MS = AUTOSAVE_MERGE_MINUTES * 60_000;

const APPEND_ONLY_DRAFT = "只能追加到存稿章节，已发布或定时发布的章节请在章节管理中编辑";

export type ChapterSave =
  /** 保存: the editor's form (title and release optional: the old edit page sends text only). */
  | { kind: "save"; content: string; title?: string; authorNote?: string; release?: Release; baseRevision?: number }
  /** The editor saving as the author types: a draft's text, a published chapter's working copy (作者的话 too). */
  | { kind: "autosave"; content: string; authorNote?: string; baseRevision: number }
  /** One of the last saves made current again; itself a save. */
  | { kind: "restore"; revisionId: number; baseRevision?: number }
  /** Text added at the end of a draft (存稿) chapter, e.g. free writing's 存为章节; itself a save. */
  | { kind: "append"; text: string; baseRevision?: number };

export interface SavedText {
  /** The chapter's revision number now: the next save is based on it. */
  revision: number;
  /** 字数 of the saved text. */
  wordCount: number;
  savedAt: Date;
  /** False when an autosave brought nothing new (nothing was written). */
  changed: boolean;
  /** True when the text is a published chapter's working copy that readers do not see yet. */
  pending: boolean;
  /** 保存 of a published chapter sent the edit to review: readers keep the approved text (decision 213). */
  editHeld: boolean;
  /**
   * What 保存 did to an unpublished chapter's release (存稿 kept, 立即发布, 定时发布); null
   * for a published chapter and for every other kind of save.
   */
  released: "draft" | "published" | "scheduled" | "review" | null;
  /** The continuity checks' open findings in the chapter after this save (decision 247); null for an autosave or a failed check. */
  openFindings: number | null;
}

function checkContent(content: string): string {
  if (typeof content !== "string") throw new DomainError(STUDIO_MESSAGES.contentRequired, 400, "content");
  if (content.length > CHAPTER_CONTENT_MAX) throw new DomainError(STUDIO_MESSAGES.contentTooLong, 413, "content");
  if (hasControlCharacter(content)) throw new DomainError(STUDIO_MESSAGES.contentControl, 400, "content");
  return content;
}

function checkRevision(value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new DomainError(STUDIO_MESSAGES.revisionInvalid, 400);
}

/** Saves a chapter's text (and for 保存, its title and release). See ChapterSave. */
export async function saveChapter(userId: string, workId: number, chapterId: number, save: ChapterSave): Promise<SavedText> {
  if (save.kind === "append") checkContent(save.text);
  else if (save.kind !== "restore") checkContent(save.content);
  checkRevision(save.baseRevision);
  const note = (save.kind === "save" || save.kind === "autosave") && save.authorNote !== undefined ? checkAuthorNote(save.authorNote) : undefined;
  const title = save.kind === "save" && save.title !== undefined ? await chapterTitleOf(save.title) : undefined;
  // The text is screened under the work's lock below: the matcher is built before it.
  await readyScreening();
  const outcome = await db.transaction(async (tx) => {
    const work = await lockOwnedWork(tx, userId, workId);
    if (!Number.isSafeInteger(chapterId) || chapterId <= 0) throw chapterNotFound();
    const [chapter] = await tx
      .select({
        id: chapters.id,
        state: chapters.state,
        title: chapters.title,
        content: chapters.content,
        pendingContent: chapters.pendingContent,
        pendingTitle: chapters.pendingTitle,
        authorNote: chapters.authorNote,
        aiLevel: chapters.aiLevel,
        pendingAuthorNote: chapters.pendingAuthorNote,
        revision: chapters.revision,
        updatedAt: chapters.updatedAt,
      })
      .from(chapters)
      .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
    if (!chapter) throw chapterNotFound();
    if (save.baseRevision !== undefined && save.baseRevision !== chapter.revision) {
      throw new DomainError(STUDIO_MESSAGES.staleRevision, 409);
    }
    let content: string;
    if (save.kind === "restore") {
      if (!Number.isSafeInteger(save.revisionId) || save.revisionId <= 0) throw new DomainError(STUDIO_MESSAGES.revisionNotFound, 404);
      const [revision] = await tx
        .select({ content: chapterRevisions.content })
        .from(chapterRevisions)
        .where(and(eq(chapterRevisions.id, save.revisionId), eq(chapterRevisions.chapterId, chapter.id)));
      if (!revision) throw new DomainError(STUDIO_MESSAGES.revisionNotFound, 404);
      content = revision.content;
    } else if (save.kind === "append") {
      // Only a draft: readers never see text arrive in a chapter they may be reading.
      if (chapter.state !== "draft") throw new DomainError(APPEND_ONLY_DRAFT, 409);
      const before = (chapter.pendingContent ?? chapter.content).replace(/\s+$/u, "");
      content = before ? `${before}\n\n${save.text}` : save.text;
      if (content.length > CHAPTER_CONTENT_MAX) throw new DomainError(STUDIO_MESSAGES.contentTooLong, 413, "content");
    } else {
      content = save.content;
    }
    const editorText = chapter.pendingContent ?? chapter.content;
    const editorTitle = chapter.pendingTitle ?? chapter.title;
    // 作者的话 as the editor shows it (a published chapter's working copy first); absent from the save: kept.
    const editorNote = chapter.pendingAuthorNote ?? chapter.authorNote;
    const authorNote = note ?? editorNote;
    const noteChanged = authorNote !== editorNote;
    // Every kind of save is screened, the autosave too: a 禁止 word is never stored.
    if (save.kind !== "autosave" || content !== editorText || noteChanged) await screenChapter(title, content, note);
    const wordCount = countWords(content);
    const now = new Date();
    // A published chapter's autosave is a working copy: readers keep their text until 保存;
    // so is one under review's: the reviewer keeps the text submitted until 保存 resubmits it.
    let live = !(save.kind === "autosave" && (chapter.state === "published" || chapter.state === "review"));
    if (save.kind === "autosave" && content === editorText && !noteChanged) {
      return { revision: chapter.revision, wordCount, savedAt: chapter.updatedAt, changed: false, pending: !live, reanchor: false, released: null, editHeld: false };
    }
    const release = save.kind === "save" && save.release && chapter.state !== "published" ? releaseColumns(save.release, content) : null;
    const state = release?.state ?? chapter.state;
    if (live && state !== "draft" && !content.trim()) throw new DomainError(STUDIO_MESSAGES.contentRequired, 400, "content");
    const savedTitle = title || editorTitle;
    // 保存 of a published chapter whose edits wait for review: the text saved stays the
    // working copy, and readers keep the approved text until a reviewer passes it (decision 213).
    const editHeld =
      live &&
      chapter.state === "published" &&
      (content !== chapter.content || savedTitle !== chapter.title || authorNote !== chapter.authorNote) &&
      (await holdEdit(tx, work, chapter, { title: savedTitle, content, authorNote }));
    if (editHeld) live = false;
    // A 保存 that goes out (the approved text saved back, say) leaves no edit waiting behind it.
    else if (live && chapter.state === "published") await withdrawEdit(tx, chapter.id);

    const revision = chapter.revision + 1;
    // The text readers see gets its AI label from the author's generation log (decision 126).
    const ai = live ? await chapterAiColumns(tx, userId, content) : null;
    const written = await tx
      .update(chapters)
      .set(
        live
          ? { content, wordCount, pendingContent: null, authorNote, pendingAuthorNote: null, pendingTitle: null, revision, updatedAt: now, ...ai, title: savedTitle, ...(release ?? {}) }
          : {
              pendingContent: content,
              pendingAuthorNote: noteChanged || chapter.pendingAuthorNote !== null || editHeld ? authorNote : null,
              ...(editHeld ? { pendingTitle: savedTitle === chapter.title ? null : savedTitle } : {}),
              revision,
            },
      )
      .where(and(eq(chapters.id, chapter.id), eq(chapters.revision, chapter.revision)))
      .returning({ id: chapters.id });
    // The work's lock makes this unreachable; the condition keeps a lost update impossible.
    if (written.length === 0) throw new DomainError(STUDIO_MESSAGES.staleRevision, 409);
    await keepRevision(tx, chapter.id, { kind: save.kind === "append" ? "save" : save.kind, content, wordCount, now }, { content: editorText, at: chapter.updatedAt });
    // 今日字数 on the 写作台 (decision 261): the net change of the text the editor shows.
    await recordWritten(tx, workId, wordCount - countWords(editorText), now);
    // What a reviewer holds follows the text readers see (decision 206).
    if (live && !release && (content !== chapter.content || savedTitle !== chapter.title)) {
      await reviewFollowsText(tx, { id: chapter.id, state: chapter.state, title: savedTitle, content, revision });
    }

    // A release (or a change to a chapter under review) goes out or to review here (docs/product.md#review).
    const settled = release || (live && chapter.state === "review") ? await settleRelease(tx, work, chapter.id, chapter.state) : null;
    // An autosaved draft changes nothing readers or the counts see: no event every few seconds.
    if (settled !== "published" && save.kind !== "autosave") await refreshWorkCounts(tx, workId);
    return {
      revision,
      wordCount,
      savedAt: now,
      changed: true,
      pending: !live,
      reanchor: live && chapter.state === "published" && content !== chapter.content,
      released: release ? settled : null,
      editHeld,
    };
  });
  const { reanchor, ...saved } = outcome;
  try {
    // The continuity checks run on 保存, not on every autosave (decision 247).
    const openFindings = save.kind === "autosave" || !saved.changed ? null : await checkAfterSave(workId, chapterId);
    return { ...saved, openFindings };
  } finally {
    // 段评 follow their paragraphs to the new text, after the save (decision 090): started
    // once the save has its answer, so the re-anchoring's work (3,000 paragraphs scored on
    // this thread) does not run inside the continuity checks' waits and hold the answer.
    if (reanchor) reanchorAfterCommit(chapterId);
  }
}

/**
 * Records a save among the chapter's last CHAPTER_REVISIONS_KEPT. A chapter's first
 * recorded save also records the text it replaced (the text as it was before any
 * version was kept), so the first autosave over an old chapter can be undone. Autosaves
 * within AUTOSAVE_MERGE_MS of the run's first share its row; 保存 of the text already
 * recorded marks that row as saved; 恢复 always adds a row. Older rows are pruned here.
 */
async function keepRevision(
  tx: Executor,
  chapterId: number,
  save: { kind: "autosave" | "save" | "restore"; content: string; wordCount: number; now: Date },
  before: { content: string; at: Date },
): Promise<void> {
  let [latest] = await tx
    .select({ id: chapterRevisions.id, kind: chapterRevisions.kind, content: chapterRevisions.content, createdAt: chapterRevisions.createdAt })
    .from(chapterRevisions)
    .where(eq(chapterRevisions.chapterId, chapterId))
    .orderBy(desc(chapterRevisions.id))
    .limit(1);
  if (!latest) {
    [latest] = await tx
      .insert(chapterRevisions)
      .values({ chapterId, kind: "save", content: before.content, wordCount: countWords(before.content), createdAt: before.at, savedAt: before.at })
      .returning({ id: chapterRevisions.id, kind: chapterRevisions.kind, content: chapterRevisions.content, createdAt: chapterRevisions.createdAt });
  }
  const { kind, content, wordCount, now } = save;
  if (kind === "autosave" && latest.kind === "autosave" && now.getTime() - latest.createdAt.getTime() < AUTOSAVE_MERGE_MS) {
    await tx.update(chapterRevisions).set({ content, wordCount, savedAt: now }).where(eq(chapterRevisions.id, latest.id));
    return;
  }
  if (kind !== "restore" && latest.content === content) {
    if (kind === "save") await tx.update(chapterRevisions).set({ kind, savedAt: now }).where(eq(chapterRevisions.id, latest.id));
    return;
  }
  await tx.insert(chapterRevisions).values({ chapterId, kind, content, wordCount, createdAt: now, savedAt: now });
  // The newest CHAPTER_REVISIONS_KEPT stay; the (chapter_id, id) index finds the cut.
  await tx.execute(sql`
    delete from ${chapterRevisions}
    where ${chapterRevisions.chapterId} = ${chapterId}
      and ${chapterRevisions.id} < (
        select id from ${chapterRevisions}
        where ${chapterRevisions.chapterId} = ${chapterId}
        order by id desc offset ${CHAPTER_REVISIONS_KEPT - 1} limit 1)`);
}

export interface RevisionRow {
  id: number;
  kind: "autosave" | "save" | "restore";
  wordCount: number;
  savedAt: Date;
  /** The first characters of the text, to tell versions apart. */
  preview: string;
}

/** The chapter's kept saves, newest first (owner only: 404 otherwise). */
export async function listRevisions(userId: string, workId: number, chapterId: number, tx: Executor = db): Promise<RevisionRow[]> {
  await getOwnedWork(userId, workId, tx);
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) throw chapterNotFound();
  const [chapter] = await tx.select({ id: chapters.id }).from(chapters).where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
  if (!chapter) throw chapterNotFound();
  return tx
    .select({
      id: chapterRevisions.id,
      kind: chapterRevisions.kind,
      wordCount: chapterRevisions.wordCount,
      savedAt: chapterRevisions.savedAt,
      preview: sql<string>`substring(${chapterRevisions.content} from 1 for 60)`,
    })
    .from(chapterRevisions)
    .where(eq(chapterRevisions.chapterId, chapterId))
    .orderBy(desc(chapterRevisions.id));
}
