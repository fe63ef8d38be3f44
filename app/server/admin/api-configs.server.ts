import { desc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { apiConfigs, siteConfigs } from "~/db/schema";
import { ADMIN_MESSAGES } from "~/schemas/admin";
import { DomainError } from "../errors.server";
import { getSiteConfigValue } from "../site-config.server";
import { OutboundError, outboundRequest, parseOutboundUrl } from "./outbound.server";
import { setSiteConfigs } from "./site-settings.server";

/**
 * AI provider connections (admin.md 2.11). The API key is written here and read by the
 * generation code on the server; it never goes back to the browser (DECISIONS D1): the
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

export async function createApiConfig(input: ApiConfigInput): Promise<string> {
  checkComplete(input, true);
  const [row] = await db
    .insert(apiConfigs)
    .values({ name: input.name, provider: input.provider, endpoint: input.endpoint, apiKey: input.apiKey, model: modelOf(input) })
    .returning({ id: apiConfigs.id });
  return row.id;
}

export async function updateApiConfig(id: string, input: ApiConfigInput): Promise<void> {
  checkComplete(input, false);
  const rows = await db
    .update(apiConfigs)
    .set({
      name: input.name,
      provider: input.provider,
      endpoint: input.endpoint,
      model: modelOf(input),
      ...(input.apiKey ? { apiKey: input.apiKey } : {}),
      updatedAt: new Date(),
    })
    .where(eq(apiConfigs.id, id))
    .returning({ id: apiConfigs.id });
  if (rows.length === 0) throw new DomainError("API配置不存在", 404);
}

/** Deleting the default config also clears default_api_provider. */
export async function deleteApiConfig(id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx.delete(apiConfigs).where(eq(apiConfigs.id, id)).returning({ id: apiConfigs.id });
    if (rows.length === 0) throw new DomainError("API配置不存在", 404);
    const [current] = await tx
      .select({ value: siteConfigs.value })
      .from(siteConfigs)
      .where(eq(siteConfigs.key, "default_api_provider"));
    if (current?.value === id) await setSiteConfigs({ default_api_provider: "" }, tx);
  });
}

/** One default at a time: site_configs.default_api_provider holds its id. */
export async function setDefaultApiConfig(id: string): Promise<void> {
  const [row] = await db.select({ id: apiConfigs.id }).from(apiConfigs).where(eq(apiConfigs.id, id));
  if (!row) throw new DomainError("API配置不存在", 404);
  await setSiteConfigs({ default_api_provider: id });
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

/** OpenAI-compatible: a base URL (…/v1) or the full …/chat/completions URL both work. */
export function chatCompletionsUrl(endpoint: string): string {
  const trimmed = endpoint.trim().replace(/\/+$/, "");
  return /\/chat\/completions$/.test(trimmed) ? trimmed : `${trimmed}/chat/completions`;
}

/** Gemini: {endpoint}models/{model}:generateContent, the endpoint ending in a slash. */
export function geminiGenerateUrl(endpoint: string, model: string, key: string): string {
  const base = endpoint.trim().replace(/\/*$/, "/");
  return `${base}models/${encodeURIComponent(model)}:generateContent?key=${encodeURIComponent(key)}`;
}

function failure(error: unknown, fallback: string): TestResult {
  if (error instanceof OutboundError) return { ok: false, message: `${fallback}：${error.message}` };
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
 * The configuration dialog's connectivity test, run from the server (admin.md 7):
 * openai: POST chat/completions with the bearer key and stream false; gemini:
 * generateContent with the key, success when the answer has candidates or
 * promptFeedback. 15 s at most.
 */
export async function testApiConnection(input: { provider: ApiProvider; endpoint: string; apiKey: string; model: string }): Promise<TestResult> {
  if (!input.endpoint || !input.apiKey) return { ok: false, message: ADMIN_MESSAGES.apiTestIncomplete };
  const model = input.model || (input.provider === "gemini" ? "gemini-pro" : "gpt-4-turbo-preview");
  try {
    if (input.provider === "gemini") {
      const res = await outboundRequest(geminiGenerateUrl(input.endpoint, model, input.apiKey), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ contents: [{ parts: [{ text: "你好" }] }] }),
      });
      if (res.status < 200 || res.status >= 300) return { ok: false, message: ADMIN_MESSAGES.apiConnectionFailed };
      const body = parseJson(res.text) as { candidates?: unknown; promptFeedback?: unknown } | null;
      if (!body || (!body.candidates && !body.promptFeedback)) return { ok: false, message: ADMIN_MESSAGES.apiInvalidFormat };
      return { ok: true, message: ADMIN_MESSAGES.apiConnected };
    }
    const res = await outboundRequest(chatCompletionsUrl(input.endpoint), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${input.apiKey}` },
      body: JSON.stringify({ model, stream: false, messages: [{ role: "user", content: "你好" }], max_tokens: 16 }),
    });
    if (res.status < 200 || res.status >= 300) return { ok: false, message: ADMIN_MESSAGES.apiConnectionFailed };
    return { ok: true, message: ADMIN_MESSAGES.apiConnected };
  } catch (error) {
    return failure(error, ADMIN_MESSAGES.apiConnectionFailed);
  }
}

/**
 * The third-party chat-interface test (admin.md 2.16, DECISIONS D7): endpoint, key and
 * model from the form, a system and a user message, and the reply's first 50 characters.
 */
export async function runChatTest(input: { endpoint: string; apiKey: string; model: string }): Promise<TestResult & { reply?: string }> {
  try {
    const res = await outboundRequest(chatCompletionsUrl(input.endpoint), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${input.apiKey}` },
      body: JSON.stringify({
        model: input.model,
        stream: false,
        messages: [
          { role: "system", content: "你是一个乐于助人的助手。" },
          { role: "user", content: "你好，请用一句话介绍你自己。" },
        ],
      }),
    });
    if (res.status < 200 || res.status >= 300) {
      const body = parseJson(res.text) as { error?: { message?: unknown } } | null;
      const detail = typeof body?.error?.message === "string" ? `：${body.error.message.slice(0, 200)}` : "";
      return { ok: false, message: `${ADMIN_MESSAGES.chatTestFailed}（HTTP ${res.status}）${detail}` };
    }
    const body = parseJson(res.text) as { choices?: { message?: { content?: unknown } }[] } | null;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== "string" || content === "") return { ok: false, message: ADMIN_MESSAGES.apiInvalidFormat };
    const reply = Array.from(content).slice(0, 50).join("");
    return { ok: true, message: `${ADMIN_MESSAGES.chatTestOk}：${reply}`, reply };
  } catch (error) {
    return failure(error, ADMIN_MESSAGES.chatTestFailed);
  }
}
