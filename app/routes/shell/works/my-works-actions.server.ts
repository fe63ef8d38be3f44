import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { readSentFields } from "~/schemas/form-fields";
import { myWorksActionSchema, myWorksReturnSchema } from "~/schemas/work";
import { isUnder, safeRedirectPath } from "~/utils/redirect";
import { domainErrorOf } from "~/server/platform/errors.server";
import { deleteWork, tabOfVisibility, updateListing } from "~/server/catalog/works.server";

/** Where to go back to after an action: the same page of /my-works, or the given path. */
function backTo(back: unknown, fallback: string): string {
  return safeRedirectPath(back, fallback, (path) => isUnder("/my-works")(path) || /^\/works\/\d+$/.test(path));
}

/** The owner's intents on a work, from /my-works and from the reader page. */
export const OWNER_INTENTS = ["set-price", "make-free", "take-down", "put-on-shelf", "delete"] as const;

export type MyWorksOutcome =
  | { ok: true; redirectTo: string }
  | { ok: false; status: number; result: SubmissionResult; workId: number | null; message: string };

const firstMessage = (result: SubmissionResult) => Object.values(result.error ?? {}).flat()[0] ?? "操作失败";

/** Price, visibility and delete actions on an owned work (docs/product.md D3). */
export async function runMyWorksAction(userId: string, form: FormData): Promise<MyWorksOutcome> {
  const submission = parseWithZod(form, { schema: myWorksActionSchema });
  const { back, workId: sentWorkId } = readSentFields(form, myWorksReturnSchema);
  if (submission.status !== "success") {
    const result = submission.reply();
    return { ok: false, status: 400, result, workId: sentWorkId, message: firstMessage(result) };
  }
  const { intent, workId } = submission.value;
  try {
    if (intent === "delete") {
      const work = await deleteWork(userId, workId);
      const to = backTo(back, `/my-works?tab=${tabOfVisibility(work.visibility)}`);
      return { ok: true, redirectTo: to.startsWith("/works/") ? "/my-works" : to };
    }
    const work = await updateListing(
      userId,
      workId,
      intent === "set-price" ? { intent, price: submission.value.price } : { intent },
    );
    return { ok: true, redirectTo: backTo(back, `/my-works?tab=${tabOfVisibility(work.visibility)}`) };
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    const result = submission.reply({ fieldErrors: { [known.field ?? ""]: [known.message] } });
    return { ok: false, status: known.status, result, workId, message: known.message };
  }
}

/** The /my-works action: a redirect when done, the refusal as form data otherwise. */
export async function handleMyWorksAction(userId: string, form: FormData) {
  const outcome = await runMyWorksAction(userId, form);
  if (outcome.ok) return redirect(outcome.redirectTo);
  return data({ result: outcome.result, workId: outcome.workId }, { status: outcome.status });
}
