import { parseWithZod } from "@conform-to/zod/v4";
import { useEffect } from "react";
import { data, Form, Link, useLoaderData, useRevalidator } from "react-router";
import { ChapterOutline, DraftJobState, echoed, OutlineHistory, Refused, type OutlineFormEcho } from "~/components/studio/outline-panels";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { Pagination } from "~/components/ui/pagination";
import { OUTLINE_LIMITS, OUTLINE_MESSAGES } from "~/schemas/outline";
import { outlineActionSchema } from "~/schemas/outline-forms";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { runOutlineAction } from "~/server/studio/outline-actions.server";
import { outlineScreen } from "~/server/studio/outlines.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/outline";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `大纲《${data?.work.title ?? ""}》 - 砚台` }];

/** Chapters of a 卷 whose 细纲 one page shows. */
const CHAPTERS_PER_PAGE = 20;

const idParam = (raw: string | null) => (raw && /^\d{1,15}$/.test(raw) ? Number(raw) : null);

/** 大纲: the work's 总纲, its 卷纲 and each chapter's 细纲, with their versions and AI drafting (docs/decisions/255). */
export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [view, flash] = await Promise.all([
    outlineScreen(user.id, Number(params.id), { volume: idParam(url.searchParams.get("volume")), history: idParam(url.searchParams.get("history")) }).catch(asRouteError),
    takeFlash(request, url),
  ]);
  const pageCount = Math.max(1, Math.ceil(view.chapters.length / CHAPTERS_PER_PAGE));
  const page = Math.min(parsePage(url.searchParams.get("page")), pageCount);
  const chapters = view.chapters.slice((page - 1) * CHAPTERS_PER_PAGE, page * CHAPTERS_PER_PAGE);
  return data({ ...view, chapters, page, pageCount, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  const fields = Object.fromEntries([...form].filter((e): e is [string, string] => typeof e[1] === "string"));
  const submission = parseWithZod(form, { schema: outlineActionSchema });
  if (submission.status !== "success") return data<OutlineFormEcho>({ error: OUTLINE_MESSAGES.unknownAction, intent: fields.intent, fields }, { status: 400 });
  return replyOnDomainError(
    async () => {
      const done = await runOutlineAction(user.id, workId, submission.value);
      return redirectWithFlash(request, done.to, { kind: "success", text: done.notice });
    },
    (error): OutlineFormEcho => ({ error: error.message, intent: fields.intent, fields }),
  );
}

export default function Outline({ actionData }: Route.ComponentProps) {
  const { work, series, volumes, volume, chapters, job, history, page, pageCount, notice } = useLoaderData<typeof loader>();
  const echo = actionData as OutlineFormEcho | undefined;
  // With JavaScript the page follows a running draft job (without it, 刷新 shows the progress).
  const { revalidate } = useRevalidator();
  const drafting = job?.state === "pending";
  useEffect(() => {
    if (!drafting) return;
    const timer = setInterval(() => void revalidate(), 5_000);
    return () => clearInterval(timer);
  }, [drafting, revalidate]);
  const base = `/works/${work.id}/outline`;
  const errorOf = (intent: string, match: Record<string, string> = {}) =>
    echo?.intent === intent && Object.entries(match).every(([k, v]) => echo.fields?.[k] === v) ? echo.error : null;
  const volumeForm = (v: (typeof volumes)[number] | null) => {
    const key = { id: v ? String(v.id) : "" };
    const value = (name: string, saved: string) => echoed(echo, "volume-save", name, key, saved);
    return (
      <Form method="post" className="studio-card studio-form" aria-label={v ? `编辑卷纲「${v.title}」` : "新建卷纲"}>
        <input type="hidden" name="id" value={v?.id ?? ""} />
        <label className="field">
          <span>卷名</span>
          <input name="title" maxLength={OUTLINE_LIMITS.title} defaultValue={value("title", v?.title ?? "")} required />
        </label>
        <div className="bible-row">
          <label className="field bible-chapter">
            <span>从第几章</span>
            <input type="number" name="fromChapter" min={1} inputMode="numeric" defaultValue={value("fromChapter", v ? String(v.fromChapter) : "")} required />
          </label>
          <label className="field bible-chapter">
            <span>到第几章</span>
            <input type="number" name="toChapter" min={1} inputMode="numeric" defaultValue={value("toChapter", v ? String(v.toChapter) : "")} required />
          </label>
        </div>
        <label className="field">
          <span>卷纲（这一卷的主线、转折和结尾）</span>
          <textarea name="body" rows={5} maxLength={OUTLINE_LIMITS.volumeBody} defaultValue={value("body", v?.body ?? "")} />
        </label>
        <Refused message={errorOf("volume-save", key)} />
        <button type="submit" name="intent" value="volume-save" className="btn btn-primary">
          {v ? "保存卷纲" : "新建卷纲"}
        </button>
        {v && v.version > 1 ? <Link to={`${base}?history=${v.id}&volume=${v.id}#history`}>历史版本</Link> : null}
      </Form>
    );
  };

  return (
    <section className="studio-page bible-page">
      <StudioNav workId={work.id} title={work.title} current="outline" />
      <FlashMessage notice={notice} />
      <p className="muted">总纲写整部作品的走向，卷纲写每一卷（一段章节）的主线，细纲把每一章拆成节拍并给出字数。连载续写时可以按细纲逐个节拍生成。</p>

      <h2 id="series">总纲</h2>
      <Form method="post" className="studio-card studio-form" aria-label="总纲">
        <label className="field">
          <span>整部作品的主线、主要人物的命运和结局{series ? `（第 ${series.version} 版）` : ""}</span>
          <textarea name="body" rows={6} maxLength={OUTLINE_LIMITS.seriesBody} defaultValue={echoed(echo, "series-save", "body", {}, series?.body ?? "")} />
        </label>
        <Refused message={errorOf("series-save")} />
        <button type="submit" name="intent" value="series-save" className="btn btn-primary">
          保存总纲
        </button>
        {series && series.version > 1 ? <Link to={`${base}?history=${series.id}#history`}>历史版本</Link> : null}
      </Form>

      <h2 id="volumes">卷纲</h2>
      {volumes.length ? (
        <nav className="bible-tabs" aria-label="卷">
          {volumes.map((v) => (
            <Link key={v.id} to={`${base}?volume=${v.id}`} className={v.id === volume?.id ? "btn btn-primary" : "btn"} aria-current={v.id === volume?.id ? "page" : undefined}>
              {v.title}（第{v.fromChapter}–{v.toChapter}章）
            </Link>
          ))}
        </nav>
      ) : (
        <p className="muted">还没有卷纲。新建一卷，写下它的章节范围和主线，就可以为它的每一章写细纲或让AI起草。</p>
      )}
      {volume ? volumeForm(volume) : null}
      <details className="studio-card" open={volumes.length === 0 || errorOf("volume-save", { id: "" }) ? true : undefined}>
        <summary>新建卷纲</summary>
        {volumeForm(null)}
      </details>

      {volume ? (
        <section aria-labelledby="chapters">
          <h2 id="chapters">
            「{volume.title}」细纲（第{volume.fromChapter}–{volume.toChapter}章）
          </h2>
          <Form method="post" className="studio-card panel-form" aria-label="让AI起草细纲">
            <input type="hidden" name="volume" value={volume.id} />
            <p className="hint">AI会根据总纲、这一卷的卷纲和故事设定，每次起草几章的细纲，已有的细纲会被替换（旧的保存为历史版本）。按实际用量扣除Tokens；返回内容有误时退还。</p>
            <label className="field bible-chapter">
              <span>每批章数（1–{OUTLINE_LIMITS.batch}）</span>
              <input type="number" name="batch" min={1} max={OUTLINE_LIMITS.batch} inputMode="numeric" defaultValue={echoed(echo, "draft", "batch", {}, "5")} required />
            </label>
            <Refused message={errorOf("draft")} />
            <button type="submit" name="intent" value="draft" className="btn btn-primary" disabled={job?.state === "pending"}>
              让AI起草细纲
            </button>
          </Form>
          <DraftJobState job={job} />
          <ol className="outline-chapters">
            {chapters.map((c) => (
              <ChapterOutline key={`${c.chapter}-${c.version}`} workId={work.id} volumeId={volume.id} chapter={c} echo={echo} />
            ))}
          </ol>
          <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `${base}?volume=${volume.id}&page=${p}`} />
        </section>
      ) : null}

      {history ? (
        <OutlineHistory
          label={history.outline.kind === "series" ? "总纲" : history.outline.kind === "volume" ? `卷纲「${history.outline.title}」` : `第${history.outline.fromChapter}章细纲`}
          current={history.outline.version}
          versions={history.versions}
          back={volume ? String(volume.id) : ""}
        />
      ) : null}
      <Refused message={errorOf("restore")} />
    </section>
  );
}
