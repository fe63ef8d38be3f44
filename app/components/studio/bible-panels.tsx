import { Form, Link } from "react-router";
import { FormTokenField } from "~/components/ui/forms";
import { ENTITY_STATE_KINDS, ITEM_ACTION_LABELS, ITEM_ACTIONS, STATE_KIND_LABELS, STATE_LIMITS } from "~/schemas/continuity-rules";
import { BIBLE_LIMITS, ENTITY_KIND_LABELS, ENTITY_KINDS, ENTITY_PROMPT_MODE_LABELS, ENTITY_PROMPT_MODES, THREAD_OVERDUE_LABEL, type EntityPromptMode } from "~/schemas/bible";

/** The story bible screen's tabs (app/routes/shell/studio/bible.tsx): plain forms, no script needed. */

type Fact = { id: number; content: string; fromChapter: number | null; untilChapter: number | null; source: string };
type State = { id: number; chapter: number; text: string; source: string };
type Entity = { id: number; kind: (typeof ENTITY_KINDS)[number]; name: string; description: string; promptMode: EntityPromptMode; wikiFrom: number | null; aliases: string[]; facts: Fact[]; states: State[] };
type Thread = { id: number; title: string; note: string; plantedChapter: number; dueChapter: number | null; status: "open" | "resolved"; overdue: boolean };

/** The screen's current address (tab and page kept) with one more parameter. */
const withParam = (here: string, name: string, value: number) => `${here}${here.includes("?") ? "&" : "?"}${name}=${value}`;

function rangeText(from: number | null, until: number | null): string {
  if (from && until) return `第${from}至${until}章`;
  if (from) return `从第${from}章起`;
  if (until) return `至第${until}章`;
  return "始终";
}

export function DeleteButton({ intent, id, label }: { intent: string; id: number; label: string }) {
  return (
    <details className="bible-delete">
      <summary>删除</summary>
      <Form method="post" className="inline-form">
        <input type="hidden" name="id" value={id} />
        <button type="submit" name="intent" value={intent} className="btn btn-danger">{label}</button>
      </Form>
    </details>
  );
}

/** An adding form's one-time token (decision 077); an editing form has none. */
function EntityForm({ entity, here, formToken }: { entity?: Entity; here: string; formToken?: string }) {
  return (
    <Form method="post" className="studio-form bible-form">
      {entity ? <input type="hidden" name="id" value={entity.id} /> : null}
      {formToken ? <FormTokenField token={formToken} /> : null}
      <div className="bible-row">
        <label className="field">
          <span>类型</span>
          <select name="kind" defaultValue={entity?.kind ?? "character"}>
            {ENTITY_KINDS.map((k) => (
              <option key={k} value={k}>{ENTITY_KIND_LABELS[k]}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>名称</span>
          <input type="text" name="name" defaultValue={entity?.name} maxLength={BIBLE_LIMITS.name} required />
        </label>
      </div>
      <label className="field">
        <span>别名（用逗号或顿号分隔）</span>
        <input type="text" name="aliases" defaultValue={entity?.aliases.join("，")} placeholder="例如：阿晚，林姑娘" />
      </label>
      <label className="field">
        <span>简介</span>
        <textarea name="description" rows={2} defaultValue={entity?.description} maxLength={BIBLE_LIMITS.description} />
      </label>
      <fieldset className="bible-prompt-mode">
        <legend>续写时</legend>
        {ENTITY_PROMPT_MODES.map((m) => (
          <label key={m} className="radio-field">
            <input type="radio" name="promptMode" value={m} defaultChecked={(entity?.promptMode ?? "auto") === m} /> {ENTITY_PROMPT_MODE_LABELS[m]}
          </label>
        ))}
        <span className="hint">提到时带上：本章计划或上一章结尾出现它的名称或别名时，才把它的设定发给AI。主角等常驻设定可选“总是带上”。</span>
      </fieldset>
      <div className="form-actions">
        {entity ? <Link className="btn" to={`${here}#e-${entity.id}`}>取消</Link> : null}
        <button type="submit" name="intent" value="entity-save" className="btn btn-primary">{entity ? "保存设定" : "添加设定"}</button>
      </div>
    </Form>
  );
}

function FactForm({ entityId, fact, formToken }: { entityId: number; fact?: Fact; formToken?: string }) {
  return (
    <Form method="post" className="panel-form bible-fact-form">
      <input type="hidden" name="entityId" value={entityId} />
      {fact ? <input type="hidden" name="id" value={fact.id} /> : null}
      {formToken ? <FormTokenField token={formToken} /> : null}
      <label className="field">
        <span>事实</span>
        <input type="text" name="content" defaultValue={fact?.content} maxLength={BIBLE_LIMITS.fact} required placeholder="例如：双目失明" />
      </label>
      <label className="field bible-chapter">
        <span>从第几章起</span>
        <input type="number" name="fromChapter" min={1} inputMode="numeric" defaultValue={fact?.fromChapter ?? undefined} />
      </label>
      <label className="field bible-chapter">
        <span>到第几章止</span>
        <input type="number" name="untilChapter" min={1} inputMode="numeric" defaultValue={fact?.untilChapter ?? undefined} />
      </label>
      <button type="submit" name="intent" value="fact-save" className="btn">{fact ? "保存事实" : "添加事实"}</button>
    </Form>
  );
}

/**
 * A character's state ledger (decision 247): one entry a chapter per kind; 内容 is the
 * 境界 (a rung of the ladder), 存活 or 死亡, the place, the item or what they learn; 年龄 a number.
 */
/** The chapter an entity seems to first appear in: its earliest dated fact or ledger entry, else 1. */
function firstChapterOf(entity: Entity): number {
  const dated = [...entity.facts.map((f) => f.fromChapter), ...entity.states.map((s) => s.chapter)].filter((c): c is number => c !== null);
  return dated.length ? Math.min(...dated) : 1;
}

/** 读者百科 (decision 259): the switch that shows the entity to readers from a chapter on, or takes it back. */
function WikiSwitch({ entity }: { entity: Entity }) {
  return (
    <Form method="post" className="panel-form bible-wiki-form" aria-label={`${entity.name}的读者百科`}>
      <input type="hidden" name="id" value={entity.id} />
      {entity.wikiFrom !== null ? (
        <p>
          <span className="badge badge-free" data-testid="entity-wiki">读者百科：第{entity.wikiFrom}章起公开</span>{" "}
          <button type="submit" name="intent" value="entity-wiki" className="btn btn-small">
            从百科撤下
          </button>
          <input type="hidden" name="enabled" value="off" />
        </p>
      ) : (
        <div className="bible-row">
          <input type="hidden" name="enabled" value="on" />
          <label className="field bible-chapter">
            <span>第几章出场</span>
            <input type="number" name="wikiFrom" min={1} inputMode="numeric" required defaultValue={firstChapterOf(entity)} />
          </label>
          <button type="submit" name="intent" value="entity-wiki" className="btn btn-small">
            在读者百科公开
          </button>
        </div>
      )}
      <p className="muted">读者只会看到简介，以及标了章节、且在他读到并能阅读的章节里记下的事实和状态；别名和没标章节的事实不公开。</p>
    </Form>
  );
}

function StateLedger({ entity }: { entity: Entity }) {
  return (
    <section className="bible-states" aria-label={`${entity.name}的状态记录`}>
      <h4>状态记录</h4>
      {entity.states.length ? (
        <ul className="bible-facts">
          {entity.states.map((s) => (
            <li key={s.id} id={`st-${s.id}`}>
              <span className="chapter-state">第{s.chapter}章起</span> {s.text}
              {s.source === "ai" ? <span className="badge">AI建议</span> : null}{" "}
              <DeleteButton intent="state-delete" id={s.id} label="确认删除这条状态记录" />
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">还没有状态记录。记下境界、生死、位置、物品、年龄，保存和发布章节时会自动检查前后是否矛盾。</p>
      )}
      <details className="bible-state-add">
        <summary className="btn">记录状态变化</summary>
        <Form method="post" className="panel-form bible-state-form">
          <input type="hidden" name="entityId" value={entity.id} />
          <div className="bible-row">
            <label className="field">
              <span>状态</span>
              <select name="kind" defaultValue="realm">
                {ENTITY_STATE_KINDS.map((k) => (
                  <option key={k} value={k}>{STATE_KIND_LABELS[k]}</option>
                ))}
              </select>
            </label>
            <label className="field bible-chapter">
              <span>发生在第几章</span>
              <input type="number" name="chapter" min={1} inputMode="numeric" required />
            </label>
          </div>
          <label className="field">
            <span>内容（境界名、存活或死亡、地点、物品、得知的事；年龄填数字）</span>
            <input type="text" name="value" maxLength={STATE_LIMITS.value} placeholder="例如：金丹" />
          </label>
          <div className="bible-row">
            <label className="field">
              <span>物品变化</span>
              <select name="action" defaultValue="">
                <option value="">（不是物品）</option>
                {ITEM_ACTIONS.map((a) => (
                  <option key={a} value={a}>{ITEM_ACTION_LABELS[a]}</option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>备注（境界下降的原因、物品交给谁）</span>
              <input type="text" name="note" maxLength={STATE_LIMITS.note} />
            </label>
          </div>
          <button type="submit" name="intent" value="state-save" className="btn">记录</button>
        </Form>
      </details>
    </section>
  );
}

/**
 * One page of the entities (`here`: the page's address, for edit and cancel links); `total`
 * across all pages; `formTokens`: the adding forms' one-time tokens (each entity's new fact by id).
 */
export function EntitiesPanel({
  here,
  entities,
  total,
  edit,
  editFact,
  formTokens,
}: {
  here: string;
  entities: Entity[];
  total: number;
  edit: number | null;
  editFact: number | null;
  formTokens: { entity: string; facts: Record<number, string> };
}) {
  return (
    <div className="bible-panel">
      <details className="bible-add" open={total === 0}>
        <summary className="btn">添加角色、地点、物品或势力</summary>
        <EntityForm here={here} formToken={formTokens.entity} />
      </details>
      {total === 0 ? <p className="empty-state">还没有设定。记下人物的伤病、生死、身份，续写时AI就不会忘。</p> : <p className="muted">共 {total} 项设定。</p>}
      {/* The cards' h3 sit under this (axe: heading-order); the tab above names it for the eye. */}
      <h2 className="sr-only">设定列表</h2>
      <ul className="bible-list">
        {entities.map((e) => (
          <li key={e.id} id={`e-${e.id}`} className="studio-card">
            {edit === e.id ? (
              <EntityForm entity={e} here={here} />
            ) : (
              <div className="card-head">
                <h3>
                  {e.name} <span className="badge">{ENTITY_KIND_LABELS[e.kind]}</span>
                  {e.promptMode !== "auto" ? <span className="badge" data-testid="entity-prompt-mode">{ENTITY_PROMPT_MODE_LABELS[e.promptMode]}</span> : null}
                </h3>
                <div className="row-actions">
                  <Link to={`${withParam(here, "edit", e.id)}#e-${e.id}`} aria-label={`编辑设定：${e.name}`}>编辑</Link>
                  <DeleteButton intent="entity-delete" id={e.id} label={`确认删除「${e.name}」及其事实`} />
                </div>
              </div>
            )}
            {e.aliases.length ? <p className="muted">别名：{e.aliases.join("、")}</p> : null}
            {e.description ? <p>{e.description}</p> : null}
            <ul className="bible-facts">
              {e.facts.map((f) =>
                editFact === f.id ? (
                  <li key={f.id} id={`f-${f.id}`}>
                    <FactForm entityId={e.id} fact={f} />
                    <Link to={`${here}#e-${e.id}`}>取消</Link>
                  </li>
                ) : (
                  <li key={f.id} id={`f-${f.id}`}>
                    <span className="chapter-state">{rangeText(f.fromChapter, f.untilChapter)}</span> {f.content}
                    {f.source === "ai" ? <span className="badge">AI建议</span> : null}{" "}
                    <Link to={`${withParam(here, "editFact", f.id)}#f-${f.id}`} aria-label={`编辑事实：${f.content}`}>编辑</Link>
                    <DeleteButton intent="fact-delete" id={f.id} label="确认删除这条事实" />
                  </li>
                ),
              )}
            </ul>
            <FactForm entityId={e.id} formToken={formTokens.facts[e.id]} />
            {e.kind === "character" ? <StateLedger entity={e} /> : null}
            <WikiSwitch entity={e} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function ThreadForm({ thread, formToken }: { thread?: Thread; formToken?: string }) {
  return (
    <Form method="post" className="studio-form bible-form">
      {thread ? <input type="hidden" name="id" value={thread.id} /> : null}
      {formToken ? <FormTokenField token={formToken} /> : null}
      <label className="field">
        <span>伏笔</span>
        <input type="text" name="title" defaultValue={thread?.title} maxLength={BIBLE_LIMITS.threadTitle} required placeholder="例如：沈舟许诺三年后回来" />
      </label>
      <label className="field">
        <span>说明</span>
        <textarea name="note" rows={2} defaultValue={thread?.note} maxLength={BIBLE_LIMITS.threadNote} />
      </label>
      <div className="bible-row">
        <label className="field">
          <span>埋下于第几章</span>
          <input type="number" name="plantedChapter" min={1} inputMode="numeric" required defaultValue={thread?.plantedChapter} />
        </label>
        <label className="field">
          <span>最迟第几章回收</span>
          <input type="number" name="dueChapter" min={1} inputMode="numeric" defaultValue={thread?.dueChapter ?? undefined} />
        </label>
      </div>
      <div className="form-actions">
        <button type="submit" name="intent" value="thread-save" className="btn btn-primary">{thread ? "保存伏笔" : "添加伏笔"}</button>
      </div>
    </Form>
  );
}

/** One page of the threads (`here`: the page's address); `total` across all pages; `formToken`: the adding form's. */
export function ThreadsPanel({ here, threads, total, edit, formToken }: { here: string; threads: Thread[]; total: number; edit: number | null; formToken: string }) {
  return (
    <div className="bible-panel">
      <details className="bible-add" open={total === 0}>
        <summary className="btn">添加伏笔</summary>
        <ThreadForm formToken={formToken} />
      </details>
      {total === 0 ? <p className="empty-state">还没有伏笔。</p> : <p className="muted">共 {total} 条伏笔。</p>}
      <h2 className="sr-only">伏笔列表</h2>
      <ul className="bible-list">
        {threads.map((t) => (
          <li key={t.id} id={`t-${t.id}`} className={t.overdue ? "studio-card bible-overdue" : "studio-card"}>
            {edit === t.id ? (
              <ThreadForm thread={t} />
            ) : (
              <>
                <div className="card-head">
                  <h3>
                    {t.title} {t.status === "resolved" ? <span className="badge badge-free">已回收</span> : t.overdue ? <span className="badge badge-r18">{THREAD_OVERDUE_LABEL}</span> : <span className="badge">未回收</span>}
                  </h3>
                  <div className="row-actions">
                    <Link to={`${withParam(here, "edit", t.id)}#t-${t.id}`} aria-label={`编辑伏笔：${t.title}`}>编辑</Link>
                    <DeleteButton intent="thread-delete" id={t.id} label="确认删除这条伏笔" />
                  </div>
                </div>
                <p className="muted">
                  第{t.plantedChapter}章埋下{t.dueChapter ? `，最迟第${t.dueChapter}章回收` : ""}
                </p>
                {t.note ? <p>{t.note}</p> : null}
                <Form method="post">
                  <input type="hidden" name="id" value={t.id} />
                  <input type="hidden" name="status" value={t.status === "open" ? "resolved" : "open"} />
                  <button type="submit" name="intent" value="thread-status" className="btn">{t.status === "open" ? "标记为已回收" : "重新打开"}</button>
                </Form>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

type Proposal = { id: number; kind: "summary" | "fact" | "state"; entityName: string | null; content: string; fromChapter: number | null; chapterTitle: string };
type Job = { id: number; state: string; reason: string | null; attempts: number; chapterTitle: string };
type Summaries = {
  page: number;
  chapters: { id: number; index: number; title: string; state: string; summary: string }[];
  volumes: { id: number; title: string; summary: string }[];
};

const JOB_STATES: Record<string, string> = { pending: "排队中", done: "已完成", skipped: "已跳过", failed: "失败" };

export function SummariesPanel({ aiSummaries, proposals, jobs, summaries }: { aiSummaries: boolean; proposals: Proposal[]; jobs: Job[]; summaries: Summaries }) {
  return (
    <div className="bible-panel">
      <Form method="post" className="studio-card bible-switch">
        <p>
          AI摘要：{aiSummaries ? "已开启" : "未开启"}。开启后，每发布一章，AI会用你的Tokens写出本章摘要，并建议新的设定事实和角色的状态变化，由你逐条采纳或忽略；失败不影响发布，稍后会自动重试。
        </p>
        <input type="hidden" name="enabled" value={aiSummaries ? "off" : "on"} />
        <button type="submit" name="intent" value="ai-summaries" className="btn">{aiSummaries ? "关闭AI摘要" : "开启AI摘要"}</button>
      </Form>
      {jobs.some((j) => j.state !== "done") ? (
        <ul className="bible-jobs">
          {jobs
            .filter((j) => j.state !== "done")
            .map((j) => (
              <li key={j.id}>
                《{j.chapterTitle}》：{JOB_STATES[j.state] ?? j.state}
                {j.reason ? `（${j.reason}）` : ""}
              </li>
            ))}
        </ul>
      ) : null}
      <h2 id="proposals">AI建议{proposals.length ? `（${proposals.length}）` : ""}</h2>
      {proposals.length === 0 ? <p className="muted">没有待处理的建议。</p> : null}
      <ul className="bible-list">
        {proposals.map((p) => (
          <li key={p.id} className="studio-card">
            <p className="muted">
              《{p.chapterTitle}》{p.kind === "summary" ? "摘要" : `${p.kind === "state" ? "状态" : "设定"}：${p.entityName}（从第${p.fromChapter}章起）`}
            </p>
            <p>{p.content}</p>
            <Form method="post" className="row-actions">
              <input type="hidden" name="id" value={p.id} />
              <button type="submit" name="intent" value="proposal-accept" className="btn btn-primary">采纳</button>
              <button type="submit" name="intent" value="proposal-reject" className="btn">忽略</button>
            </Form>
          </li>
        ))}
      </ul>
      {summaries.volumes.length ? <h2>分卷摘要</h2> : null}
      {summaries.volumes.map((v) => (
        <Form key={v.id} method="post" id={`v-${v.id}`} className="studio-card bible-summary">
          <input type="hidden" name="volumeId" value={v.id} />
          <label className="field">
            <span>{v.title}</span>
            <textarea name="summary" rows={3} defaultValue={v.summary} maxLength={BIBLE_LIMITS.volumeSummary} />
          </label>
          <button type="submit" name="intent" value="volume-summary-save" className="btn">保存分卷摘要</button>
        </Form>
      ))}
      <h2>章节摘要</h2>
      {summaries.chapters.map((c) => (
        <Form key={c.id} method="post" id={`s-${c.id}`} className="studio-card bible-summary">
          <input type="hidden" name="chapterId" value={c.id} />
          <input type="hidden" name="page" value={summaries.page} />
          <label className="field">
            <span>
              {c.index}. {c.title}
              {c.state !== "published" ? <span className="chapter-state chapter-state-draft">{c.state === "draft" ? "存稿" : c.state === "review" ? "审核中" : "定时"}</span> : null}
            </span>
            <textarea name="summary" rows={2} defaultValue={c.summary} maxLength={BIBLE_LIMITS.summary} />
          </label>
          <button type="submit" name="intent" value="summary-save" className="btn">保存摘要</button>
        </Form>
      ))}
    </div>
  );
}
