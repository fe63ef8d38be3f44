import { createParser } from "eventsource-parser";
import { useCallback, useEffect, useRef, useState } from "react";

export interface GenerationSummary {
  reason: "complete" | "tokens-exhausted" | "daily-cap" | "aborted" | "limit";
  charged: number;
  promptTokens: number;
  /** What the charge rests on (docs/product.md D15): the provider's usage or the estimate. */
  metering: "actual" | "estimate";
  inputTokens: number;
  outputTokens: number;
  outputChars: number;
  balance: number;
  versionId: string | null;
  notice?: string;
  /** 连载续写: the 套话 found in the text (decision 257). */
  cliches?: { phrase: string; count: number }[];
}

export type GenerationState =
  | { status: "idle" }
  | { status: "streaming"; promptTokens?: number; balance?: number }
  | { status: "done"; summary: GenerationSummary }
  | { status: "error"; message: string };

/**
 * Posts to /api/generate (or /api/continue, 连载续写) and reads its Server-Sent Events as they arrive, handing each
 * piece of text to `onText`. The state is kept by hand because a streamed fetch has no
 * router pending state (a fetcher would only see the finished answer). Unmounting, or
 * `stop`, aborts the request: the server then stops the provider and charges only what
 * was sent.
 */
export function useGeneration(url = "/api/generate") {
  const [state, setState] = useState<GenerationState>({ status: "idle" });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const stop = useCallback(() => controller.current?.abort(), []);

  const generate = useCallback(async (body: FormData, onText: (text: string) => void): Promise<GenerationState> => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setState({ status: "streaming" });
    let final: GenerationState = { status: "error", message: "生成失败，请重试" };
    try {
      const response = await fetch(url, { method: "POST", body, signal: abort.signal });
      if (!response.ok || !response.body) {
        const answer = (await response.json().catch(() => null)) as { error?: string } | null;
        final = { status: "error", message: answer?.error ?? "生成失败，请重试" };
        return final;
      }
      const parser = createParser({
        onEvent: (event) => {
          const data = JSON.parse(event.data) as unknown;
          if (event.event === "start") {
            const info = data as { promptTokens: number; balance: number };
            setState({ status: "streaming", promptTokens: info.promptTokens, balance: info.balance });
          }
          else if (event.event === "text") onText(data as string);
          else if (event.event === "done") final = { status: "done", summary: data as GenerationSummary };
          else if (event.event === "error") final = { status: "error", message: (data as { message: string }).message };
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      return final;
    } catch {
      final = abort.signal.aborted ? { status: "idle" } : { status: "error", message: "网络连接中断，请重试" };
      return final;
    } finally {
      if (controller.current === abort) controller.current = null;
      setState(final);
    }
  }, [url]);

  return { state, generate, stop };
}
