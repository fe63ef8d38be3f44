import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { myWorksActionSchema } from "~/schemas/work";
import { DomainError } from "./errors.server";
import { deleteWork, tabOfVisibility, updateListing } from "./works.server";

/** Where to go back to after an action: the same page of /my-works, or the given path. */
function backTo(form: FormData, fallback: string): string {
  const back = String(form.get("back") ?? "");
  return back.startsWith("/my-works") || /^\/works\/\d+$/.test(back) ? back : fallback;
}

/** Price, visibility and delete actions on an owned work (DECISIONS D3). */
export async function handleMyWorksAction(userId: string, form: FormData) {
  const submission = parseWithZod(form, { schema: myWorksActionSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply(), workId: Number(form.get("workId")) || null }, { status: 400 });
  }
  const { intent, workId } = submission.value;
  try {
    if (intent === "delete") {
      const work = await deleteWork(userId, workId);
      const back = backTo(form, `/my-works?tab=${tabOfVisibility(work.visibility)}`);
      return redirect(back.startsWith("/works/") ? "/my-works" : back);
    }
    const work = await updateListing(
      userId,
      workId,
      intent === "set-price" ? { intent, price: submission.value.price } : { intent },
    );
    return redirect(backTo(form, `/my-works?tab=${tabOfVisibility(work.visibility)}`));
  } catch (error) {
    if (error instanceof DomainError) {
      return data(
        { result: submission.reply({ fieldErrors: { [error.field ?? ""]: [error.message] } }), workId },
        { status: error.status },
      );
    }
    throw error;
  }
}
