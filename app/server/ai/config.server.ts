import { eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { apiConfigs, siteConfigs } from "~/db/schema";
import { AiError } from "./ai-errors.server";
import type { UpstreamRequest } from "./http.server";
import { GeminiProvider, geminiRequest } from "./gemini.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { OpenAiProvider, openaiRequest } from "./openai.server";
import type { AiProvider, ChatPrompt, ProviderConfig } from "./provider.server";

/** The provider for a configuration row; an unknown provider name is refused. @internal */
export function providerFor(config: ProviderConfig): AiProvider {
  if (!URL.canParse(config.endpoint.trim())) {
    throw new AiError(AI_MESSAGES.serviceFailed, "config", undefined, `endpoint is not a URL: ${config.endpoint}`);
  }
  if (config.provider === "openai") return new OpenAiProvider(config);
  if (config.provider === "gemini") return new GeminiProvider(config);
  throw new AiError(AI_MESSAGES.unsupportedProvider, "config");
}

/**
 * The HTTP request a configuration sends for `prompt`: the same builder the providers
 * use, for the administrator's connectivity tests (which send it through their guarded
 * client), so a test calls the path with the headers that generation will.
 */
export function providerRequest(config: ProviderConfig, prompt: ChatPrompt, stream = false): UpstreamRequest {
  if (config.provider === "gemini") return geminiRequest(config, prompt, stream);
  if (config.provider === "openai") return openaiRequest(config, prompt, stream);
  throw new AiError(AI_MESSAGES.unsupportedProvider, "config");
}

/** The default_api_provider setting (null when absent) and the api_configs row it names. */
export type DefaultApiConfig = { id: string; config: ProviderConfig | null } | null;

/**
 * The provider of the site's default API configuration (site_configs
 * default_api_provider holds an api_configs id). Section 8: 未设置默认API配置 when none is
 * chosen, API配置不存在 when the id names no row.
 */
export function defaultProviderFrom(row: DefaultApiConfig): AiProvider {
  if (!row?.id.trim()) throw new AiError(AI_MESSAGES.noDefaultConfig, "config");
  if (!row.config) throw new AiError(AI_MESSAGES.configMissing, "config");
  return providerFor(row.config);
}

/**
 * The default configuration as one json column of a statement that reads something else
 * too (a generation's project, a continuation's work), for `defaultProviderFrom` once
 * parsed (`jsonColumn`): `(select ...) as api_config`.
 */
export const DEFAULT_API_CONFIG_JSON = sql`(select json_build_object('id', sc.value, 'config', case when ac.id is null then null else
    json_build_object('provider', ac.provider, 'endpoint', ac.endpoint, 'apiKey', ac.api_key, 'model', ac.model) end)
  from site_configs sc left join api_configs ac on ac.id::text = trim(sc.value)
  where sc.key = 'default_api_provider')`;

/** `defaultProviderFrom` with its own read (a generation reads it with the project). */
export async function defaultProvider(): Promise<AiProvider> {
  // One round trip: the setting and the row it names.
  const [row] = await db
    .select({ id: siteConfigs.value, config: apiConfigs })
    .from(siteConfigs)
    .leftJoin(apiConfigs, sql`${apiConfigs.id}::text = trim(${siteConfigs.value})`)
    .where(eq(siteConfigs.key, "default_api_provider"));
  return defaultProviderFrom(row ?? null);
}
