import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters } from "~/db/schema";
import { canReadChapter } from "~/server/catalog/chapter-access.server";
import { chapterOrder, isPublished } from "~/server/catalog/chapter-numbers.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { refuseClosedHours } from "~/server/identity/minor-mode.server";
import { DomainError } from "~/server/platform/errors.server";
import { splitParagraphs } from "~/utils/reading";
import { getProgress, paragraphBatch, READER_MESSAGES } from "./reader.server";

/**
 * 离线阅读 (docs/product.md#reading-comfort, decision 244): which chapters a signed-in reader
 * may keep on their device. The server decides, chapter by chapter, with the same rule as
 * the reader page (canReadChapter): a free chapter, or one the reader owns; a paid chapter
 * they do not own is never listed, so its text never reaches their cache.
 */

export const OFFLINE_MESSAGES = {
  signIn: "离线阅读需要先登录",
  hidden: "该作品暂时无法离线阅读",
  locked: "这一章需要购买后才能离线阅读",
  none: "没有可以离线阅读的章节",
};

export interface OfflinePlan {
  /** The chapters kept, by number and title. */
  chapters: { order: number; title: string }[];
  /** What the device fetches and keeps: each chapter's page and the rest of its text in batches. */
  urls: string[];
  /** Chapters in the span the reader may not read (paid, not owned): not kept. */
  locked: number;
}

/**
 * The next `count` chapters from `from` (a chapter number; by default where the reader is,
 * else the first), those the reader may read. An explicit `from` they may not read is a 403.
 */
export async function offlinePlan(viewer: NonNullable<Viewer>, workId: number, count: number, from: number | null): Promise<OfflinePlan> {
  const view = await getWorkForViewer(workId, viewer);
  if (view.gate !== "ok") throw new DomainError(OFFLINE_MESSAGES.hidden, 403);
  // 青少年模式's reading hours (decision 218): nothing to read now, nothing to keep either.
  await refuseClosedHours(viewer.id);
  const start = from ?? (await getProgress(viewer.id, workId))?.chapterOrder ?? 1;
  const span = await db
    .select({ id: chapters.id, title: chapters.title, content: chapters.content })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), isPublished))
    .orderBy(...chapterOrder)
    .offset(start - 1)
    .limit(count);
  if (from !== null && span.length === 0) throw new DomainError(READER_MESSAGES.chapterMissing, 404);
  const plan: OfflinePlan = { chapters: [], urls: [], locked: 0 };
  for (const [i, chapter] of span.entries()) {
    const order = start + i;
    if (!(await canReadChapter(view, viewer, { id: chapter.id, order }))) {
      if (i === 0 && from !== null) throw new DomainError(OFFLINE_MESSAGES.locked, 403);
      plan.locked++;
      continue;
    }
    plan.chapters.push({ order, title: chapter.title });
    plan.urls.push(`/works/${workId}?chapter=${order}`);
    // The page holds the first batch; the reader asks for the others as it scrolls.
    const paragraphs = splitParagraphs(chapter.content);
    for (let next = paragraphBatch(paragraphs, 0).next; next !== null; next = paragraphBatch(paragraphs, next).next) {
      plan.urls.push(`/works/${workId}/paragraphs?chapter=${order}&from=${next}`);
    }
  }
  if (plan.chapters.length === 0 && plan.locked === 0) throw new DomainError(OFFLINE_MESSAGES.none, 404);
  return plan;
}
