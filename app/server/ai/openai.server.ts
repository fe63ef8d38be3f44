import { completeText, streamText, type UpstreamRequest } from "./http.server";
import type { AiProvider, ChatPrompt, ProviderConfig } from "./provider.server";
import { countChars } from "~/utils/ai-tokens";

/**
 * The chat-completions URL for an endpoint given as a base URL (".../v1"), a bare host
 * (then "/v1" is the usual prefix: OpenAI, DeepSeek, Ollama, vLLM) or the full URL.
 * @internal
 */
export function openaiUrl(endpoint: string): string {
  const trimmed = endpoint.trim().replace(/\/+$/, "");
  if (/\/chat\/completions$/i.test(trimmed)) return trimmed;
  const url = new URL(trimmed);
  if (url.pathname === "" || url.pathname === "/") return `${url.origin}/v1/chat/completions${url.search}`;
  return `${trimmed}/chat/completions`;
}

/**
 * The request generation, analysis and the administrator's connectivity tests all send
 * (one builder, so a test checks what generation will do): the system and user prompts
 * as two messages, the key as a bearer token.
 */
export function openaiRequest(config: Pick<ProviderConfig, "endpoint" | "apiKey" | "model">, prompt: ChatPrompt, stream: boolean): UpstreamRequest {
  return {
    url: openaiUrl(config.endpoint),
    headers: {
      Authorization: `Bearer ${config.apiKey}`,
      Accept: stream ? "text/event-stream" : "application/json",
    },
    body: {
      model: config.model,
      messages: [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user },
      ],
      stream,
      // The usage of a streamed answer comes in a last chunk only when asked for (docs/product.md D15).
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    },
  };
}

/** Any server speaking the OpenAI chat-completions protocol (docs/product.md D7). */
export class OpenAiProvider implements AiProvider {
  readonly kind = "openai" as const;
  readonly model: string;

  constructor(private readonly config: ProviderConfig) {
    this.model = config.model;
  }

  private request(prompt: ChatPrompt, stream: boolean): UpstreamRequest {
    return openaiRequest(this.config, prompt, stream);
  }

  promptChars(prompt: ChatPrompt): number {
    return countChars(prompt.system) + countChars(prompt.user);
  }

  stream(prompt: ChatPrompt, signal?: AbortSignal) {
    return streamText("openai", this.request(prompt, true), signal);
  }

  async complete(prompt: ChatPrompt, signal?: AbortSignal) {
    return (await this.completeWithUsage(prompt, signal)).text;
  }

  completeWithUsage(prompt: ChatPrompt, signal?: AbortSignal) {
    return completeText("openai", this.request(prompt, false), signal);
  }
}
