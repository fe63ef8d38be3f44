import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useEffect, useRef, useState } from "react";
import { Form, Link, useFetcher } from "react-router";
import { plotSchema, WRITING_LIMITS } from "~/schemas/writing";
import type { WritingActionData } from "~/types/writing";
import type { CharacterView } from "./character-panel";
import { ConfirmBox, EditDeleteLinks } from "./confirm-box";
import { HiddenFields } from "./hidden-fields";
import { useWritingHref, useWritingParam } from "./url";
import { FieldError, FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

export interface PlotView {
  id: string;
  title: string;
  summary: string;
  environment: string;
  expectedWords: number;
  additionalNotes: string;
  characterIds: string[];
  content: string;
  currentVersionId: string | null;
}

function PlotForm({
  plot,
  characters,
  projectId,
  selectedPlotId,
  actionData,
  closeHref,
}: {
  plot: PlotView | null;
  characters: CharacterView[];
  projectId: string;
  selectedPlotId: string | null;
  actionData?: WritingActionData;
  closeHref: string;
}) {
  const [form, fields] = useForm({
    id: `plot-${plot?.id ?? "new"}`,
    lastResult: actionData?.intent === "save-plot" ? actionData.result : undefined,
    constraint: getZodConstraint(plotSchema),
    defaultValue: plot
      ? {
          title: plot.title,
          summary: plot.summary,
          environment: plot.environment,
          additionalNotes: plot.additionalNotes,
          expectedWords: String(plot.expectedWords),
        }
      : { expectedWords: String(WRITING_LIMITS.expectedWordsDefault) },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: plotSchema }),
  });
  const saving = useIsPending({ intent: "save-plot", state: "non-idle" });
  const chosen = new Set(plot?.characterIds ?? []);
  return (
    <Form method="post" {...getFormProps(form)} className="panel-form" preventScrollReset aria-label={plot ? "编辑情节" : "添加情节"}>
      <h3>{plot ? `编辑情节：${plot.title}` : "添加情节"}</h3>
      <HiddenFields projectId={projectId} selectedPlotId={selectedPlotId} />
      {plot ? <input type="hidden" name="id" value={plot.id} /> : null}
      <label className="field">
        <span>标题</span>
        <input {...getInputProps(fields.title, { type: "text" })} key={fields.title.key} />
        <FieldError field={fields.title} />
      </label>
      <label className="field">
        <span>概要</span>
        <textarea {...getTextareaProps(fields.summary)} key={fields.summary.key} rows={3} />
        <FieldError field={fields.summary} />
      </label>
      <label className="field">
        <span>环境</span>
        <textarea {...getTextareaProps(fields.environment)} key={fields.environment.key} rows={2} />
        <FieldError field={fields.environment} />
      </label>
      <label className="field">
        <span>预计字数</span>
        <input
          name={fields.expectedWords.name}
          id={fields.expectedWords.id}
          defaultValue={fields.expectedWords.initialValue as string | undefined}
          key={fields.expectedWords.key}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          aria-invalid={fields.expectedWords.errors ? true : undefined}
        />
        <FieldError field={fields.expectedWords} />
      </label>
      <fieldset className="field character-picks">
        <legend>出场角色（选填）</legend>
        {characters.length === 0 ? <span className="muted">请先添加角色</span> : null}
        {characters.map((c) => (
          <label key={c.id} className="checkbox">
            <input type="checkbox" name="characterIds" value={c.id} defaultChecked={chosen.has(c.id)} />
            {c.name}
          </label>
        ))}
        <FieldError field={fields.characterIds} />
      </fieldset>
      <label className="field">
        <span>补充说明（选填）</span>
        <textarea {...getTextareaProps(fields.additionalNotes)} key={fields.additionalNotes.key} rows={2} />
        <FieldError field={fields.additionalNotes} />
      </label>
      {actionData?.intent === "save-plot" ? <FormError errors={actionData.error} /> : null}
      <div className="form-actions">
        <Link to={closeHref} className="btn" preventScrollReset>取消</Link>
        <button type="submit" name="intent" value="save-plot" className="btn btn-primary" disabled={saving}>
          {saving ? "保存中..." : "保存情节"}
        </button>
      </div>
    </Form>
  );
}

/**
 * The plot list (docs/product.md: Screens): add, edit, delete after confirmation, select,
 * reorder. Up/down buttons are forms (no JavaScript needed); with JavaScript a plot can
 * also be dragged, and the new order is saved in the background.
 */
export function PlotPanel({
  plots,
  characters,
  projectId,
  selectedPlotId,
  actionData,
}: {
  plots: PlotView[];
  characters: CharacterView[];
  projectId: string;
  selectedPlotId: string | null;
  actionData?: WritingActionData;
}) {
  const href = useWritingHref();
  const edit = useWritingParam("edit");
  const confirm = useWritingParam("confirm");
  const editing = edit === "plot:new" ? "new" : edit.startsWith("plot:") ? edit.slice(5) : null;
  const closeHref = href({ edit: null, confirm: null });
  const names = new Map(characters.map((c) => [c.id, c.name]));
  const reorder = useFetcher<WritingActionData>({ key: `reorder-${projectId}` });
  const [order, setOrder] = useState(plots.map((p) => p.id));
  const [dragging, setDragging] = useState<string | null>(null);
  // The drag in progress; a ref too, because drop and dragend fire before a re-render.
  const dragged = useRef<string | null>(null);
  const serverOrder = plots.map((p) => p.id).join(",");
  useEffect(() => setOrder(serverOrder ? serverOrder.split(",") : []), [serverOrder]);
  const byId = new Map(plots.map((p) => [p.id, p]));
  const shown = order.map((id) => byId.get(id)).filter((p): p is PlotView => Boolean(p));

  const moveOver = (overId: string) => {
    const id = dragged.current;
    if (!id || id === overId) return;
    setOrder((current) => {
      const next = current.filter((x) => x !== id);
      next.splice(next.indexOf(overId) + (current.indexOf(id) < current.indexOf(overId) ? 1 : 0), 0, id);
      return next;
    });
  };
  const drop = () => {
    if (!dragged.current) return;
    dragged.current = null;
    setDragging(null);
    if (order.join(",") === serverOrder) return;
    reorder.submit({ intent: "reorder-plots", projectId, order: order.join(","), fetcher: "1" }, { method: "post" });
  };

  return (
    <section className="writing-card" aria-labelledby="plots-heading">
      <div className="card-head">
        <h2 id="plots-heading">情节</h2>
        <Link to={href({ edit: "plot:new", confirm: null })} className="btn btn-small" preventScrollReset>
          添加情节
        </Link>
      </div>
      {plots.length === 0 ? <p className="muted">还没有情节。添加情节后选中它，就可以生成正文。</p> : null}
      <ol className="item-list plot-list" aria-label="情节列表">
        {shown.map((p, i) => (
          <li
            key={p.id}
            className={`item plot-item${p.id === selectedPlotId ? " selected" : ""}${dragging === p.id ? " dragging" : ""}`}
            draggable={editing !== p.id}
            onDragStart={(e) => {
              e.dataTransfer.effectAllowed = "move";
              e.dataTransfer.setData("text/plain", p.id);
              dragged.current = p.id;
              setDragging(p.id);
            }}
            onDragOver={(e) => {
              e.preventDefault();
              moveOver(p.id);
            }}
            onDrop={(e) => {
              e.preventDefault();
              drop();
            }}
            onDragEnd={drop}
            data-plot-id={p.id}
          >
            {editing === p.id ? (
              <PlotForm plot={p} characters={characters} projectId={projectId} selectedPlotId={selectedPlotId} actionData={actionData} closeHref={closeHref} />
            ) : (
              <>
                <div className="item-main">
                  <Link to={href({ plot: p.id, edit: null, confirm: null })} className="plot-select" aria-current={p.id === selectedPlotId ? "true" : undefined} preventScrollReset>
                    <span className="plot-no" aria-hidden="true">{i + 1}</span> {p.title}
                  </Link>
                  <p className="item-detail">{p.summary}</p>
                  <p className="item-detail muted">
                    {p.characterIds.length ? p.characterIds.map((id) => names.get(id)).filter(Boolean).join("、") : "未选择角色"} · 约{p.expectedWords}字
                  </p>
                </div>
                <div className="item-actions">
                  <Form method="post" preventScrollReset className="inline-form">
                    <HiddenFields projectId={projectId} selectedPlotId={selectedPlotId} />
                    <input type="hidden" name="plotId" value={p.id} />
                    <input type="hidden" name="intent" value="move-plot" />
                    <button type="submit" name="direction" value="up" className="btn btn-small" disabled={i === 0} aria-label={`上移${p.title}`}>
                      ↑
                    </button>
                    <button type="submit" name="direction" value="down" className="btn btn-small" disabled={i === shown.length - 1} aria-label={`下移${p.title}`}>
                      ↓
                    </button>
                  </Form>
                  <EditDeleteLinks item={`plot:${p.id}`} label={`情节${p.title}`} />
                </div>
                {confirm === `plot:${p.id}` ? (
                  <ConfirmBox
                    question={`确定删除情节“${p.title}”吗？它的正文和所有版本会一起删除。`}
                    intent="delete-plot"
                    fields={{ plotId: p.id }}
                    projectId={projectId}
                    selectedPlotId={selectedPlotId}
                    cancelHref={closeHref}
                  />
                ) : null}
              </>
            )}
          </li>
        ))}
      </ol>
      {editing === "new" ? (
        <PlotForm plot={null} characters={characters} projectId={projectId} selectedPlotId={selectedPlotId} actionData={actionData} closeHref={closeHref} />
      ) : null}
    </section>
  );
}
