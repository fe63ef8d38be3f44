import { desc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { apiConfigs, siteConfigs } from "~/db/schema";
import { ADMIN_MESSAGES, CONTEXT_TOKENS_DEFAULT, CONTEXT_TOKENS_MAX, CONTEXT_TOKENS_MIN } from "~/schemas/admin";
import { AiError, errorForStatus } from "~/server/ai/ai-errors.server";
import { providerRequest } from "~/server/ai/config.server";
import type { ChatPrompt, ProviderConfig } from "~/server/ai/provider.server";
import { DomainError } from "~/server/platform/errors.server";
import { getSiteConfigValue } from "~/server/platform/site-config.server";
import { OutboundError, outboundRequest, parseOutboundUrl } from "~/server/platform/outbound-http.server";
import { changedFields, recordAdminAction, type AdminActor } from "~/server/platform/audit.server";
import { saveSiteSettings, setSiteConfigs } from "./site-settings.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";

/**
 * AI provider connections (docs/product.md: Back office). The API key is written here and read by the
 * generation code on the server; it never goes back to the browser (docs/product.md D1): the
 * table shows 20 stars, and editing with the key left blank keeps the stored one.
 */
export const MASKED_KEY = "*".repeat(20);

export type ApiProvider = "openai" | "gemini";

export interface ApiConfigView {
  id: string;
  name: string;
  provider: ApiProvider;
  endpoint: string;
  model: string;
  contextTokens: number;
  createdAt: Date;
  isDefault: boolean;
}

export async function listApiConfigs(): Promise<ApiConfigView[]> {
  const [rows, defaultId] = await Promise.all([
    db
      .select({
        id: apiConfigs.id,
        name: apiConfigs.name,
        provider: apiConfigs.provider,
        endpoint: apiConfigs.endpoint,
        model: apiConfigs.model,
        contextTokens: apiConfigs.contextTokens,
        createdAt: apiConfigs.createdAt,
      })
      .from(apiConfigs)
      .orderBy(desc(apiConfigs.createdAt), desc(apiConfigs.id)),
    getSiteConfigValue("default_api_provider"),
  ]);
  return rows.map((r) => ({ ...r, isDefault: r.id === defaultId }));
}

export interface ApiConfigInput {
  name: string;
  provider: ApiProvider;
  endpoint: string;
  apiKey: string;
  model: string;
  /** The continuation prompt's size limit in estimated tokens (docs/decisions/127); absent: the default. */
  contextTokens?: number;
}

function checkComplete(input: ApiConfigInput, keyRequired: boolean) {
  if (!input.name || !input.endpoint || (keyRequired && !input.apiKey)) {
    throw new DomainError(ADMIN_MESSAGES.apiConfigIncomplete, 400);
  }
  try {
    parseOutboundUrl(input.endpoint);
  } catch (error) {
    if (error instanceof OutboundError) throw new DomainError(error.message, 400, "endpoint");
    throw error;
  }
}

function modelOf(input: ApiConfigInput): string {
  return input.model || (input.provider === "gemini" ? "gemini-pro" : "gpt-4-turbo-preview");
}

function contextTokensOf(input: ApiConfigInput): number {
  const n = input.contextTokens;
  if (n === undefined) return CONTEXT_TOKENS_DEFAULT;
  if (!Number.isSafeInteger(n) || n < CONTEXT_TOKENS_MIN || n > CONTEXT_TOKENS_MAX) {
    throw new DomainError(`上下文大小必须是${CONTEXT_TOKENS_MIN}到${CONTEXT_TOKENS_MAX}之间的整数`, 400, "contextTokens");
  }
  return n;
}

const auditView = (c: { name: string; provider: string; endpoint: string; model: string; contextTokens?: number; apiKey?: string }) => ({
  name: c.name,
  provider: c.provider,
  endpoint: c.endpoint,
  model: c.model,
  ...(c.contextTokens !== undefined ? { contextTokens: c.contextTokens } : {}),
  ...(c.apiKey !== undefined ? { apiKey: c.apiKey } : {}),
});

export async function createApiConfig(actor: AdminActor, input: ApiConfigInput, record?: RecordResult): Promise<string> {
  checkComplete(input, true);
  return db.transaction(async (tx) => {
    const values = { name: input.name, provider: input.provider, endpoint: input.endpoint, apiKey: input.apiKey, model: modelOf(input), contextTokens: contextTokensOf(input) };
    const [row] = await tx.insert(apiConfigs).values(values).returning({ id: apiConfigs.id });
    await recordAdminAction(tx, actor, { action: "api-config.create", targetType: "api-config", targetId: row.id, after: auditView(values) });
    await record?.(tx, row.id);
    return row.id;
  });
}

export async function updateApiConfig(actor: AdminActor, id: string, input: ApiConfigInput): Promise<void> {
  checkComplete(input, false);
  await db.transaction(async (tx) => {
    const [current] = await tx.select().from(apiConfigs).where(eq(apiConfigs.id, id)).for("update");
    if (!current) throw new DomainError("API配置不存在", 404);
    const next = {
      name: input.name,
      provider: input.provider,
      endpoint: input.endpoint,
      model: modelOf(input),
      contextTokens: contextTokensOf(input),
      ...(input.apiKey ? { apiKey: input.apiKey } : {}),
    };
    await tx.update(apiConfigs).set({ ...next, updatedAt: new Date() }).where(eq(apiConfigs.id, id));
    const { before, after } = changedFields(auditView(current), auditView(next));
    await recordAdminAction(tx, actor, { action: "api-config.update", targetType: "api-config", targetId: id, before, after });
  });
}

/** Deleting the default config also clears default_api_provider. */
export async function deleteApiConfig(actor: AdminActor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx.delete(apiConfigs).where(eq(apiConfigs.id, id)).returning();
    if (rows.length === 0) throw new DomainError("API配置不存在", 404);
    const [current] = await tx
      .select({ value: siteConfigs.value })
      .from(siteConfigs)
      .where(eq(siteConfigs.key, "default_api_provider"));
    if (current?.value === id) await setSiteConfigs({ default_api_provider: "" }, tx);
    await recordAdminAction(tx, actor, { action: "api-config.delete", targetType: "api-config", targetId: id, before: auditView(rows[0]) });
  });
}

/** One default at a time: site_configs.default_api_provider holds its id. */
export async function setDefaultApiConfig(actor: AdminActor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ id: apiConfigs.id, name: apiConfigs.name }).from(apiConfigs).where(eq(apiConfigs.id, id));
    if (!row) throw new DomainError("API配置不存在", 404);
    await saveSiteSettings(actor, "api-config.default", { default_api_provider: id }, tx);
  });
}

/** The stored key of a config, for a connectivity test of an existing config. */
export async function storedApiKey(id: string): Promise<string> {
  const [row] = await db.select({ apiKey: apiConfigs.apiKey }).from(apiConfigs).where(eq(apiConfigs.id, id));
  return row?.apiKey ?? "";
}

export interface TestResult {
  ok: boolean;
  message: string;
}

/**
 * Sends a configuration's request for `prompt`, built by the same builder as generation
 * (providerRequest: same path, same headers, the Gemini key in a header), through the
 * guarded client. A non-2xx answer is an AiError with its message (docs/product.md, Messages).
 */
async function sendTest(config: ProviderConfig, prompt: ChatPrompt): Promise<unknown> {
  const upstream = providerRequest(config, prompt);
  const res = await outboundRequest(upstream.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...upstream.headers },
    body: JSON.stringify(upstream.body),
  });
  if (res.status < 200 || res.status >= 300) throw errorForStatus(res.status, res.text);
  return parseJson(res.text);
}

/** A failed test in Chinese: which failure (401, 500, unreachable, timeout...), after `fallback`. */
function failure(error: unknown, fallback: string): TestResult {
  if (error instanceof AiError && error.upstreamStatus) {
    console.warn("connectivity test: provider answered", error.upstreamStatus, error.detail);
    return { ok: false, message: `${fallback}（HTTP ${error.upstreamStatus}）：${error.message}` };
  }
  if (error instanceof OutboundError || error instanceof AiError) return { ok: false, message: `${fallback}：${error.message}` };
  console.error("connectivity test failed", error);
  return { ok: false, message: ADMIN_MESSAGES.testFailed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The configuration dialog's connectivity test, run from the server (docs/product.md: Back office):
 * openai: POST chat/completions with the bearer key and stream false; gemini:
 * generateContent with the key, success when the answer has candidates or
 * promptFeedback. 15 s at most.
 */
export async function testApiConnection(input: { provider: ApiProvider; endpoint: string; apiKey: string; model: string }): Promise<TestResult> {
  if (!input.endpoint || !input.apiKey) return { ok: false, message: ADMIN_MESSAGES.apiTestIncomplete };
  const model = input.model || (input.provider === "gemini" ? "gemini-pro" : "gpt-4-turbo-preview");
  try {
    const body = await sendTest({ ...input, model }, { system: "你是一个乐于助人的助手。", user: "你好" });
    if (input.provider === "gemini") {
      const answer = body as { candidates?: unknown; promptFeedback?: unknown } | null;
      if (!answer || (!answer.candidates && !answer.promptFeedback)) return { ok: false, message: ADMIN_MESSAGES.apiInvalidFormat };
    }
    return { ok: true, message: ADMIN_MESSAGES.apiConnected };
  } catch (error) {
    return failure(error, ADMIN_MESSAGES.apiConnectionFailed);
  }
}

/**
 * The third-party chat-interface test (docs/product.md: Back office, D7): endpoint, key and
 * model from the form, a system and a user message, and the reply's first 50 characters.
 */
export async function runChatTest(input: { endpoint: string; apiKey: string; model: string }): Promise<TestResult & { reply?: string }> {
  try {
    const body = (await sendTest(
      { provider: "openai", ...input },
      { system: "你是一个乐于助人的助手。", user: "你好，请用一句话介绍你自己。" },
    )) as { choices?: { message?: { content?: unknown } }[] } | null;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== "string" || content === "") return { ok: false, message: ADMIN_MESSAGES.apiInvalidFormat };
    const reply = Array.from(content).slice(0, 50).join("");
    return { ok: true, message: `${ADMIN_MESSAGES.chatTestOk}：${reply}`, reply };
  } catch (error) {
    return failure(error, ADMIN_MESSAGES.chatTestFailed);
  }
}
