import { and, asc, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { aiLabelLines, labelledChapterNumbers } from "~/server/catalog/ai-labels.server";
import { DomainError } from "~/server/platform/errors.server";
import { DEFAULT_CHAPTER_SEPARATOR } from "~/server/studio/txt-import.server";
import { safeFileName } from "~/server/platform/download.server";

const BATCH = 200;

/** One chapter as the TXT import reads it back: separator line, title line, content. */
function chapterBlock(title: string, content: string, first: boolean): string {
  return `${first ? "" : "\n"}${DEFAULT_CHAPTER_SEPARATOR}\n${title}\n${content}\n`;
}

export interface WorkTxt {
  filename: string;
  workId: number;
  body: ReadableStream<Uint8Array>;
}

/**
 * A work's chapters in order as a TXT file that the publish wizard's TXT import
 * (parseTxtChapters with the #### separator) turns back into the same chapters. Read
 * and written in batches, so a long novel does not sit in memory. The checks come
 * first, so a missing work or empty content is an error response, not a broken file:
 * 无法加载导出：作品不存在, 未找到章节内容, 作品内容为空 (docs/product.md: Messages).
 */
export async function exportWorkTxt(workId: number): Promise<WorkTxt> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError(ADMIN_MESSAGES.workMissing, 404);
  const [work] = await db
    .select({ id: works.id, title: works.title, aiLevel: works.aiLevel, isAiGenerated: works.isAiGenerated })
    .from(works)
    .where(eq(works.id, workId));
  if (!work) throw new DomainError(ADMIN_MESSAGES.workMissing, 404);
  const [stats] = await db
    .select({
      count: sql<number>`count(*)`.mapWith(Number),
      nonEmpty: sql<number>`count(*) filter (where btrim(${chapters.content}, E' \\t\\r\\n') <> '')`.mapWith(Number),
    })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.state, "published")));
  if (stats.count === 0) throw new DomainError(ADMIN_MESSAGES.noChapters, 404);
  if (stats.nonEmpty === 0) throw new DomainError(ADMIN_MESSAGES.workEmpty, 404);

  // A labelled work starts with its AI label, visible and as metadata, before the first
  // separator (the import skips it): decision 126.
  const labels = aiLabelLines(work, await labelledChapterNumbers(db, and(eq(chapters.workId, workId), eq(chapters.state, "published"))!));
  const header = labels.length > 0 ? `《${work.title}》\n${labels.join("\n")}\n\n` : "";
  const encoder = new TextEncoder();
  // Keyset over the chapters' order (position, id): a batch never repeats or skips one.
  let after: { position: number; id: number } | null = null;
  let first = true;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const rows = await db
          .select({ id: chapters.id, position: chapters.position, title: chapters.title, content: chapters.content })
          .from(chapters)
          .where(
            and(
              eq(chapters.workId, workId),
              eq(chapters.state, "published"),
              after ? sql`(${chapters.position}, ${chapters.id}) > (${after.position}, ${after.id})` : undefined,
            ),
          )
          .orderBy(asc(chapters.position), asc(chapters.id))
          .limit(BATCH);
        if (cancelled) return;
        if (rows.length === 0) return controller.close();
        let text = first ? header : "";
        for (const row of rows) {
          text += chapterBlock(row.title, row.content, first);
          first = false;
        }
        after = { position: rows[rows.length - 1].position, id: rows[rows.length - 1].id };
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        if (cancelled) return;
        console.error("work TXT export failed", workId, error);
        controller.error(error);
      }
    },
    cancel() {
      cancelled = true;
    },
  });
  return { filename: `${safeFileName(work.title, `work-${work.id}`)}.txt`, workId: work.id, body };
}
