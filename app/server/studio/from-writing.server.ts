import { and, asc, desc, eq, ne } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { TO_CHAPTER_MESSAGES, type ToChapterInput } from "~/schemas/writing";
import { DomainError } from "~/server/platform/errors.server";
import { oncePerFormToken } from "~/server/platform/form-tokens.server";
import { getPlot } from "~/server/ai/writing-projects.server";
import { saveChapter } from "./chapter-text.server";
import { chapterNotFound, insertChapter } from "./chapters.server";

/**
 * 存为章节 (docs/product.md: free writing, issue 19 part 1): a plot's text from the writing
 * tools goes to a chapter of one of the author's own works, through the studio's chapter
 * functions: a new chapter at the end (存稿 or published, in one step, one transaction under
 * the work's lock), or appended to an existing 存稿 chapter. The chapter's AI label follows
 * from the generation log as for every chapter write (decision 126).
 */

/** How many works and draft chapters the form offers. */
const TARGETS_LIMIT = 200;

/** The author's works that take new chapters (not single-chapter works) and their 存稿 chapters. */
export async function chapterTargets(userId: string) {
  const [own, drafts] = await Promise.all([
    db
      .select({ id: works.id, title: works.title })
      .from(works)
      .where(and(eq(works.userId, userId), ne(works.type, "single_chapter")))
      .orderBy(desc(works.updatedAt), desc(works.id))
      .limit(TARGETS_LIMIT),
    db
      .select({ id: chapters.id, title: chapters.title, workId: works.id, workTitle: works.title })
      .from(chapters)
      .innerJoin(works, eq(works.id, chapters.workId))
      .where(and(eq(works.userId, userId), eq(chapters.state, "draft")))
      .orderBy(desc(works.updatedAt), asc(works.id), asc(chapters.position), asc(chapters.id))
      .limit(TARGETS_LIMIT),
  ]);
  return { works: own, drafts };
}

export type SavedToChapter = { workId: number; chapterId: number; mode: ToChapterInput["mode"] };

/** Saves the plot's current text as a chapter (see above); the user's own project and work only. */
export async function savePlotAsChapter(userId: string, input: ToChapterInput): Promise<SavedToChapter> {
  const plot = await getPlot(userId, input.projectId, input.plotId);
  const text = plot.content.replace(/^\s+|\s+$/gu, "");
  if (!text) throw new DomainError(TO_CHAPTER_MESSAGES.emptyText, 400);

  if (input.mode === "append") {
    const [row] = await db
      .select({ workId: chapters.workId })
      .from(chapters)
      .innerJoin(works, eq(works.id, chapters.workId))
      .where(and(eq(chapters.id, input.chapterId!), eq(works.userId, userId)));
    if (!row) throw chapterNotFound();
    await saveChapter(userId, row.workId, input.chapterId!, { kind: "append", text });
    return { workId: row.workId, chapterId: input.chapterId!, mode: "append" };
  }

  const workId = input.workId!;
  const chapterId = await newChapterFromText(userId, workId, { title: input.title?.trim() || plot.title, text, mode: input.mode, formToken: input.formToken });
  return { workId, chapterId, mode: input.mode };
}

/**
 * AI text as a new chapter at the end of a work, 存稿 or published, in one step (one
 * transaction under the work's lock; the AI label from the generation log), once per
 * one-time form token (decision 077). Shared by 存为章节 and 连载续写 (decision 142).
 */
export async function newChapterFromText(
  userId: string,
  workId: number,
  input: { title: string; text: string; mode: "draft" | "publish"; formToken?: string | null },
): Promise<number> {
  const release = input.mode === "publish" ? ({ mode: "now" } as const) : ({ mode: "draft" } as const);
  return oncePerFormToken(
    userId,
    "chapter",
    input.formToken || null,
    (record) => insertChapter(userId, workId, { title: input.title, content: input.text, release }, "end", { record }),
    async (resultId) => Number(resultId),
  );
}
