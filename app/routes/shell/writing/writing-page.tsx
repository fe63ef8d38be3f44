import { Form, Link } from "react-router";
import type { WritingActionData } from "~/types/writing";
import type { WritingLoaderData } from "./writing-page.server";
import { CharacterPanel } from "~/components/writing/character-panel";
import { DraftPanel } from "~/components/writing/draft-panel";
import { PlotEditor } from "~/components/writing/plot-editor";
import { PlotPanel } from "~/components/writing/plot-panel";
import { ProjectBar } from "~/components/writing/project-bar";
import { SourcePanel } from "~/components/writing/source-panel";
import { ThemePanel } from "~/components/writing/theme-panel";
import { useWritingHref, useWritingParam } from "~/components/writing/url";
import { VersionsPanel } from "~/components/writing/versions-panel";
import { ToChapterPanel } from "~/components/writing/to-chapter-panel";
import { formatNumber } from "~/utils/format";

const TEXT = {
  free: { title: "自由创作", narrow: "自由创作仅支持在电脑上使用", theme: "整体设定" },
  short: { title: "短篇仿写", narrow: "短篇仿写仅支持在电脑上使用", theme: "整体设定（新故事的梗概）" },
} as const;

/**
 * /free-writing and /short-writing (docs/product.md: Screens): desktop only, two tabs (the
 * writing panel and the draft panel), projects kept on the server.
 */
export function WritingPage({ data, actionData }: { data: WritingLoaderData; actionData?: WritingActionData }) {
  const text = TEXT[data.kind];
  const href = useWritingHref();
  const tab = useWritingParam("tab") === "draft" ? "draft" : "write";
  const ws = data.workspace;
  return (
    <section className="writing-page">
      <h1>{text.title}</h1>
      <p className="desktop-only-notice">{text.narrow}</p>
      <div className="desktop-only">
        <ProjectBar projects={data.projects} current={ws ? { id: ws.project.id, name: ws.project.name } : null} actionData={actionData} />
        {!ws ? (
          <div className="empty-state">
            <p>还没有{text.title}项目。新建一个项目，开始写作吧。</p>
            <Form method="post">
              <input type="hidden" name="name" value={data.kind === "free" ? "我的第一个故事" : "我的第一篇仿写"} />
              <button type="submit" name="intent" value="create-project" className="btn btn-primary">
                开始{text.title}
              </button>
            </Form>
          </div>
        ) : (
          <>
            <nav className="tabs" aria-label="面板">
              <Link to={href({ tab: null })} className={`tab${tab === "write" ? " active" : ""}`} aria-current={tab === "write" ? "page" : undefined}>
                写作面板
              </Link>
              <Link to={href({ tab: "draft" })} className={`tab${tab === "draft" ? " active" : ""}`} aria-current={tab === "draft" ? "page" : undefined}>
                草稿面板
              </Link>
            </nav>
            {tab === "draft" ? (
              <DraftPanel draft={ws.project.draft} projectId={ws.project.id} actionData={actionData} />
            ) : (
              <WritingPanel data={data} ws={ws} actionData={actionData} themeLabel={text.theme} />
            )}
          </>
        )}
      </div>
    </section>
  );
}

function WritingPanel({
  data,
  ws,
  actionData,
  themeLabel,
}: {
  data: WritingLoaderData;
  ws: NonNullable<WritingLoaderData["workspace"]>;
  actionData?: WritingActionData;
  themeLabel: string;
}) {
  const plot = ws.plots.find((p) => p.id === ws.selectedPlotId) ?? null;
  const projectId = ws.project.id;
  return (
    <div className="writing-grid">
      <div className="writing-column">
        {data.kind === "short" ? (
          <SourcePanel
            sources={ws.sources}
            projectId={projectId}
            sourceTitle={ws.project.sourceTitle}
            hasContent={ws.characters.length + ws.plots.length > 0}
            actionData={actionData}
          />
        ) : null}
        <ThemePanel theme={ws.project.theme} projectId={projectId} selectedPlotId={ws.selectedPlotId} label={themeLabel} actionData={actionData} />
        <CharacterPanel characters={ws.characters} projectId={projectId} selectedPlotId={ws.selectedPlotId} actionData={actionData} />
        <PlotPanel plots={ws.plots} characters={ws.characters} projectId={projectId} selectedPlotId={ws.selectedPlotId} actionData={actionData} />
      </div>
      <div className="writing-column">
        {plot ? (
          <>
            <PlotEditor
              key={plot.id}
              plot={plot}
              projectId={projectId}
              balance={data.balance}
              estimate={ws.estimate}
              generated={ws.generated}
              actionData={actionData}
              requestKey={ws.requestKey}
              operation={ws.operation}
            />
            <VersionsPanel
              versions={ws.versions}
              currentVersionId={plot.currentVersionId}
              projectId={projectId}
              plotId={plot.id}
              viewed={ws.viewed}
              compare={ws.compare}
            />
            {ws.chapterTargets ? (
              <ToChapterPanel
                projectId={projectId}
                plotId={plot.id}
                plotTitle={plot.title}
                targets={ws.chapterTargets}
                formToken={ws.chapterFormToken}
                saved={ws.chapterSaved}
                actionData={actionData}
              />
            ) : null}
          </>
        ) : (
          <section className="writing-card">
            <h2>正文</h2>
            <p className="muted">{ws.plots.length ? "请先选择一个情节" : "添加情节并选中它，就可以生成这段情节的正文。"}</p>
            <p className="cost-line">
              Tokens余额 <strong data-testid="token-balance">{formatNumber(data.balance)}</strong>
            </p>
          </section>
        )}
      </div>
    </div>
  );
}
