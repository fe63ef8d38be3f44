import { asc, desc, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { categories, works } from "~/db/schema";
import { DISCOVERY_MESSAGES } from "~/schemas/category-field";
import type { CategoryAction } from "~/schemas/categories";
import { pgErrorCode } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { cachedPublic, clearPublicCache } from "~/server/platform/public-cache.server";
import { recordAdminAction, type AdminActor } from "~/server/platform/audit.server";

/**
 * The categories readers browse by (docs/decisions/121): a short list the administrators
 * edit at /admin/categories. A work has one or none (older works stay uncategorized).
 */
export interface Category {
  id: number;
  name: string;
}

/** Every category in the administrators' order (the shared few-second copy: not personal). */
export function listCategories(): Promise<Category[]> {
  return cachedPublic("categories", () => listCategoriesNow());
}

async function listCategoriesNow(): Promise<Category[]> {
  return db
    .select({ id: categories.id, name: categories.name })
    .from(categories)
    .orderBy(asc(categories.position), asc(categories.id));
}

/** A work form's category must exist (a deleted one, a forged id: a field error). */
export async function assertCategory(id: number): Promise<void> {
  const [row] = await db.select({ id: categories.id }).from(categories).where(eq(categories.id, id));
  if (!row) throw new DomainError(DISCOVERY_MESSAGES.categoryMissing, 400, "categoryId");
}

/** The administrators' list, with how many works each holds. */
export async function listCategoriesForAdmin() {
  return db
    .select({ id: categories.id, name: categories.name, works: sql<number>`(select count(*)::int from ${works} w where w.category_id = ${categories.id})` })
    .from(categories)
    .orderBy(asc(categories.position), asc(categories.id));
}

/**
 * One change of the administrators' list: add (at the end), rename, delete (its works
 * become uncategorized, by the foreign key), move up or down. Returns the notice.
 */
export async function runCategoryAction(actor: AdminActor, action: CategoryAction): Promise<string> {
  try {
    const notice = await db.transaction(async (tx) => {
      if (action.intent === "add") {
        const [{ last }] = await tx.select({ last: sql<number>`coalesce(max(${categories.position}), 0)::int` }).from(categories);
        const [row] = await tx.insert(categories).values({ name: action.name, position: last + 1 }).returning({ id: categories.id });
        await recordAdminAction(tx, actor, { action: "category.add", targetType: "category", targetId: row.id, after: { name: action.name } });
        return DISCOVERY_MESSAGES.categoryAdded;
      }
      const [current] = await tx.select().from(categories).where(eq(categories.id, action.id)).for("update");
      if (!current) throw new DomainError(DISCOVERY_MESSAGES.categoryMissing, 404);
      if (action.intent === "rename") {
        await tx.update(categories).set({ name: action.name }).where(eq(categories.id, action.id));
        await recordAdminAction(tx, actor, { action: "category.rename", targetType: "category", targetId: action.id, before: { name: current.name }, after: { name: action.name } });
        return DISCOVERY_MESSAGES.categorySaved;
      }
      if (action.intent === "delete") {
        await tx.delete(categories).where(eq(categories.id, action.id));
        await recordAdminAction(tx, actor, { action: "category.delete", targetType: "category", targetId: action.id, before: { name: current.name } });
        return DISCOVERY_MESSAGES.categoryDeleted;
      }
      // Swap places with the neighbour: (position, id) orders the list.
      const up = action.intent === "up";
      const before = sql`(${categories.position}, ${categories.id}) < (${current.position}, ${current.id})`;
      const after = sql`(${categories.position}, ${categories.id}) > (${current.position}, ${current.id})`;
      const [neighbour] = await tx
        .select()
        .from(categories)
        .where(up ? before : after)
        .orderBy(...(up ? [desc(categories.position), desc(categories.id)] : [asc(categories.position), asc(categories.id)]))
        .limit(1)
        .for("update");
      if (!neighbour) throw new DomainError(up ? DISCOVERY_MESSAGES.alreadyFirst : DISCOVERY_MESSAGES.alreadyLast, 400);
      // Equal positions (possible after manual edits) would not swap: spread them apart.
      const [a, b] = neighbour.position === current.position
        ? up ? [current.position - 1, current.position] : [current.position + 1, current.position]
        : [neighbour.position, current.position];
      await tx.update(categories).set({ position: a }).where(eq(categories.id, current.id));
      await tx.update(categories).set({ position: b }).where(eq(categories.id, neighbour.id));
      await recordAdminAction(tx, actor, { action: up ? "category.up" : "category.down", targetType: "category", targetId: current.id, before: { name: current.name } });
      return DISCOVERY_MESSAGES.categorySaved;
    });
    // No trigger announces a category change: this process forgets its copy at once,
    // the others within the copy's few seconds (docs/decisions/121).
    clearPublicCache();
    return notice;
  } catch (error) {
    if (pgErrorCode(error) === "23505") throw new DomainError(DISCOVERY_MESSAGES.categoryTaken, 409, "name");
    throw error;
  }
}
