import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, useLoaderData } from "react-router";
import { EntitiesPanel, SummariesPanel, ThreadsPanel } from "~/components/studio/bible-panels";
import { VoicePanel } from "~/components/studio/voice-panel";
import { StudioNav } from "~/components/studio/studio-nav";
import { FlashMessage } from "~/components/ui/flash-message";
import { FormError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { BIBLE_MESSAGES, bibleActionSchema, biblePageSchema } from "~/schemas/bible";
import { readSentFields } from "~/schemas/form-fields";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { runBibleAction, type BibleTab } from "~/server/studio/bible-actions.server";
import { bibleListPage, bibleScreen, summariesView } from "~/server/studio/bible.server";
import { voiceView } from "~/server/studio/voice.server";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/bible";

export const meta: Route.MetaFunction = ({ data }) => [{ title: `故事设定《${data?.work.title ?? ""}》 - 砚台` }];

/** New entities, facts and threads are added once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["entity", "fact", "plot-thread", "voice-passage"] };

const TABS: { id: BibleTab; label: string }[] = [
  { id: "bible", label: "设定" },
  { id: "threads", label: "伏笔" },
  { id: "summaries", label: "摘要" },
  { id: "voice", label: "文风" },
];

function tabOf(value: string | null): BibleTab {
  return value === "threads" || value === "summaries" || value === "voice" ? value : "bible";
}

function idParam(value: string | null): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export async function loader({ request, params, context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const tab = tabOf(url.searchParams.get("tab"));
  // ?entity= (a continuity finding's link to its fact): the page that lists the entity.
  const entity = idParam(url.searchParams.get("entity"));
  const page = entity && tab === "bible" ? await bibleListPage(workId, "entity", entity) : parsePage(url.searchParams.get("page"));
  const [view, summaries, voice, flash] = await Promise.all([
    bibleScreen(user.id, workId, tab, page).catch(asRouteError),
    tab === "summaries" ? summariesView(user.id, workId, page).catch(asRouteError) : null,
    tab === "voice" ? voiceView(user.id, workId).catch(asRouteError) : null,
    takeFlash(request, url),
  ]);
  // A one-time token for each adding form on the tab (an entity's new fact has its own); every load gives new ones.
  const formTokens = {
    entity: newFormToken(),
    thread: newFormToken(),
    voice: newFormToken(),
    facts: Object.fromEntries((view.entities?.entities ?? []).map((e) => [e.id, newFormToken()])),
  };
  return data(
    { ...view, tab, summaries, voice, formTokens, edit: idParam(url.searchParams.get("edit")), editFact: idParam(url.searchParams.get("editFact")), notice: flash.notice, loadedAt: Date.now() },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

/** The screen's address for a tab and page (page 1 and the 设定 tab leave their parameter out). */
function screenUrl(workId: number, tab: BibleTab, page: number, extra = ""): string {
  const query = new URLSearchParams();
  if (tab !== "bible") query.set("tab", tab);
  if (page > 1) query.set("page", String(page));
  const q = query.toString();
  return `/works/${workId}/bible${q ? `?${q}` : ""}${extra}`;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const form = await readForm(request);
  // The summaries' forms carry their page; the others post to the screen's own address, ?page= included.
  const page = parsePage(readSentFields(form, biblePageSchema).page ?? new URL(request.url).searchParams.get("page") ?? "");
  const submission = parseWithZod(form, { schema: bibleActionSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    const message = errors.intent || errors[""] ? BIBLE_MESSAGES.unknownAction : (Object.values(errors).flat().find(Boolean) ?? BIBLE_MESSAGES.unknownAction);
    return data({ error: message }, { status: 400 });
  }
  return replyOnDomainError(
    async () => {
      const done = await runBibleAction(user.id, workId, submission.value, formTokenOf(form));
      return redirectWithFlash(request, screenUrl(workId, done.tab, done.page ?? page, done.anchor ? `#${done.anchor}` : ""), { kind: "success", text: done.notice });
    },
    (error) => ({ error: error.message }),
  );
}

export default function StoryBible({ actionData }: Route.ComponentProps) {
  const { work, tab, published, overdue, entities, threads, proposals, jobs, summaries, voice, formTokens, edit, editFact, notice, loadedAt } = useLoaderData<typeof loader>();
  const base = `/works/${work.id}/bible`;
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
      {tab === "bible" && entities ? (
        <>
          <EntitiesPanel key={loadedAt} here={screenUrl(work.id, "bible", entities.page)} entities={entities.entities} total={entities.total} edit={edit} editFact={editFact} formTokens={formTokens} />
          <Pagination page={entities.page} pageCount={entities.pageCount} hrefFor={(p) => screenUrl(work.id, "bible", p)} />
        </>
      ) : null}
      {tab === "threads" && threads ? (
        <>
          <ThreadsPanel key={loadedAt} here={screenUrl(work.id, "threads", threads.page)} threads={threads.threads} total={threads.total} edit={edit} formToken={formTokens.thread} />
          <Pagination page={threads.page} pageCount={threads.pageCount} hrefFor={(p) => screenUrl(work.id, "threads", p)} />
        </>
      ) : null}
      {tab === "summaries" && summaries ? (
        <>
          <SummariesPanel aiSummaries={work.aiSummaries} proposals={proposals} jobs={jobs} summaries={summaries} />
          <Pagination page={summaries.page} pageCount={summaries.pageCount} hrefFor={(p) => screenUrl(work.id, "summaries", p)} />
        </>
      ) : null}
      {tab === "voice" && voice ? <VoicePanel key={loadedAt} passages={voice.passages} defaults={voice.defaults} own={voice.own} formToken={formTokens.voice} /> : null}
    </section>
  );
}
