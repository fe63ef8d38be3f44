import { useEffect, useRef, useState, type FormEvent } from "react";
import { Form, Link, useFetcher, useNavigation } from "react-router";
import { FormTokenField } from "~/components/ui/forms";
import { AiLevelBadge } from "~/components/ui/ai-badge";
import { CHAPTER_KIND_LABELS } from "~/schemas/studio";
import type { ManagerRow } from "~/types/studio";
import { EditReviewNote, ReviewNote } from "./review-note";
import { formatNumber } from "~/utils/format";

type ChapterRow = Extract<ManagerRow, { kind: "chapter" }>;
type VolumeRow = Extract<ManagerRow, { kind: "volume" }>;

export interface ChapterListProps {
  workId: number;
  page: number;
  total: number;
  rows: ManagerRow[];
  volumes: { id: number; title: string }[];
  /** The chapter whose actions are open (`?chapter=`). */
  selected: number | null;
  /** The volume whose rename form is open (`?volume=`). */
  selectedVolume: number | null;
  canInsert: boolean;
  /** 新建分卷's one-time token (decision 077). */
  formToken: string;
}

function Hidden({ page, fields }: { page: number; fields: Record<string, string | number> }) {
  return (
    <>
      <input type="hidden" name="page" value={page} />
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

/**
 * Focus after 上移 / 下移 (of a chapter or a volume): the row moves, and React moves its
 * element, which drops the focus. Once the new order is shown, the button that was used
 * takes focus again, or its twin when it is now disabled (the row reached the top or the
 * bottom). Returns the handler for the forms' submit.
 */
function useMovedRowFocus() {
  const navigation = useNavigation();
  const used = useRef<{ row: string; intent: string } | null>(null);
  useEffect(() => {
    if (navigation.state !== "idle" || !used.current) return;
    const { row, intent } = used.current;
    used.current = null;
    const twin = intent.endsWith("up") ? intent.replace(/up$/, "down") : intent.replace(/down$/, "up");
    const button = (value: string) => document.getElementById(row)?.querySelector<HTMLButtonElement>(`button[name=intent][value="${value}"]:not(:disabled)`);
    (button(intent) ?? button(twin))?.focus();
  }, [navigation.state]);
  return (event: FormEvent<HTMLFormElement>) => {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const row = submitter?.closest("li")?.id;
    if (submitter instanceof HTMLButtonElement && row) used.current = { row, intent: submitter.value };
  };
}

/**
 * The chapter manager's list: volume headings and chapters in order, each chapter with
 * its place, 字数 and up/down buttons, and (for the chosen one) rename, move to a place,
 * move to a volume, insert before, new volume from here, edit and delete. Every control
 * is a form or link; with JavaScript a chapter can also be dragged onto another's place.
 */
export function ChapterList({ workId, page, total, rows, volumes, selected, selectedVolume, canInsert, formToken }: ChapterListProps) {
  const base = `/works/${workId}/chapters`;
  const fetcher = useFetcher();
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [canDrag, setCanDrag] = useState(false);
  useEffect(() => setCanDrag(true), []);
  const moved = useMovedRowFocus();
  const here = (extra: Record<string, string | number>) => `${base}?${new URLSearchParams({ page: String(page), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) })}`;

  const volumeRow = (v: VolumeRow) => (
    <li key={`v${v.id}${v.continued ? "c" : ""}`} className="volume-row" id={v.continued ? undefined : `v-${v.id}`}>
      <h2 className="volume-title">
        {v.title}
        {v.continued ? <small className="muted">（续）</small> : null}
      </h2>
      {v.continued ? null : (
        <div className="row-actions">
          <Form method="post" className="inline-form" onSubmit={moved}>
            <Hidden page={page} fields={{ volumeId: v.id }} />
            <button type="submit" name="intent" value="volume-up" className="btn btn-small" disabled={v.first} aria-label={`上移分卷 ${v.title}`}>上移</button>
            <button type="submit" name="intent" value="volume-down" className="btn btn-small" disabled={v.last} aria-label={`下移分卷 ${v.title}`}>下移</button>
          </Form>
          <Link className="btn btn-small" to={`${here({ volume: v.id })}#v-${v.id}`} aria-label={`重命名分卷 ${v.title}`}>重命名</Link>
          <Form method="post" className="inline-form">
            <Hidden page={page} fields={{ volumeId: v.id }} />
            <button type="submit" name="intent" value="volume-delete" className="btn btn-small" aria-label={`删除分卷 ${v.title}`}>删除分卷</button>
          </Form>
          {canInsert ? <Link className="btn btn-small" to={`${base}/new?volumeId=${v.id}`} aria-label={`在分卷 ${v.title} 末尾添加章节`}>在本卷末尾添加章节</Link> : null}
        </div>
      )}
      {selectedVolume === v.id && !v.continued ? (
        <Form method="post" className="row-panel">
          <Hidden page={page} fields={{ volumeId: v.id }} />
          <label className="field">
            <span>卷名</span>
            <input type="text" name="title" defaultValue={v.title} maxLength={100} required />
          </label>
          <button type="submit" name="intent" value="volume-rename" className="btn btn-primary btn-small">保存卷名</button>{" "}
          <Link to={here({})} className="btn btn-small">取消</Link>
        </Form>
      ) : null}
    </li>
  );

  const chapterRow = (c: ChapterRow) => (
    <li
      key={c.id}
      id={`c-${c.id}`}
      className={`chapter-row${over === c.id ? " drop-target" : ""}${dragging === c.id ? " dragging" : ""}`}
      draggable={canDrag && total > 1 ? true : undefined}
      onDragStart={(e) => {
        setDragging(c.id);
        e.dataTransfer.effectAllowed = "move";
        e.dataTransfer.setData("text/plain", String(c.id));
      }}
      onDragEnd={() => {
        setDragging(null);
        setOver(null);
      }}
      onDragOver={(e) => {
        if (dragging === null || dragging === c.id) return;
        e.preventDefault();
        setOver(c.id);
      }}
      onDrop={(e) => {
        e.preventDefault();
        const moving = dragging;
        setDragging(null);
        setOver(null);
        if (moving === null || moving === c.id) return;
        void fetcher.submit({ intent: "move", chapterId: String(moving), to: String(c.index), page: String(page) }, { method: "post", action: base });
      }}
    >
      <div className="chapter-line">
        <span className="chapter-index" aria-label={`第${c.index}位`}>{c.index}</span>
        <Link to={`${base}/${c.id}`} className="chapter-title">{c.title}</Link>
        <small className="muted">{formatNumber(c.wordCount)} 字</small>
        <AiLevelBadge level={c.aiLevel} />
        {c.chapterKind !== "chapter" ? <span className="badge badge-notice">{CHAPTER_KIND_LABELS[c.chapterKind]}</span> : null}
        <span className={`chapter-state chapter-state-${c.state}`}>
          {c.state === "published"
            ? "已发布"
            : c.state === "draft"
              ? "存稿"
              : c.state === "review"
                ? c.publishAt
                  ? `审核中 · 定时 ${c.publishAt}（待审核通过）`
                  : "审核中"
                : `定时 ${c.publishAt}`}
        </span>
        {c.edit?.status === "pending" ? (
          <span className="chapter-state chapter-state-review">修改审核中</span>
        ) : c.pending ? (
          <Link to={`${base}/${c.id}`} className="chapter-state chapter-state-draft" title="自动保存的修改还没有保存，读者看不到">
            修改未发布
          </Link>
        ) : null}
        {c.review ? <ReviewNote review={c.review} appealHref={`${base}/${c.id}/appeal`} /> : null}
        {c.edit && c.edit.status !== "pending" ? <EditReviewNote edit={c.edit} /> : null}
        <div className="row-actions">
          <Form method="post" className="inline-form" onSubmit={moved}>
            <Hidden page={page} fields={{ chapterId: c.id }} />
            <button type="submit" name="intent" value="up" className="btn btn-small" disabled={c.index === 1 && c.volumeId === null} aria-label={`上移 ${c.title}`}>上移</button>
            <button type="submit" name="intent" value="down" className="btn btn-small" disabled={c.index === total && (volumes.length === 0 || c.volumeId === volumes.at(-1)!.id)} aria-label={`下移 ${c.title}`}>下移</button>
          </Form>
          <Link className="btn btn-small" to={selected === c.id ? `${here({})}#c-${c.id}` : `${here({ chapter: c.id })}#c-${c.id}`} aria-label={`${selected === c.id ? "收起" : "更多操作"} ${c.title}`} aria-expanded={selected === c.id}>
            {selected === c.id ? "收起" : "更多"}
          </Link>
        </div>
      </div>
      {selected === c.id ? (
        <div className="row-panel">
          <Form method="post" className="panel-form">
            <Hidden page={page} fields={{ chapterId: c.id }} />
            <label className="field">
              <span>章节标题</span>
              <input type="text" name="title" defaultValue={c.title} maxLength={100} required />
            </label>
            <button type="submit" name="intent" value="rename" className="btn btn-small">重命名</button>
          </Form>
          <Form method="post" className="panel-form" noValidate>
            <Hidden page={page} fields={{ chapterId: c.id }} />
            <label className="field">
              <span>移动到第几位（1–{total}）</span>
              <input type="number" name="to" min={1} max={total} defaultValue={c.index} inputMode="numeric" />
            </label>
            <button type="submit" name="intent" value="move" className="btn btn-small">移动</button>
          </Form>
          {volumes.length > 0 ? (
            <Form method="post" className="panel-form">
              <Hidden page={page} fields={{ chapterId: c.id }} />
              <label className="field">
                <span>移到分卷末尾</span>
                <select name="volumeId" defaultValue={c.volumeId ?? "none"}>
                  <option value="none">不分卷（最前面）</option>
                  {volumes.map((v) => (
                    <option key={v.id} value={v.id}>{v.title}</option>
                  ))}
                </select>
              </label>
              <button type="submit" name="intent" value="to-volume" className="btn btn-small">移到此卷</button>
            </Form>
          ) : null}
          {canInsert ? (
            <Form method="post" className="panel-form">
              <Hidden page={page} fields={{ chapterId: c.id }} />
              <FormTokenField token={formToken} />
              <label className="field">
                <span>从本章开始新的一卷</span>
                <input type="text" name="title" placeholder="卷名，例如：第二卷 风起" maxLength={100} required />
              </label>
              <button type="submit" name="intent" value="volume-create" className="btn btn-small">新建分卷</button>
            </Form>
          ) : null}
          {/* A <div>: a <form> inside a <p> is split by the HTML parser, so hydration fails. */}
          <div className="row-actions">
            {c.state !== "published" && c.state !== "review" ? (
              <Form method="post" className="inline-form">
                <Hidden page={page} fields={{ chapterId: c.id }} />
                <button type="submit" name="intent" value="publish" className="btn btn-small btn-primary">立即发布</button>
              </Form>
            ) : null}
            <Link className="btn btn-small" to={`${base}/${c.id}`}>编辑正文</Link>
            {canInsert ? <Link className="btn btn-small" to={`${base}/new?at=${c.index}`}>在此章前插入新章节</Link> : null}
            {/* The panel stays open under the dialog, so this link is there to take focus back. */}
            {total > 1 ? <Link className="btn btn-small btn-danger" to={`${here({ chapter: c.id, confirm: c.id })}`}>删除</Link> : null}
          </div>
        </div>
      ) : null}
    </li>
  );

  return (
    <ol className="chapter-manager" aria-label="章节列表" aria-busy={fetcher.state !== "idle"}>
      {rows.map((r) => (r.kind === "volume" ? volumeRow(r) : chapterRow(r)))}
    </ol>
  );
}
