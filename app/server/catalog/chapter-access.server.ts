import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterPurchases, type works } from "~/db/schema";
import type { getWorkForViewer, Viewer } from "./works.server";

/**
 * Who may read which chapter of a work sold by chapter (docs/product.md#paying-by-chapter,
 * decision 110). The reader, the 本章说 and 段评, and the sales all ask here; the purchases
 * themselves are written by economy/chapter-sales.server.ts. It sits in catalog, beside
 * `getWorkForViewer`, so that community (before economy in the domains' order) may ask it
 * (docs/architecture.md#domains).
 */

/** A work is sold by chapter while it is paid (public-vip) and its mode says so. */
export function isByChapter(work: Pick<typeof works.$inferSelect, "visibility" | "saleMode" | "vipFrom">): work is typeof work & { vipFrom: number } {
  return work.visibility === "public-vip" && work.saleMode === "chapter" && work.vipFrom !== null;
}

/** The hot path of an owned VIP chapter: one lookup on the (user, chapter) unique index. */
async function ownsChapter(userId: string, chapterId: number): Promise<boolean> {
  const rows = await db
    .select({ id: chapterPurchases.id })
    .from(chapterPurchases)
    .where(and(eq(chapterPurchases.userId, userId), eq(chapterPurchases.chapterId, chapterId)))
    .limit(1);
  return rows.length > 0;
}

type View = Awaited<ReturnType<typeof getWorkForViewer>>;

/**
 * Whether the viewer may read the `order`-th chapter: the whole work (owner, buyer, free
 * work), a free 试读 chapter of a work sold by chapter, or a chapter they bought (kept
 * even if the work later changes how it is sold).
 */
export async function canReadChapter(view: View, viewer: Viewer, chapter: { id: number; order: number }): Promise<boolean> {
  if (view.canReadContent) return true;
  if (view.gate !== "ok") return false;
  if (isByChapter(view.work) && chapter.order < view.work.vipFrom) return true;
  if (!viewer) return false;
  return ownsChapter(viewer.id, chapter.id);
}
