import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "react-router";
import { characterSchema } from "~/schemas/writing";
import type { WritingActionData } from "~/types/writing";
import { ConfirmBox, EditDeleteLinks } from "./confirm-box";
import { HiddenFields } from "./hidden-fields";
import { useWritingHref, useWritingParam } from "./url";
import { FieldError, FormError } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

export interface CharacterView {
  id: string;
  name: string;
  personality: string;
  appearance: string;
  other: string;
}

function CharacterForm({
  character,
  projectId,
  selectedPlotId,
  actionData,
  closeHref,
}: {
  character: CharacterView | null;
  projectId: string;
  selectedPlotId: string | null;
  actionData?: WritingActionData;
  closeHref: string;
}) {
  const [form, fields] = useForm({
    id: `character-${character?.id ?? "new"}`,
    lastResult: actionData?.intent === "save-character" ? actionData.result : undefined,
    constraint: getZodConstraint(characterSchema),
    defaultValue: character ?? undefined,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: characterSchema }),
  });
  const saving = useIsPending({ intent: "save-character", state: "non-idle" });
  const field = (label: string, meta: typeof fields.name, rows?: number) => (
    <label className="field">
      <span>{label}</span>
      {rows ? <textarea {...getTextareaProps(meta)} key={meta.key} rows={rows} /> : <input {...getInputProps(meta, { type: "text" })} key={meta.key} />}
      <FieldError field={meta} />
    </label>
  );
  return (
    <Form method="post" {...getFormProps(form)} className="panel-form" preventScrollReset aria-label={character ? "编辑角色" : "添加角色"}>
      <h3>{character ? `编辑角色：${character.name}` : "添加角色"}</h3>
      <HiddenFields projectId={projectId} selectedPlotId={selectedPlotId} />
      {character ? <input type="hidden" name="id" value={character.id} /> : null}
      {field("姓名", fields.name)}
      {field("性格", fields.personality, 2)}
      {field("外貌", fields.appearance, 2)}
      {field("其他（选填）", fields.other, 2)}
      {actionData?.intent === "save-character" ? <FormError errors={actionData.error} /> : null}
      <div className="form-actions">
        <Link to={closeHref} className="btn" preventScrollReset>取消</Link>
        <button type="submit" name="intent" value="save-character" className="btn btn-primary" disabled={saving}>
          {saving ? "保存中..." : "保存角色"}
        </button>
      </div>
    </Form>
  );
}

/** The character list (docs/product.md: Screens): add, edit, delete after confirmation. */
export function CharacterPanel({
  characters,
  projectId,
  selectedPlotId,
  actionData,
}: {
  characters: CharacterView[];
  projectId: string;
  selectedPlotId: string | null;
  actionData?: WritingActionData;
}) {
  const href = useWritingHref();
  const edit = useWritingParam("edit");
  const confirm = useWritingParam("confirm");
  const editing = edit === "character:new" ? "new" : edit.startsWith("character:") ? edit.slice(10) : null;
  const closeHref = href({ edit: null, confirm: null });
  return (
    <section className="writing-card" aria-labelledby="characters-heading">
      <div className="card-head">
        <h2 id="characters-heading">角色</h2>
        <Link to={href({ edit: "character:new", confirm: null })} className="btn btn-small" preventScrollReset>
          添加角色
        </Link>
      </div>
      {characters.length === 0 ? <p className="muted">还没有角色。生成前请至少创建一个角色。</p> : null}
      <ul className="item-list" aria-label="角色列表">
        {characters.map((c) => (
          <li key={c.id} className="item">
            {editing === c.id ? (
              <CharacterForm character={c} projectId={projectId} selectedPlotId={selectedPlotId} actionData={actionData} closeHref={closeHref} />
            ) : (
              <>
                <div className="item-main">
                  <strong>{c.name}</strong>
                  <p className="item-detail">性格：{c.personality}</p>
                  <p className="item-detail">外貌：{c.appearance}</p>
                  {c.other ? <p className="item-detail">其他：{c.other}</p> : null}
                </div>
                <div className="item-actions">
                  <EditDeleteLinks item={`character:${c.id}`} label={`角色${c.name}`} />
                </div>
                {confirm === `character:${c.id}` ? (
                  <ConfirmBox
                    question={`确定删除角色“${c.name}”吗？它会从所有情节中移除。`}
                    intent="delete-character"
                    fields={{ characterId: c.id }}
                    projectId={projectId}
                    selectedPlotId={selectedPlotId}
                    cancelHref={closeHref}
                  />
                ) : null}
              </>
            )}
          </li>
        ))}
      </ul>
      {editing === "new" ? (
        <CharacterForm character={null} projectId={projectId} selectedPlotId={selectedPlotId} actionData={actionData} closeHref={closeHref} />
      ) : null}
    </section>
  );
}
