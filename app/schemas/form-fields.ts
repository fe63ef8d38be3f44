import { parseWithZod } from "@conform-to/zod/v4";
import { z } from "zod";

/**
 * Fields a schema names but does not check (docs/decisions/173): the domain function that
 * takes them checks them with its own Chinese message (a reason, an amount, an id it looks
 * up), as it does for its other callers, so the schema hands them over as sent (a field
 * left empty or missing is undefined).
 */
export const asSent = z.unknown().optional();

/** A row's id as a button posts it, as a number: a missing or malformed one is NaN, which the domain answers as 不存在. */
export const rowId = z
  .unknown()
  .optional()
  .transform((value) => Number(value));

/** A 0/1 field (a toggle's new state, "sent from the dialog"): true when it is "1". */
export const flag = z
  .unknown()
  .optional()
  .transform((value) => value === "1");

/**
 * Text handed over as sent, "" when missing (the route's `String(form.get(…) ?? "")`): an
 * id or a choice the domain function looks up itself. Unlike asSent, an empty field stays "".
 */
export const sentText = z
  .unknown()
  .catch(undefined)
  .transform((value) => (typeof value === "string" ? value : ""));

/**
 * A field exactly as sent, an empty one included, undefined when missing (`form.get(…)`):
 * for a field whose presence matters, such as a textarea that may be emptied.
 */
export const sentOrMissing = z
  .unknown()
  .catch(undefined)
  .transform((value) => (typeof value === "string" ? value : undefined));

/**
 * A form's fields through a schema that refuses nothing (made of the fields above): its
 * value, as parseWithZod reads the form. Used beside the schema that checks the form, for
 * what the action needs whatever that one says (the intent, the page to go back to).
 */
export function readSentFields<Schema extends z.ZodType>(form: FormData, schema: Schema): z.output<Schema> {
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success") throw new Error("a schema of sent fields refused a form");
  return submission.value as z.output<Schema>;
}

/**
 * The `intent` that picks one of a page's forms, parsed before that form's own schema
 * (decision 173): one of `intents`, or `otherwise` when it is missing or none of them (what
 * the route's `=== "…"` said). It never refuses: `otherwise` answers anything else.
 */
export function intentSchema<const Intent extends string>(intents: readonly [Intent, ...Intent[]], otherwise: NoInfer<Intent>) {
  return z.object({ intent: z.enum(intents).catch(otherwise) });
}

/** A page's `intent` as sent ("" when missing), parsed before the form's own schema so that a refused form's reply says which form it answers. */
export const sentIntentSchema = z.object({ intent: sentText });
