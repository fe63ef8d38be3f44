import { completeText, streamText, type UpstreamRequest } from "./http.server";
import type { AiProvider, ChatPrompt, ProviderConfig } from "./provider.server";
import { countChars } from "~/utils/ai-tokens";

/**
 * {endpoint}models/{model}:{method}. The endpoint is the API version's base
 * (".../v1beta/"); a bare host gets "v1beta/". A model may be written "models/x".
 * @internal
 */
export function geminiUrl(endpoint: string, model: string, method: "streamGenerateContent" | "generateContent"): string {
  let base = endpoint.trim();
  const url = new URL(base);
  if (url.pathname === "" || url.pathname === "/") base = `${url.origin}/v1beta/`;
  if (!base.endsWith("/")) base += "/";
  base = base.replace(/models\/$/, "");
  const name = model.trim().replace(/^models\//, "");
  return `${base}models/${encodeURIComponent(name)}:${method}${method === "streamGenerateContent" ? "?alt=sse" : ""}`;
}

/** The one user part Gemini is sent: system and user prompts joined by a blank line. */
function geminiText(prompt: ChatPrompt): string {
  return `${prompt.system}\n\n${prompt.user}`;
}

/**
 * The request generation, analysis and the administrator's connectivity test all send
 * (one builder): the key in the x-goog-api-key header, never in the URL.
 */
export function geminiRequest(config: Pick<ProviderConfig, "endpoint" | "apiKey" | "model">, prompt: ChatPrompt, stream: boolean): UpstreamRequest {
  return {
    url: geminiUrl(config.endpoint, config.model, stream ? "streamGenerateContent" : "generateContent"),
    headers: { "x-goog-api-key": config.apiKey },
    body: { contents: [{ role: "user", parts: [{ text: geminiText(prompt) }] }] },
  };
}

/**
 * Gemini's own protocol. The key travels in the x-goog-api-key header (accepted like
 * ?key=, docs/protocols.md) so it never appears in a URL or a proxy's log. System and user
 * prompts are sent joined in one user part (docs/protocols.md#gemini): it works with
 * every model, including those without systemInstruction.
 */
export class GeminiProvider implements AiProvider {
  readonly kind = "gemini" as const;
  readonly model: string;

  constructor(private readonly config: ProviderConfig) {
    this.model = config.model;
  }

  private request(prompt: ChatPrompt, stream: boolean): UpstreamRequest {
    return geminiRequest(this.config, prompt, stream);
  }

  promptChars(prompt: ChatPrompt): number {
    return countChars(geminiText(prompt));
  }

  stream(prompt: ChatPrompt, signal?: AbortSignal) {
    return streamText("gemini", this.request(prompt, true), signal);
  }

  async complete(prompt: ChatPrompt, signal?: AbortSignal) {
    return (await this.completeWithUsage(prompt, signal)).text;
  }

  completeWithUsage(prompt: ChatPrompt, signal?: AbortSignal) {
    return completeText("gemini", this.request(prompt, false), signal);
  }
}
