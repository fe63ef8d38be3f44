import { data, redirect } from "react-router";
import { continueSaveSchema, continueSchema, SERIES_MESSAGES, seriesFormSchema } from "~/schemas/series";
import { asRouteError, domainErrorOf } from "~/server/platform/errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { readSentFields } from "~/schemas/form-fields";
import { readFormData } from "~/server/platform/form-data.server";
import { newFormToken } from "~/server/platform/form-tokens.server";
import type { SessionUser } from "~/server/identity/session.server";
import { assembleContinuationContext, contextEstimate, contextView, type ContextEstimate, type ContextView } from "~/server/studio/context.server";
import { clichesOfWork, countCliches } from "~/server/studio/voice.server";
import {
  chapterCounts,
  checkChapter,
  ContinuationSubmitted,
  continuationResult,
  listOwnSeries,
  ownedSeries,
  saveContinuation,
  startContinuation,
} from "~/server/studio/continuation.server";
import { chapterOutlineBeats } from "~/server/studio/outlines.server";
import { beatPlan } from "~/schemas/outline";

/**
 * The loader and action of 连载续写 (docs/product.md#series-continuation, decisions
 * 141-142): the author picks one of their series, sees for the next chapter the recent summaries, the bible facts in force and
 * the open threads, writes a plan, and 生成下一章 (streamed from /api/continue with
 * JavaScript; without it this page's action runs the generation to completion and shows the
 * text by its request key, `?result=`). The edited text is saved as a new chapter, 存稿 or
 * published, in one step. Everything the page shows is in the URL.
 */
const MAX_BODY_BYTES = 8_000_000;

const pageUrl = (params: Record<string, string | number | undefined | null>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") search.set(k, String(v));
  const query = search.toString();
  return `/series-writing${query ? `?${query}` : ""}`;
};

export async function seriesLoader(url: URL, user: SessionUser) {
  const series = await listOwnSeries(user.id);
  const base = { series, balance: user.tokens };
  const rawWork = url.searchParams.get("work")?.trim();
  if (!rawWork) return data({ ...base, page: null });

  const work = await ownedSeries(user.id, Number(rawWork)).catch(asRouteError);
  const counts = await chapterCounts(work.id);
  const rawChapter = url.searchParams.get("chapter")?.trim();
  let chapter = counts.published + 1;
  let chapterError: string | null = null;
  if (rawChapter) {
    try {
      checkChapter(Number(rawChapter), counts.published);
      chapter = Number(rawChapter);
    } catch (error) {
      const known = domainErrorOf(error);
      if (!known) throw error;
      chapterError = known.message;
    }
  }
  // A chapter with a 细纲 starts from it: the beats as the plan, each asked with its marker (decision 256).
  const beats = await chapterOutlineBeats(work.id, chapter);
  const plan = url.searchParams.get("plan") ?? (beats ? beatPlan(beats) : "");
  // The sidebar shows what the prompt for this plan sends, from the function that builds
  // it (decision 155): the summaries, the entities with their facts in force, the threads.
  let context: ContextView | null = null;
  let estimate: ContextEstimate | { blocked: string };
  try {
    const assembled = await assembleContinuationContext(work.id, chapter, plan);
    context = contextView(assembled);
    estimate = contextEstimate(assembled);
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    estimate = { blocked: known.message };
  }

  const key = url.searchParams.get("result") ?? "";
  const stored = key ? await continuationResult(user.id, key) : null;
  const result = stored && stored.workId === work.id ? stored : null;
  const savedParam = url.searchParams.get("saved") ?? "";
  const saved = /^\d+-(draft|publish)$/.test(savedParam) ? { chapterId: Number(savedParam.split("-")[0]), mode: savedParam.split("-")[1] as "draft" | "publish" } : null;
  return data(
    {
      ...base,
      page: {
        work: { id: work.id, title: work.title },
        counts,
        chapter,
        chapterError,
        plan,
        beats,
        context,
        estimate,
        result:
          result?.state === "done"
            ? {
                text: result.text,
                charged: result.charged,
                chapter: result.chapter,
                endReason: result.endReason,
                notice: result.notice ?? null,
                // The 套话 in the delivered text, as the stream's `done` counts them (decision 257).
                cliches: countCliches(result.text, context?.voice.cliches ?? (await clichesOfWork(work.id))),
              }
            : null,
        resultMissing: Boolean(key) && !result ? SERIES_MESSAGES.resultGone : result?.state === "running" ? SERIES_MESSAGES.running : null,
        saved,
        requestKey: newFormToken(),
        formToken: newFormToken(),
      },
    },
    { status: chapterError ? 400 : 200 },
  );
}

export interface SeriesActionData {
  intent: string;
  error: string;
  content?: string;
  title?: string;
}

export async function seriesAction(request: Request, user: SessionUser) {
  let form: FormData;
  try {
    form = await readFormData(request, MAX_BODY_BYTES, "提交的内容过大");
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    return data<SeriesActionData>({ intent: "", error: known.message }, { status: known.status });
  }
  // The intent and the fields given back (this schema refuses nothing); then the intent's own schema.
  const { intent, content, title, chapter } = readSentFields(form, seriesFormSchema);
  const fields = Object.fromEntries(form);
  if (intent === "generate") {
    const parsed = continueSchema.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return data<SeriesActionData>({ intent, error: issue?.message ?? SERIES_MESSAGES.workMissing }, { status: issue?.path[0] === "workId" ? 404 : 400 });
    }
    const input = parsed.data;
    const back = () => redirect(pageUrl({ work: input.workId, chapter: input.chapter, plan: input.plan, result: input.requestKey }));
    try {
      const started = await startContinuation(user.id, input, request.signal);
      await started.generation.run(() => {});
      return back();
    } catch (error) {
      // The same form posted again shows what the first post generated, and charges nothing.
      if (error instanceof ContinuationSubmitted && error.result.state === "done") return back();
      const { message, status } = domainErrorOf(error, AI_MESSAGES.generationFailed);
      return data<SeriesActionData>({ intent, error: message }, { status });
    }
  }
  if (intent === "save") {
    const parsed = continueSaveSchema.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return data<SeriesActionData>({ intent, error: issue?.message ?? SERIES_MESSAGES.workMissing, content, title }, { status: issue?.path[0] === "workId" ? 404 : 400 });
    }
    try {
      const saved = await saveContinuation(user.id, parsed.data, chapter);
      return redirect(pageUrl({ work: saved.workId, saved: `${saved.chapterId}-${saved.mode}` }));
    } catch (error) {
      const known = domainErrorOf(error);
      if (!known) throw error;
      return data<SeriesActionData>({ intent, error: known.message, content, title }, { status: known.status });
    }
  }
  return data<SeriesActionData>({ intent, error: "未知操作" }, { status: 400 });
}

