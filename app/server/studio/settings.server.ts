import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { works } from "~/db/schema";
import { STUDIO_MESSAGES, type WorkSettingsInput } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { DomainError } from "~/server/platform/errors.server";
import { deleteStoredImage, ImageError, storeCover } from "~/server/platform/images.server";
import { assertCategory } from "~/server/catalog/categories.server";
import { getOwnedWork, type Work } from "~/server/catalog/works.server";
import { refuseForbidden, type ScreenedField } from "~/server/screening/screening.server";

/**
 * Saves a work's settings (docs/product.md#author-studio): title, description, rating,
 * AI flag, tags, a series' status, and the cover (kept, replaced by `coverBytes`, or
 * reset to the site's default). Only the owner: another user's work is a 404 and
 * nothing changes. A new cover is stored before the row changes and removed again if
 * the change fails; the old one is removed only after the change has committed.
 */
export async function updateWorkSettings(
  userId: string,
  workId: number,
  input: WorkSettingsInput,
  coverBytes: Uint8Array | null,
): Promise<Work> {
  const current = await getOwnedWork(userId, workId);
  await refuseForbidden(workFields(input));
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
  let updated: Work | undefined;
  let oldCover: string | null = null;
  try {
    updated = await db.transaction(async (tx) => {
      // The row lock keeps the old cover URL we delete afterwards the one we replaced.
      const [locked] = await tx
        .select({ coverUrl: works.coverUrl })
        .from(works)
        .where(and(eq(works.id, workId), eq(works.userId, userId)))
        .for("no key update");
      if (!locked) return undefined;
      oldCover = locked.coverUrl;
      const [row] = await tx
        .update(works)
        .set({
          title: input.title,
          description: input.description,
          rating: input.rating,
          isAiGenerated: input.isAiGenerated,
          tags: input.tags,
          ...(current.type === "series" && input.status && input.status !== current.status
            ? { status: input.status, completedAt: input.status === "completed" ? new Date() : null }
            : {}),
          // Undefined keeps the category (a form without the field); null clears it.
          ...(input.categoryId !== undefined ? { categoryId: input.categoryId } : {}),
          ...(coverUrl !== undefined ? { coverUrl } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(works.id, workId), eq(works.userId, userId)))
        .returning();
      return row;
    });
  } catch (error) {
    await deleteStoredImage(newCover).catch(() => {});
    throw error;
  }
  if (!updated) {
    await deleteStoredImage(newCover).catch(() => {});
    throw new DomainError(WORK_MESSAGES.notFound, 404);
  }
  if (coverUrl !== undefined && oldCover && oldCover !== coverUrl) await deleteStoredImage(oldCover).catch(() => {});
  return updated;
}

/** A work's title, description and each tag, as screened when written (docs/product.md#screening). */
export function workFields(input: { title?: string | null; description?: string | null; tags?: readonly string[] | null }): ScreenedField[] {
  return [
    { label: "作品标题", field: "title", text: input.title },
    { label: "作品简介", field: "description", text: input.description },
    ...(input.tags ?? []).map((tag) => ({ label: "标签", field: "tags", text: tag })),
  ];
}
