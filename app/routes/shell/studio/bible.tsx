import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, useLoaderData } from "react-router";
import { EntitiesPanel, SummariesPanel, ThreadsPanel } from "~/components/studio/bible-panels";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { FormError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { BIBLE_MESSAGES, bibleActionSchema } from "~/schemas/bible";
import { asRouteError, replyOnDomainError } from "~/server/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/flash.server";
import { readForm } from "~/server/form-data.server";
import { userContext } from "~/server/guards.server";
import { runBibleAction, type BibleTab } from "~/server/studio/bible-actions.server";
import { bibleView, summariesView } from "~/server/studio/bible.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/bible";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `故事设定《${data?.work.title ?? ""}》 - 砚台` }];

const TABS: { id: BibleTab; label: string }[] = [
  { id: "bible", label: "设定" },
  { id: "threads", label: "伏笔" },
  { id: "summaries", label: "摘要" },
];

function tabOf(value: string | null): BibleTab {
  return value === "threads" || value === "summaries" ? value : "bible";
}

function idParam(value: string | null): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const tab = tabOf(url.searchParams.get("tab"));
  const page = parsePage(url.searchParams.get("page"));
  const [view, summaries, flash] = await Promise.all([
    bibleView(user.id, workId).catch(asRouteError),
    tab === "summaries" ? summariesView(user.id, workId, page).catch(asRouteError) : null,
    takeFlash(request, url),
  ]);
  return data(
    { ...view, tab, summaries, edit: idParam(url.searchParams.get("edit")), editFact: idParam(url.searchParams.get("editFact")), notice: flash.notice, loadedAt: Date.now() },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  const page = parsePage(String(form.get("page") ?? ""));
  const submission = parseWithZod(form, { schema: bibleActionSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    const message = errors.intent || errors[""] ? BIBLE_MESSAGES.unknownAction : (Object.values(errors).flat().find(Boolean) ?? BIBLE_MESSAGES.unknownAction);
    return data({ error: message }, { status: 400 });
  }
  return replyOnDomainError(
    async () => {
      const { notice, tab, anchor } = await runBibleAction(user.id, workId, submission.value);
      const query = tab === "bible" ? "" : `?tab=${tab}${tab === "summaries" && page > 1 ? `&page=${page}` : ""}`;
      return redirectWithFlash(request, `/works/${workId}/bible${query}${anchor ? `#${anchor}` : ""}`, { kind: "success", text: notice });
    },
    (error) => ({ error: error.message }),
  );
}

export default function StoryBible({ actionData }: Route.ComponentProps) {
  const { work, tab, published, entities, threads, proposals, jobs, summaries, edit, editFact, notice, loadedAt } = useLoaderData<typeof loader>();
  const base = `/works/${work.id}/bible`;
  const overdue = threads.filter((t) => t.overdue).length;
  return (
    <section className="studio-page bible-page">
      <StudioNav workId={work.id} title={work.title} current="bible" />
      <FlashMessage notice={notice} />
      <FormError errors={actionData?.error} className="notice notice-error" />
      <div className="studio-toolbar">
        <nav className="bible-tabs" aria-label="故事设定">
          {TABS.map((t) => (
            <Link key={t.id} to={t.id === "bible" ? base : `${base}?tab=${t.id}`} className={t.id === tab ? "btn btn-primary" : "btn"} aria-current={t.id === tab ? "page" : undefined}>
              {t.label}
              {t.id === "threads" && overdue ? <span className="badge badge-r18">逾期 {overdue}</span> : null}
              {t.id === "summaries" && proposals.length ? <span className="badge">待处理 {proposals.length}</span> : null}
            </Link>
          ))}
        </nav>
        <Link to={`/works/${work.id}/context`}>本次上下文 →</Link>
      </div>
      <p className="muted">章节号按读者看到的顺序（已发布的章节）计算，目前已发布 {published} 章。</p>
      {/* Keyed by the load: a saved form starts empty again; a refused one (not reloaded) keeps what was typed. */}
      {tab === "bible" ? <EntitiesPanel key={loadedAt} base={base} entities={entities} edit={edit} editFact={editFact} /> : null}
      {tab === "threads" ? <ThreadsPanel key={loadedAt} base={`${base}?tab=threads`} threads={threads} edit={edit} /> : null}
      {tab === "summaries" && summaries ? (
        <>
          <SummariesPanel aiSummaries={work.aiSummaries} proposals={proposals} jobs={jobs} summaries={summaries} />
          <Pagination page={summaries.page} pageCount={summaries.pageCount} hrefFor={(p) => `${base}?tab=summaries&page=${p}`} />
        </>
      ) : null}
    </section>
  );
}
