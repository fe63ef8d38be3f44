import { createParser } from "eventsource-parser";
import { useCallback, useEffect, useRef, useState } from "react";
import type { GenerationSummary } from "./use-generation";

export interface LiveCandidate {
  index: number;
  text: string;
  status: "streaming" | "done" | "error";
  message?: string;
  summary?: GenerationSummary;
}

export type OperationState =
  | { status: "idle" }
  | { status: "streaming"; operationId?: string; candidates: LiveCandidate[]; balance?: number }
  | { status: "done"; operationId: string }
  | { status: "error"; message: string; operationId?: string };

type StartInfo = { operationId: string; balance: number; candidates: ({ index: number; model: string } | { index: number; error: string })[] };

/**
 * Posts an operation to /api/operate (decision 130) and reads its candidates' events as they
 * arrive. `stop` (or leaving the page) aborts the request: the server stops every candidate
 * and charges only what was sent. The finished operation is then shown from the page's
 * loader (`?op=`), the same view a page without JavaScript gets.
 */
export function useOperation() {
  const [state, setState] = useState<OperationState>({ status: "idle" });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);
  const stop = useCallback(() => controller.current?.abort(), []);

  const operate = useCallback(async (body: FormData): Promise<OperationState> => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    let current: Extract<OperationState, { status: "streaming" }> = { status: "streaming", candidates: [] };
    setState(current);
    const update = (change: (s: typeof current) => typeof current) => {
      current = change(current);
      setState(current);
    };
    const patch = (index: number, change: (c: LiveCandidate) => LiveCandidate) =>
      update((s) => ({ ...s, candidates: s.candidates.map((c) => (c.index === index ? change(c) : c)) }));
    let final: OperationState = { status: "error", message: "生成失败，请重试" };
    try {
      const response = await fetch("/api/operate", { method: "POST", body, signal: abort.signal });
      if (!response.ok || !response.body) {
        const answer = (await response.json().catch(() => null)) as { error?: string; operationId?: string } | null;
        final = { status: "error", message: answer?.error ?? "生成失败，请重试", operationId: answer?.operationId };
        return final;
      }
      const parser = createParser({
        onEvent: (event) => {
          const data = JSON.parse(event.data) as Record<string, unknown>;
          if (event.event === "start") {
            const info = data as unknown as StartInfo;
            update(() => ({
              status: "streaming",
              operationId: info.operationId,
              balance: info.balance,
              candidates: info.candidates.map((c) =>
                "error" in c ? { index: c.index, text: "", status: "error", message: c.error } : { index: c.index, text: "", status: "streaming" },
              ),
            }));
          } else if (event.event === "text") {
            patch(data.index as number, (c) => ({ ...c, text: c.text + (data.text as string) }));
          } else if (event.event === "done") {
            patch(data.index as number, (c) => ({ ...c, status: "done", summary: data.summary as GenerationSummary }));
          } else if (event.event === "error") {
            patch(data.index as number, (c) => ({ ...c, status: "error", message: data.message as string }));
          }
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      final = current.operationId ? { status: "done", operationId: current.operationId } : final;
      return final;
    } catch {
      final = current.operationId
        ? { status: "done", operationId: current.operationId }
        : abort.signal.aborted
          ? { status: "idle" }
          : { status: "error", message: "网络连接中断，请重试" };
      return final;
    } finally {
      if (controller.current === abort) controller.current = null;
      setState(final);
    }
  }, []);

  return { state, operate, stop };
}
