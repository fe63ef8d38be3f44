import { inArray } from "drizzle-orm";
import { db } from "~/db/client.server";
import { prompts } from "~/db/schema";
import { AiError } from "./ai-errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { renderTemplate, type PromptValues } from "./render";
import type { ChatPrompt } from "./provider.server";
import { countChars } from "~/utils/ai-tokens";

/**
 * P01 free writing, P02 novel analysis, P03 short-piece imitation, P04 serial continuation
 * (docs/decisions/127), P05-P09 the editor's operations (decision 130), P10 chapter summary
 * and proposed facts (docs/decisions/128), P11 the continuity page's AI 审读 (decision 258).
 */
export type PromptCode = "P01" | "P02" | "P03" | "P04" | "P05" | "P06" | "P07" | "P08" | "P09" | "P10" | "P11";

/**
 * The prompt an administrator configured under `code`, rendered with `values`. Section 8:
 * 提示词不存在 when there is none (提示词配置缺失 for analysis), 提示词配置不完整，请联系管理员
 * when its system or user text is empty.
 */
export async function renderPrompt(code: PromptCode, values: PromptValues): Promise<ChatPrompt & { chars: number }> {
  return renderLoadedPrompt(code, (await loadPrompts([code])).get(code), values);
}

export type PromptTemplate = { system: string; user: string };

/** The templates of several codes in one query (a generation fetches P01 and P03 at once). */
export async function loadPrompts(codes: PromptCode[]): Promise<Map<string, PromptTemplate>> {
  const rows = await db
    .select({ code: prompts.code, system: prompts.systemContent, user: prompts.userContent })
    .from(prompts)
    .where(inArray(prompts.code, codes));
  return new Map(rows.map((r) => [r.code, { system: r.system, user: r.user }]));
}

export function renderLoadedPrompt(code: PromptCode, row: PromptTemplate | undefined, values: PromptValues): ChatPrompt & { chars: number } {
  if (!row) throw new AiError(code === "P02" ? AI_MESSAGES.analysisPromptMissing : AI_MESSAGES.promptMissing, "config");
  if (!row.system.trim() || !row.user.trim()) throw new AiError(AI_MESSAGES.promptIncomplete, "config");
  const system = renderTemplate(row.system, values);
  const user = renderTemplate(row.user, values);
  return { system, user, chars: countChars(system) + countChars(user) };
}
