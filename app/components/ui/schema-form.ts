import { useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";

/**
 * Conform set up the house way, on the user side and in the back office: the same zod
 * schema validates on the client (when JavaScript runs) and in the action; the server's
 * reply is shown after a post.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function useSchemaForm<S extends z.ZodType<Record<string, any>, Record<string, any>>>(
  schema: S,
  options: { id: string; lastResult?: SubmissionResult<string[]> | null; defaultValue?: Record<string, unknown> },
) {
  return useForm<z.input<S>, z.output<S>>({
    id: options.id,
    lastResult: options.lastResult ?? undefined,
    defaultValue: options.defaultValue as never,
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate({ formData }) {
      return parseWithZod(formData, { schema });
    },
  });
}
