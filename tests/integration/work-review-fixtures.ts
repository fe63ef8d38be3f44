/**
 * Helpers shared by work-review.test.ts and work-review-appeals.test.ts (imported, never
 * run by itself): a work's title, description, cover and tags under review (decisions 214, 239).
 */
import { actorOf } from "./admin-fixtures";

/** What publishWork takes for a one-chapter work, completed and public. */
export const single = (title: string, extra: Record<string, unknown> = {}) =>
  ({ status: "completed", type: "single_chapter", title, description: "一段简介", rating: "all_ages", isAiGenerated: false, visibility: "public", content: "正文。", ...extra }) as never;

/** An author whose every change waits for review (users.review_required). */
export async function heldAuthor() {
  const { createUser } = await import("../fixtures/accounts");
  const { db } = await import("~/db/client.server");
  const { users } = await import("~/db/schema");
  const { eq } = await import("drizzle-orm");
  const author = await createUser();
  await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
  return author;
}

/** The work's own review items (not its chapters'), oldest first. */
export async function workItems(workId: number) {
  const { db } = await import("~/db/client.server");
  const { reviewItems } = await import("~/db/schema");
  const { and, eq, isNull } = await import("drizzle-orm");
  return db.select().from(reviewItems).where(and(eq(reviewItems.workId, workId), isNull(reviewItems.chapterId))).orderBy(reviewItems.id);
}

/** `reviewer` claims the item and decides it. */
export async function decideAs(reviewer: { id: string; email: string }, id: number, decision: "approve" | "return" | "reject", note = "") {
  const { claimItem, decideItem } = await import("~/server/admin/review-queue.server");
  await claimItem(actorOf(reviewer), "reviewer", id);
  return decideItem(actorOf(reviewer), "reviewer", id, decision, note);
}

/** The work's row as stored. */
export async function row(workId: number) {
  const { db } = await import("~/db/client.server");
  const { works } = await import("~/db/schema");
  const { eq } = await import("drizzle-orm");
  const [w] = await db.select().from(works).where(eq(works.id, workId));
  return w;
}

/** The titles a visitor's search for `title` finds now. */
export async function found(title: string) {
  const { clearPublicCache } = await import("~/server/platform/public-cache.server");
  const { searchWorks } = await import("~/server/catalog/search.server");
  clearPublicCache();
  return (await searchWorks({ query: title, page: 1, viewer: null })).works.map((w) => w.title);
}

/** The body of the user's newest 审核 notification. */
export async function lastLine(userId: string) {
  const { db } = await import("~/db/client.server");
  const { notifications } = await import("~/db/schema");
  const { and, desc, eq } = await import("drizzle-orm");
  const [line] = await db.select().from(notifications).where(and(eq(notifications.userId, userId), eq(notifications.kind, "review"))).orderBy(desc(notifications.id)).limit(1);
  return line?.body;
}

/** What updateWorkSettings takes to keep the work as it is, with `change` applied. */
export const settingsOf = (w: { title: string; description: string; tags: string[] }, change: Partial<{ title: string; description: string; tags: string[] }> = {}) => ({
  title: w.title,
  description: w.description,
  rating: "all_ages" as const,
  isAiGenerated: false,
  tags: [...w.tags],
  cover: "keep" as const,
  ...change,
});
