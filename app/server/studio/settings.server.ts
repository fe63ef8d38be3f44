import { and, eq } from "drizzle-orm";
import { notifyAuthorFollowers } from "~/server/community/author-follows.server";
import { db } from "~/db/client.server";
import { works } from "~/db/schema";
import { STUDIO_MESSAGES, type WorkSettingsInput } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { DomainError } from "~/server/platform/errors.server";
import { deleteStoredImage, ImageError, storeCover } from "~/server/platform/images.server";
import { assertCategory } from "~/server/catalog/categories.server";
import { getOwnedWork, type Work } from "~/server/catalog/works.server";
import { maskTexts, refuseForbidden, type ScreenedField } from "~/server/screening/screening.server";
import { authorsMeta, settleWorkMeta } from "./work-review.server";

/**
 * Saves a work's settings (docs/product.md#author-studio): title, description, rating,
 * AI flag, tags, a series' status, and the cover (kept, replaced by `coverBytes`, or
 * reset to the site's default). Only the owner: another user's work is a 404 and
 * nothing changes. A new cover is stored before the row changes and removed again if
 * the change fails; the old one is removed only after the change has committed. When the
 * review policy holds this author (or a 审核 word is in them), the title, description, cover
 * and tags wait for a reviewer (decision 214): the work returned has them in `pendingMeta`,
 * or, for a new work not yet approved, still has `reviewListing`.
 */
export async function updateWorkSettings(
  userId: string,
  workId: number,
  input: WorkSettingsInput,
  coverBytes: Uint8Array | null,
): Promise<Work> {
  const current = await getOwnedWork(userId, workId);
  // A 审核 word in the title, description or tags holds the change for review (decision 214).
  const screen = await refuseForbidden(workFields(input));
  input = await maskWorkFields(input);
  if (input.status && input.status !== current.status && current.type !== "series") {
    throw new DomainError(STUDIO_MESSAGES.statusSeriesOnly, 400, "status");
  }
  if (input.categoryId !== undefined && input.categoryId !== null) await assertCategory(input.categoryId);
  if (input.cover === "replace" && !coverBytes) throw new DomainError(STUDIO_MESSAGES.coverRequired, 400, "coverFile");

  let newCover: string | null = null;
  if (input.cover === "replace" && coverBytes) {
    try {
      newCover = await storeCover(userId, coverBytes);
    } catch (error) {
      if (error instanceof ImageError) throw new DomainError(error.message, 400, "coverFile");
      throw error;
    }
  }
  const coverUrl = input.cover === "replace" ? newCover : input.cover === "reset" ? null : undefined;
  let saved: { work: Work; before: Work } | undefined;
  try {
    saved = await db.transaction(async (tx) => {
      // The row lock keeps the covers we delete afterwards the ones this save replaced.
      const [locked] = await tx
        .select()
        .from(works)
        .where(and(eq(works.id, workId), eq(works.userId, userId)))
        .for("no key update");
      if (!locked) return undefined;
      // The author edits the version they see: the one waiting for review, else the approved one.
      const base = authorsMeta(locked);
      const meta = await settleWorkMeta(
        tx,
        locked,
        { title: input.title, description: input.description, tags: [...input.tags], coverUrl: coverUrl === undefined ? base.coverUrl : coverUrl },
        screen.held,
      );
      const [row] = await tx
        .update(works)
        .set({
          rating: input.rating,
          isAiGenerated: input.isAiGenerated,
          ...meta,
          ...(current.type === "series" && input.status && input.status !== current.status
            ? { status: input.status, completedAt: input.status === "completed" ? new Date() : null }
            : {}),
          // Undefined keeps the category (a form without the field); null clears it.
          ...(input.categoryId !== undefined ? { categoryId: input.categoryId } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(works.id, workId), eq(works.userId, userId)))
        .returning();
      // A held new work that nothing holds any more goes on its listing: followers hear of it (decision 230).
      if (locked.reviewListing && !row.reviewListing) await notifyAuthorFollowers(tx, row.id);
      return { work: row, before: locked };
    });
  } catch (error) {
    await deleteStoredImage(newCover).catch(() => {});
    throw error;
  }
  if (!saved) {
    await deleteStoredImage(newCover).catch(() => {});
    throw new DomainError(WORK_MESSAGES.notFound, 404);
  }
  // Covers neither readers nor the version waiting use any more.
  const kept = new Set([saved.work.coverUrl, saved.work.pendingMeta?.coverUrl]);
  for (const old of new Set([saved.before.coverUrl, saved.before.pendingMeta?.coverUrl])) {
    if (old && !kept.has(old)) await deleteStoredImage(old).catch(() => {});
  }
  return saved.work;
}

/** A work's title, description and each tag, as screened when written (docs/product.md#screening). */
export function workFields(input: { title?: string | null; description?: string | null; tags?: readonly string[] | null }): ScreenedField[] {
  return [
    { label: "作品标题", field: "title", text: input.title },
    { label: "作品简介", field: "description", text: input.description },
    ...(input.tags ?? []).map((tag) => ({ label: "标签", field: "tags", text: tag })),
  ];
}

/**
 * The title, description and tags as readers will see them: 替换 words masked with ＊ when
 * written (decision 237), so every page, feed and export that shows them shows the masked
 * text without masking of its own.
 */
export async function maskWorkFields<T extends { title?: string | null; description?: string | null; tags?: readonly string[] | null }>(input: T): Promise<T> {
  const tags = input.tags ?? [];
  const [title, description, ...masked] = await maskTexts([input.title ?? "", input.description ?? "", ...tags]);
  return {
    ...input,
    title: input.title == null ? input.title : title,
    description: input.description == null ? input.description : description,
    tags: input.tags == null ? input.tags : masked,
  };
}
