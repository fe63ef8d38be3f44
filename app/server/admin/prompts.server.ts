import { and, desc, eq, notInArray, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { prompts } from "~/db/schema";
import { ADMIN_MESSAGES, type PromptInput } from "~/schemas/admin";
import { pageCountOf } from "~/utils/pagination";
import { pgErrorCode, UNIQUE_VIOLATION } from "../db-utils.server";
import { REQUIRED_PROMPT_CODES } from "../defaults.server";
import { DomainError } from "../errors.server";

/** The editor's operation prompts are read by the product: edited, never deleted or renamed (decision 130). */
export const PROMPT_REQUIRED_MESSAGE = "该提示词为系统功能所必需，不能删除（可以编辑内容）";
export const PROMPT_CODE_FIXED_MESSAGE = "该提示词为系统功能所必需，不能修改代码";

async function requiredCodeOf(id: number): Promise<string | null> {
  const [row] = await db.select({ code: prompts.code }).from(prompts).where(eq(prompts.id, id));
  return row && REQUIRED_PROMPT_CODES.includes(row.code) ? row.code : null;
}

export const PROMPTS_PAGE_SIZE = 20;

export type Prompt = typeof prompts.$inferSelect;

/** docs/product.md: Back office, prompts: 20 a page, newest first. */
export async function listPrompts(page: number) {
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(prompts);
  const pageCount = pageCountOf(total, PROMPTS_PAGE_SIZE);
  const current = Math.min(page, pageCount);
  const rows = await db
    .select({ id: prompts.id, code: prompts.code, title: prompts.title, type: prompts.type, isSystem: prompts.isSystem, createdAt: prompts.createdAt })
    .from(prompts)
    .orderBy(desc(prompts.createdAt), desc(prompts.id))
    .limit(PROMPTS_PAGE_SIZE)
    .offset((current - 1) * PROMPTS_PAGE_SIZE);
  return { prompts: rows.map((r) => ({ ...r, required: REQUIRED_PROMPT_CODES.includes(r.code) })), total, page: current, pageCount };
}

export async function getPrompt(id: number): Promise<Prompt> {
  const [row] = await db.select().from(prompts).where(eq(prompts.id, id));
  if (!row) throw new DomainError("提示词不存在", 404);
  return row;
}

function codeExists(error: unknown): never {
  if (pgErrorCode(error) === UNIQUE_VIOLATION) throw new DomainError(ADMIN_MESSAGES.promptCodeExists, 409, "code");
  throw error;
}

/** A new prompt; its code must not exist yet (提示词代码已存在), checked by the unique index. */
export async function createPrompt(input: PromptInput): Promise<number> {
  try {
    const [row] = await db.insert(prompts).values(input).returning({ id: prompts.id });
    return row.id;
  } catch (error) {
    codeExists(error);
  }
}

export async function updatePrompt(id: number, input: PromptInput): Promise<void> {
  const required = await requiredCodeOf(id);
  if (required && input.code !== required) throw new DomainError(PROMPT_CODE_FIXED_MESSAGE, 409, "code");
  try {
    const rows = await db
      .update(prompts)
      .set({ ...input, updatedAt: new Date() })
      .where(eq(prompts.id, id))
      .returning({ id: prompts.id });
    if (rows.length === 0) throw new DomainError("提示词不存在", 404);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    codeExists(error);
  }
}

/** P04 and P05 cannot be deleted (docs/decisions/127): the continuation and summaries need them. */
export async function deletePrompt(id: number): Promise<void> {
  if (await requiredCodeOf(id)) throw new DomainError(PROMPT_REQUIRED_MESSAGE, 409);
  const rows = await db.delete(prompts).where(eq(prompts.id, id)).returning({ id: prompts.id });
  if (rows.length === 0) throw new DomainError("提示词不存在", 404);
}
