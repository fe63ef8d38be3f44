import { desc, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { prompts } from "~/db/schema";
import { ADMIN_MESSAGES, type PromptInput } from "~/schemas/admin";
import { pageWithin } from "~/utils/pagination";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DEFAULT_PROMPTS } from "~/server/platform/defaults.server";
import { DomainError } from "~/server/platform/errors.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";

const PROMPTS_PAGE_SIZE = 20;

export type Prompt = typeof prompts.$inferSelect;

/** docs/product.md: Back office, prompts: 20 a page, newest first. */
export async function listPrompts(page: number) {
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(prompts);
  const { page: current, pageCount } = pageWithin(page, total, PROMPTS_PAGE_SIZE);
  const rows = await db
    .select({ id: prompts.id, code: prompts.code, title: prompts.title, type: prompts.type, isSystem: prompts.isSystem, createdAt: prompts.createdAt })
    .from(prompts)
    .orderBy(desc(prompts.createdAt), desc(prompts.id))
    .limit(PROMPTS_PAGE_SIZE)
    .offset((current - 1) * PROMPTS_PAGE_SIZE);
  return { prompts: rows.map((r) => ({ ...r, builtIn: isBuiltInPrompt(r.code) })), total, page: current, pageCount };
}

export async function getPrompt(id: number): Promise<Prompt & { builtIn: boolean }> {
  const [row] = await db.select().from(prompts).where(eq(prompts.id, id));
  if (!row) throw new DomainError(ADMIN_MESSAGES.promptMissing, 404);
  return { ...row, builtIn: isBuiltInPrompt(row.code) };
}

function codeExists(error: unknown): never {
  if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(ADMIN_MESSAGES.promptCodeExists, 409, "code");
  throw error;
}

/**
 * The codes the site itself renders (P01-P03 and any added to DEFAULT_PROMPTS): such a
 * prompt can be edited but not deleted or given another code (docs/product.md#back-office).
 */
const BUILT_IN_PROMPT_CODES: ReadonlySet<string> = new Set(DEFAULT_PROMPTS.map((p) => p.code));

function isBuiltInPrompt(code: string): boolean {
  return BUILT_IN_PROMPT_CODES.has(code);
}

const auditFields = (p: PromptInput) => ({ code: p.code, title: p.title, type: p.type, isSystem: p.isSystem, systemContent: p.systemContent, userContent: p.userContent });

/** A new prompt; its code must not exist yet (提示词代码已存在), checked by the unique index. */
export async function createPrompt(actor: AdminActor, input: PromptInput, record?: RecordResult): Promise<number> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx.insert(prompts).values(input).returning({ id: prompts.id });
      await recordAdminAction(tx, actor, { action: "prompt.create", targetType: "prompt", targetId: row.id, after: auditFields(input) });
      await record?.(tx, row.id);
      return row.id;
    });
  } catch (error) {
    codeExists(error);
  }
}

export async function updatePrompt(actor: AdminActor, id: number, input: PromptInput): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      const [current] = await tx.select().from(prompts).where(eq(prompts.id, id)).for("update");
      if (!current) throw new DomainError(ADMIN_MESSAGES.promptMissing, 404);
      if (isBuiltInPrompt(current.code) && input.code !== current.code) {
        throw new DomainError(ADMIN_MESSAGES.builtInPromptCode, 400, "code");
      }
      await tx.update(prompts).set({ ...input, updatedAt: new Date() }).where(eq(prompts.id, id));
      const { before, after } = changedFields(auditFields(current), auditFields(input));
      await recordAdminAction(tx, actor, { action: "prompt.update", targetType: "prompt", targetId: id, before, after });
    });
  } catch (error) {
    if (error instanceof DomainError) throw error;
    codeExists(error);
  }
}

export async function deletePrompt(actor: AdminActor, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [current] = await tx.select().from(prompts).where(eq(prompts.id, id)).for("update");
    if (!current) throw new DomainError(ADMIN_MESSAGES.promptMissing, 404);
    if (isBuiltInPrompt(current.code)) throw new DomainError(ADMIN_MESSAGES.builtInPromptDelete, 409);
    await tx.delete(prompts).where(eq(prompts.id, id));
    await recordAdminAction(tx, actor, { action: "prompt.delete", targetType: "prompt", targetId: id, before: auditFields(current) });
  });
}
