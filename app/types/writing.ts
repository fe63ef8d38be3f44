import type { SubmissionResult } from "@conform-to/react";

/**
 * The writing tools' action answer (routes/shell/writing/writing-page.server.ts), read by
 * the panels in components/writing/: here so the components import no route module
 * (docs/architecture.md#domains).
 */
export interface WritingActionData {
  intent: string;
  result?: SubmissionResult<string[]>;
  error?: string;
  ok?: boolean;
}
