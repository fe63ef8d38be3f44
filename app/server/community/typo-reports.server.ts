import { and, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { notifications } from "~/db/schema";
import { TYPO_MESSAGES, TYPO_SENTENCE_MAX, TYPO_SUGGESTION_MAX } from "~/schemas/typo-report-rules";
import { canReadChapter } from "~/server/catalog/chapter-access.server";
import { chapterNumber, getChapter } from "~/server/catalog/chapter-numbers.server";
import { getWorkForViewer } from "~/server/catalog/works.server";
import type { SessionUser } from "~/server/identity/session.server";
import { DomainError } from "~/server/platform/errors.server";
import { notifyUserChanged } from "~/server/platform/events.server";
import { hitRateLimit, type RateLimitRule } from "~/server/platform/rate-limit.server";
import { refuseForbidden } from "~/server/screening/screening.server";

/**
 * 错别字 reports (docs/product.md#typo-reports, decision 234): a reader quotes a sentence of
 * a chapter they may read, with an optional correction, and the work's author gets one
 * line in 消息通知 with the sentence and a link to the chapter. The sentence must be in the
 * chapter (whitespace aside); the correction is screened like a comment; a reader sends at
 * most TYPO_RATE a window (every process), and the same sentence of a chapter once while
 * the author has not read the line. Checks first, then the limit, then the one write.
 */

/** @internal */
export const TYPO_RATE: RateLimitRule = { limit: 10, windowSeconds: 600 };

type Reader = Pick<SessionUser, "id" | "showR18" | "showAi">;

/** Whitespace of any kind (line breaks between paragraphs a selection spans) as one space. */
function squeeze(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

export async function reportTypo(
  reader: Reader,
  input: { workId: number; chapterId: number; sentence: string; suggestion: string },
): Promise<void> {
  const sentence = squeeze(input.sentence);
  const suggestion = squeeze(input.suggestion);
  if (!sentence) throw new DomainError(TYPO_MESSAGES.sentenceEmpty, 400, "sentence");
  if (Array.from(sentence).length > TYPO_SENTENCE_MAX) throw new DomainError(TYPO_MESSAGES.sentenceTooLong, 400, "sentence");
  if (Array.from(suggestion).length > TYPO_SUGGESTION_MAX) throw new DomainError(TYPO_MESSAGES.suggestionTooLong, 400, "suggestion");

  const view = await getWorkForViewer(input.workId, reader);
  if (view.gate !== "ok") throw new DomainError(TYPO_MESSAGES.hidden, 403);
  if (view.isOwner) throw new DomainError(TYPO_MESSAGES.own, 400);
  const chapter = await getChapter(view.work.id, input.chapterId);
  if (!chapter || chapter.state !== "published" || chapter.kind !== "chapter") throw new DomainError(TYPO_MESSAGES.chapterMissing, 404);
  if (!view.canReadContent && !(await canReadChapter(view, reader, { id: chapter.id, order: await chapterNumber(db, chapter) }))) {
    throw new DomainError(TYPO_MESSAGES.locked, 403);
  }
  if (!squeeze(chapter.content).includes(sentence)) throw new DomainError(TYPO_MESSAGES.notInChapter, 400, "sentence");
  // A 禁止 word refuses the note (docs/product.md#screening); a 审核 word too, as there is no
  // review of these lines: the reader is asked to reword it.
  const { held } = await refuseForbidden([{ label: "修改建议", field: "suggestion", text: suggestion }]);
  if (held) throw new DomainError(TYPO_MESSAGES.suggestionHeld, 400, "suggestion");

  const body = suggestion ? `「${sentence}」 建议改为「${suggestion}」` : `「${sentence}」`;
  const [already] = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(
      and(
        eq(notifications.kind, "typo"),
        eq(notifications.userId, view.work.userId),
        eq(notifications.chapterId, chapter.id),
        eq(notifications.actorId, reader.id),
        sql`${notifications.readAt} is null`,
        sql`starts_with(${notifications.body}, ${`「${sentence}」`})`,
      ),
    )
    .limit(1);
  if (already) throw new DomainError(TYPO_MESSAGES.twice, 409);
  if (!(await hitRateLimit(`typo:${reader.id}`, TYPO_RATE))) throw new DomainError(TYPO_MESSAGES.rateLimited, 429);
  await db.insert(notifications).values({ userId: view.work.userId, kind: "typo", workId: view.work.id, chapterId: chapter.id, actorId: reader.id, body });
  await notifyUserChanged(view.work.userId, "notifications");
}
