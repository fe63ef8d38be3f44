import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { favorites } from "~/db/schema";
import { DomainError } from "~/server/platform/errors.server";
import { notifyUserChanged } from "~/server/platform/events.server";
import type { SessionUser } from "~/server/identity/session.server";
import { getWorkForViewer } from "~/server/catalog/works.server";

/** @internal */
export const FAVORITE_MESSAGES = {
  ownWork: "不能关注自己的作品",
  hidden: "当前显示设置下无法关注该作品",
  failed: "操作失败，请重试",
} as const;

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

/**
 * Follows (`on`) or unfollows a work. Idempotent: the form says which state it wants,
 * so a repeated submission changes nothing. Following needs a work the user may open
 * (not private, not an r18 work hidden by their settings) and not their own; unfollowing
 * is always allowed, so a work that became hidden can still be removed.
 */
export async function setFavorite(viewer: Viewer, workId: number, on: boolean): Promise<boolean> {
  if (!Number.isSafeInteger(workId) || workId <= 0) throw new DomainError("作品不存在", 404);
  if (!on) {
    const removed = await db
      .delete(favorites)
      .where(and(eq(favorites.userId, viewer.id), eq(favorites.workId, workId)))
      .returning({ workId: favorites.workId });
    if (removed.length > 0) await notifyUserChanged(viewer.id, "favorites");
    return false;
  }
  const { isOwner, gate } = await getWorkForViewer(workId, viewer);
  if (isOwner) throw new DomainError(FAVORITE_MESSAGES.ownWork, 403);
  if (gate !== "ok") throw new DomainError(FAVORITE_MESSAGES.hidden, 403);
  const added = await db
    .insert(favorites)
    .values({ userId: viewer.id, workId })
    .onConflictDoNothing()
    .returning({ workId: favorites.workId });
  if (added.length > 0) await notifyUserChanged(viewer.id, "favorites");
  return true;
}
