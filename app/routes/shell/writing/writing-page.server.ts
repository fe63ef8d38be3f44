import type { WritingActionData } from "~/types/writing";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import {
  characterSchema,
  draftSchema,
  plotContentSchema,
  plotSchema,
  projectNameSchema,
  sourceSchema,
  themeSchema,
  operationSchema,
  toChapterSchema,
  writingFormSchema,
} from "~/schemas/writing";
import { acceptCandidate, getOperation, OperationSubmitted, rejectOperation, startOperation } from "~/server/ai/operations.server";
import { newFormToken } from "~/server/platform/form-tokens.server";
import { chapterTargets, savePlotAsChapter } from "~/server/studio/from-writing.server";
import { normalizeLines } from "~/utils/text";
import { analyzeSource, listSourceWorks } from "~/server/ai/analysis.server";
import { prepareGeneration, startGeneration } from "~/server/ai/generation.server";
import { generationEstimate, type GenerationEstimate } from "~/utils/ai-tokens";
import { type DomainError, domainErrorOf, replyOnDomainError } from "~/server/platform/errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { readSentFields } from "~/schemas/form-fields";
import { readFormData } from "~/server/platform/form-data.server";
import type { SessionUser } from "~/server/identity/session.server";
import {
  applyEditsBeforeGeneration,
  createProject,
  deleteCharacter,
  deletePlot,
  deleteProject,
  DEFAULT_PROJECT_NAMES,
  getVersion,
  listProjects,
  listVersions,
  loadWorkspace,
  movePlot,
  renameProject,
  reorderPlots,
  saveCharacter,
  saveDraft,
  savePlot,
  savePlotContent,
  saveTheme,
  useVersion,
  type WritingKind,
} from "~/server/ai/writing-projects.server";

/**
 * The loader and action shared by /free-writing and /short-writing. Everything the page
 * shows is in the URL (project, tab, selected plot, the form or confirmation open, the
 * version viewed or compared), so every control is a link or a form that works without
 * JavaScript; with it, the same links navigate client-side and 生成 streams.
 */
const PATHS: Record<WritingKind, string> = { free: "/free-writing", short: "/short-writing" };

const param = (url: URL, name: string) => url.searchParams.get(name) ?? "";

/**
 * The largest form: a draft of 200,000 characters, which a form without JavaScript sends
 * URL-encoded (9 bytes for a Chinese character), with room to spare.
 */
const MAX_BODY_BYTES = 4_000_000;

/** The page URL for a project (and plot, tab), after a form post. */
function pageUrl(kind: WritingKind, projectId?: string, extra: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams();
  if (projectId) search.set("project", projectId);
  for (const [k, v] of Object.entries(extra)) if (v) search.set(k, v);
  const query = search.toString();
  return `${PATHS[kind]}${query ? `?${query}` : ""}`;
}

export async function writingLoader(url: URL, user: SessionUser, kind: WritingKind) {
  const projects = await listProjects(user.id, kind);
  const projectId = param(url, "project");
  if (!projectId && projects.length > 0) throw redirect(pageUrl(kind, projects[0].id));
  const base = { kind, balance: user.tokens, projects: projects.map((p) => ({ id: p.id, name: p.name })) };
  if (!projectId) return { ...base, workspace: null };

  let workspace;
  try {
    workspace = await loadWorkspace(user.id, projectId, kind);
  } catch (error) {
    if (domainErrorOf(error)?.status === 404) throw redirect(PATHS[kind]);
    throw error;
  }
  const { project, characters, plots } = workspace;
  const plot = plots.find((p) => p.id === param(url, "plot")) ?? null;
  const versions = plot ? await listVersions(user.id, project.id, plot.id) : [];
  const ownVersion = async (id: string) => {
    if (!plot || !id) return null;
    const v = await getVersion(user.id, project.id, id).catch(() => null);
    return v && v.plotId === plot.id ? { id: v.id, content: v.content, createdAt: v.createdAt, kind: v.kind, model: v.model, tokensCharged: v.tokensCharged } : null;
  };
  const operationOf = async (id: string) => {
    if (!plot || !id) return null;
    const op = await getOperation(user.id, project.id, id).catch(() => null);
    return op && op.plotId === plot.id ? op : null;
  };
  const [viewed, compareA, compareB, generated, operation, targets] = await Promise.all([
    ownVersion(param(url, "version")),
    ownVersion(param(url, "a")),
    ownVersion(param(url, "b")),
    ownVersion(param(url, "generated")),
    operationOf(param(url, "op")),
    plot ? chapterTargets(user.id) : null,
  ]);

  // The estimated prompt cost beside the balance, or what stands in the way of 生成.
  let estimate: (GenerationEstimate & { expectedWords: number; referenceChars: number }) | { blocked: string } | null = null;
  if (plot) {
    try {
      const prepared = await prepareGeneration(user.id, project.id, plot.id, kind);
      estimate = { ...generationEstimate(prepared.promptTokens, prepared.expectedWords), expectedWords: prepared.expectedWords, referenceChars: prepared.referenceChars ?? 0 };
    } catch (error) {
      const known = domainErrorOf(error);
      if (!known) throw error;
      estimate = { blocked: known.message };
    }
  }

  return {
    ...base,
    workspace: {
      project: {
        id: project.id,
        name: project.name,
        theme: project.theme,
        draft: project.draft,
        sourceTitle: project.sourceTitle,
        sourceWorkId: project.sourceWorkId,
        analyzedAt: project.analyzedAt,
      },
      characters: characters.map((c) => ({ id: c.id, name: c.name, personality: c.personality, appearance: c.appearance, other: c.other })),
      plots: plots.map((p) => ({
        id: p.id,
        title: p.title,
        summary: p.summary,
        environment: p.environment,
        expectedWords: p.expectedWords,
        additionalNotes: p.additionalNotes,
        characterIds: p.characterIds,
        content: p.content,
        currentVersionId: p.currentVersionId,
      })),
      selectedPlotId: plot?.id ?? null,
      versions,
      viewed,
      compare: compareA && compareB ? { a: compareA, b: compareB } : null,
      generated: generated && generated.kind === "generation" ? { tokensCharged: generated.tokensCharged } : null,
      // The editor's operations (decision 130): the one shown, and a fresh request key per page.
      operation: operation
        ? {
            id: operation.id,
            kind: operation.kind,
            status: operation.status,
            source: operation.source,
            acceptedIndex: operation.acceptedIndex,
            candidates: operation.candidates.map((c) => ({
              index: c.index,
              status: c.status,
              content: c.content,
              model: c.model,
              tokensCharged: c.tokensCharged,
              endReason: c.endReason,
              error: c.error,
              receiptId: c.transactionId,
            })),
          }
        : null,
      requestKey: newFormToken(),
      // 存为章节: the author's works and 存稿 chapters, and the form's one-time token.
      chapterTargets: targets,
      chapterFormToken: newFormToken(),
      chapterSaved: /^\d+-\d+-(draft|publish|append)$/.test(param(url, "chapterSaved")) ? param(url, "chapterSaved") : null,
      estimate,
      sources: kind === "short" ? await listSourceWorks(user, param(url, "sourceQ")) : [],
    },
  };
}

export type WritingLoaderData = Awaited<ReturnType<typeof writingLoader>>;


/** A refusal the page shows beside the control that was used (the answer of replyOnDomainError). */
const refused = (intent: string) => (error: DomainError): WritingActionData => ({ intent, error: error.message });

export async function writingAction(request: Request, user: SessionUser, kind: WritingKind) {
  const read = await replyOnDomainError(() => readFormData(request, MAX_BODY_BYTES, "提交的内容过大"), refused(""));
  if (!(read instanceof FormData)) return read;
  const form = read;
  // The fields every form posts, and the buttons' ids (this schema refuses nothing); then the intent's own schema.
  const fields = readSentFields(form, writingFormSchema);
  const { intent, projectId, selectedPlotId: plot, tab, fetcher } = fields;
  const back = (extra: Record<string, string | undefined> = {}) => redirect(pageUrl(kind, projectId, { plot, tab, ...extra }));
  const fetcherOk = () => (fetcher ? data<WritingActionData>({ intent, ok: true }) : back());

  return replyOnDomainError(async () => {
    switch (intent) {
      case "create-project": {
        const submission = parseWithZod(form, { schema: projectNameSchema });
        const name = submission.status === "success" ? submission.value.name : DEFAULT_PROJECT_NAMES[kind];
        const project = await createProject(user.id, kind, name);
        return redirect(pageUrl(kind, project.id));
      }
      case "rename-project": {
        const submission = parseWithZod(form, { schema: projectNameSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await renameProject(user.id, projectId, submission.value.name);
        return back();
      }
      case "delete-project":
        await deleteProject(user.id, projectId);
        return redirect(PATHS[kind]);
      case "save-theme": {
        const submission = parseWithZod(form, { schema: themeSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await saveTheme(user.id, projectId, submission.value.theme);
        return fetcherOk();
      }
      case "save-draft": {
        const submission = parseWithZod(form, { schema: draftSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await saveDraft(user.id, projectId, submission.value.draft);
        return fetcherOk();
      }
      case "save-character": {
        const submission = parseWithZod(form, { schema: characterSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await saveCharacter(user.id, projectId, submission.value);
        return back();
      }
      case "delete-character":
        await deleteCharacter(user.id, projectId, fields.characterId);
        return back();
      case "save-plot": {
        const submission = parseWithZod(form, { schema: plotSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        const plotId = await savePlot(user.id, projectId, submission.value);
        return back({ plot: plotId });
      }
      case "delete-plot": {
        const { plotId } = fields;
        await deletePlot(user.id, projectId, plotId);
        return back({ plot: plot === plotId ? "" : plot });
      }
      case "move-plot":
        await movePlot(user.id, projectId, fields.plotId, fields.direction);
        return back();
      case "reorder-plots":
        await reorderPlots(user.id, projectId, fields.order);
        return fetcherOk();
      case "save-content": {
        const submission = parseWithZod(form, { schema: plotContentSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await savePlotContent(user.id, projectId, submission.value.plotId, submission.value.content);
        return fetcher ? fetcherOk() : back({ plot: submission.value.plotId });
      }
      case "use-version": {
        const plotId = await useVersion(user.id, projectId, fields.versionId);
        return back({ plot: plotId });
      }
      case "generate":
        return await generateWithoutJavaScript(request, user.id, kind, projectId, fields.plotId || undefined, fields.content);
      case "operate":
        return await operateWithoutJavaScript(request, user.id, kind, projectId, form);
      case "accept-candidate": {
        const { plotId } = await acceptCandidate(user.id, projectId, fields.operationId, fields.index);
        return back({ plot: plotId });
      }
      case "reject-operation": {
        const { plotId } = await rejectOperation(user.id, projectId, fields.operationId);
        return back({ plot: plotId });
      }
      case "save-to-chapter": {
        const submission = parseWithZod(form, { schema: toChapterSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        const saved = await savePlotAsChapter(user.id, submission.value);
        return back({ plot: submission.value.plotId, chapterSaved: `${saved.workId}-${saved.chapterId}-${saved.mode}` });
      }
      case "analyze": {
        if (kind !== "short") break;
        const submission = parseWithZod(form, { schema: sourceSchema });
        if (submission.status !== "success") return data<WritingActionData>({ intent, result: submission.reply() }, { status: 400 });
        await analyzeSource(user, projectId, submission.value, request.signal);
        return back({ plot: "" });
      }
    }
    return data<WritingActionData>({ intent, error: "未知操作" }, { status: 400 });
  }, refused(intent));
}

/**
 * 生成 without JavaScript: the same generation as /api/generate, run to completion
 * before the page answers; then the page shows the plot's new text and its charge.
 */
async function generateWithoutJavaScript(request: Request, userId: string, kind: WritingKind, projectId: string, plotId: string | undefined, content: string | undefined) {
  try {
    if (typeof content === "string") await applyEditsBeforeGeneration(userId, projectId, plotId, { content: normalizeLines(content) });
    const generation = await startGeneration(userId, { projectId, plotId }, request.signal, kind);
    const result = await generation.run(() => {});
    return redirect(pageUrl(kind, projectId, { plot: plotId, generated: result.versionId ?? undefined, notice: result.reason !== "complete" ? result.reason : result.uncovered > 0 ? "uncovered" : undefined }));
  } catch (error) {
    const { message, status } = domainErrorOf(error, AI_MESSAGES.generationFailed);
    return data<WritingActionData>({ intent: "generate", error: message }, { status });
  }
}

/**
 * An operation without JavaScript (decision 130): no selection, so a paragraph by number or
 * the whole text; its candidates run to completion before the page answers, which then
 * shows them as differences (`?op=`). The same request posted again shows the same
 * operation and charges nothing.
 */
async function operateWithoutJavaScript(request: Request, userId: string, kind: WritingKind, projectId: string, form: FormData) {
  const submission = parseWithZod(form, { schema: operationSchema });
  if (submission.status !== "success") {
    const first = Object.values(submission.reply().error ?? {}).flat()[0];
    return data<WritingActionData>({ intent: "operate", error: first ?? "请求无效" }, { status: 400 });
  }
  const input = { ...submission.value, start: undefined, end: undefined };
  try {
    const run = await startOperation(userId, input, request.signal);
    await run.run(() => {});
    return redirect(pageUrl(kind, projectId, { plot: input.plotId, op: run.info.operationId }));
  } catch (error) {
    if (error instanceof OperationSubmitted) return redirect(pageUrl(kind, projectId, { plot: input.plotId, op: error.operationId }));
    const { message, status } = domainErrorOf(error, AI_MESSAGES.generationFailed);
    return data<WritingActionData>({ intent: "operate", error: message }, { status });
  }
}
