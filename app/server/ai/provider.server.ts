import type { CompletedText, TextStream } from "./http.server";

/** What generation and analysis send to any provider: a system and a user prompt. */
export interface ChatPrompt {
  system: string;
  user: string;
}

/**
 * One interface over the providers an administrator can configure (api_configs). Both
 * implementations speak HTTP themselves (fetch), so tests drive them against the test
 * provider in tests/fakes over real sockets.
 */
export interface AiProvider {
  readonly kind: "openai" | "gemini";
  readonly model: string;
  /**
   * Starts a streamed generation. Resolves once the provider answered OK (after docs/product.md D7's
   * retries); the generator yields text as it arrives. `return()` on the generator, or
   * aborting `signal`, closes the upstream connection.
   */
  stream(prompt: ChatPrompt, signal?: AbortSignal): Promise<TextStream>;
  /** The characters of the prompt as this provider sends it (what is charged). */
  promptChars(prompt: ChatPrompt): number;
  /** A non-streamed answer's text (the administrator's connectivity tests). */
  complete(prompt: ChatPrompt, signal?: AbortSignal): Promise<string>;
  /** A non-streamed answer with the usage the provider reported (analysis, which is charged). */
  completeWithUsage(prompt: ChatPrompt, signal?: AbortSignal): Promise<CompletedText>;
}

export interface ProviderConfig {
  provider: string;
  endpoint: string;
  apiKey: string;
  model: string;
}
