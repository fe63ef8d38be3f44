import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapters } from "~/db/schema";

/** One chapter of a work, with its text. Callers decide who may read it. */
export async function getChapter(workId: number, chapterId: number) {
  if (!Number.isSafeInteger(chapterId) || chapterId <= 0) return null;
  const [row] = await db
    .select()
    .from(chapters)
    .where(and(eq(chapters.id, chapterId), eq(chapters.workId, workId)));
  return row ?? null;
}

export async function getChapterByOrder(workId: number, order: number) {
  const [row] = await db
    .select()
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.order, order)));
  return row ?? null;
}
