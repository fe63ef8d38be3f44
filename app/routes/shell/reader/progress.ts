import { isSameOriginPost } from "~/server/platform/csrf.server";
import { readForm } from "~/server/platform/form-data.server";
import { readingProgressSchema } from "~/schemas/reader";
import { parseWithZod } from "@conform-to/zod/v4";
import { parseChapterOrder, parseFrom, saveProgressFor } from "~/server/reading/reader.server";
import { getSessionUser } from "~/server/identity/session.server";
import type { Route } from "./+types/progress";
import { toResponse } from "~/server/platform/errors.server";

/** GET is not a thing here (resource routes answer unknown use with 404/405). */
export function loader() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/**
 * POST /works/:id/progress (chapterId or chapter, paragraph, savedAt when kept offline): the reader page saves where the user
 * is while they scroll. Same-origin only; signed-in users who may read the work only.
 */
export async function action({ request, params }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { Allow: "POST" } });
  if (!isSameOriginPost(request)) return new Response(null, { status: 403 });
  const user = await getSessionUser(request);
  if (!user) return new Response(null, { status: 401 });
  const submission = parseWithZod(await readForm(request), { schema: readingProgressSchema });
  if (submission.status !== "success") return new Response(null, { status: 400 });
  // chapterId (stable across reorders, docs/decisions/080); chapter (its number) from older pages.
  const chapterId = parseChapterOrder(submission.value.chapterId);
  const order = parseChapterOrder(submission.value.chapter);
  if (chapterId === null && order === null) return new Response(null, { status: 400 });
  const ref = chapterId !== null ? { chapterId } : { order: order! };
  // A position kept while offline says when it was reached (decision 244): the newer one wins.
  // A time ahead of the server's clock counts as now.
  const sentAt = submission.value.savedAt === "" ? null : Number(submission.value.savedAt);
  if (sentAt !== null && !(Number.isSafeInteger(sentAt) && sentAt > 0)) return new Response(null, { status: 400 });
  const savedAt = sentAt === null ? undefined : new Date(Math.min(sentAt, Date.now()));
  try {
    const saved = await saveProgressFor(user, Number(params.id), ref, parseFrom(submission.value.paragraph), savedAt);
    return new Response(null, { status: saved ? 204 : 404 });
  } catch (error) {
    return toResponse(error);
  }
}
