import { parseWithZod } from "@conform-to/zod/v4";
import { chapterAutosaveSchema } from "~/schemas/studio";
import { isSameOriginPost } from "~/server/platform/csrf.server";
import { domainErrorOf } from "~/server/platform/errors.server";
import { readFormData } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import type { Route } from "./+types/chapter-autosave";
import type { AutosaveReply } from "~/types/studio";

/** GET is not a thing here. */
export function loader() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

const reply = (body: AutosaveReply, status = 200) => Response.json(body, { status });

/**
 * POST /works/:id/chapters/:chapterId/autosave (content, revision): the chapter editor
 * saving as the author types (docs/decisions/095). Owner only (404 otherwise), same-origin
 * only; a revision another tab has moved past answers 409 and writes nothing.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { Allow: "POST" } });
  if (!isSameOriginPost(request)) return reply({ ok: false, error: "请从本站的编辑页面保存" }, 403);
  const user = context.get(userContext);
  try {
    const submission = parseWithZod(await readFormData(request), { schema: chapterAutosaveSchema });
    if (submission.status !== "success") {
      const first = Object.values(submission.error ?? {}).flat()[0];
      return reply({ ok: false, error: first ?? "提交的内容无效" }, 400);
    }
    const saved = await saveChapter(user.id, Number(params.id), Number(params.chapterId), {
      kind: "autosave",
      content: submission.value.content,
      authorNote: submission.value.authorNote,
      baseRevision: submission.value.revision,
    });
    return reply({ ok: true, ...saved, savedAt: saved.savedAt.toISOString() });
  } catch (error) {
    const known = domainErrorOf(error);
    if (known) return reply({ ok: false, error: known.message, stale: known.status === 409 || undefined }, known.status);
    throw error;
  }
}
