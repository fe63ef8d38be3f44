import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult } from "@conform-to/react";
import { useRef } from "react";
import { Form, Link } from "react-router";
import { PROMPT_TYPE_LABELS, PROMPT_TYPES, PROMPT_VARIABLES, promptSchema } from "~/schemas/admin";
import { FieldErrors, FormErrors } from "./ui";
import { FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";

export interface PromptValues {
  id?: number;
  code: string;
  title: string;
  systemContent: string;
  userContent: string;
  type: "free" | "imitate" | "continue";
  isSystem: boolean;
  /** A built-in prompt (P01-P03): its code is fixed. */
  builtIn?: boolean;
}

/**
 * The prompt create/edit form (docs/product.md: Back office). The {|placeholder|} variables are listed
 * beside the editor; with JavaScript a click inserts one at the cursor of the user prompt.
 */
export function PromptForm({
  action,
  closeHref,
  initial,
  lastResult,
  formToken,
}: {
  action: string;
  closeHref: string;
  initial: PromptValues | null;
  lastResult?: SubmissionResult<string[]>;
  /** A new prompt's one-time token (decision 172). */
  formToken?: string;
}) {
  const userContentRef = useRef<HTMLTextAreaElement>(null);
  const [form, fields] = useSchemaForm(promptSchema, {
    id: initial?.id ? `prompt-${initial.id}` : "prompt-new",
    lastResult,
    defaultValue: initial
      ? { ...initial, isSystem: initial.isSystem ? "on" : undefined }
      : { type: "free", isSystem: "on" },
  });
  const insert = (id: string) => {
    const area = userContentRef.current;
    if (!area) return;
    const token = `{|${id}|}`;
    const start = area.selectionStart ?? area.value.length;
    const end = area.selectionEnd ?? start;
    area.setRangeText(token, start, end, "end");
    area.dispatchEvent(new Event("input", { bubbles: true }));
    area.focus();
  };
  return (
    <Form method="post" action={action} {...getFormProps(form)} className="admin-prompt-form">
      <input type="hidden" name="intent" value={initial?.id ? "update" : "create"} />
      {initial?.id ? <input type="hidden" name="id" value={initial.id} /> : null}
      {formToken ? <FormTokenField token={formToken} /> : null}
      <FormErrors form={form} />
      <div className="admin-prompt-grid">
        <div>
          <div className="admin-form-row">
            <label className="field">
              <span>提示词代码</span>
              <input {...getInputProps(fields.code, { type: "text" })} placeholder="如 P04" maxLength={50} readOnly={initial?.builtIn} />
              {initial?.builtIn ? <span className="hint">内置提示词，代码不能修改</span> : null}
              <FieldErrors field={fields.code} />
            </label>
            <label className="field">
              <span>类型</span>
              <select {...getSelectProps(fields.type)}>
                {PROMPT_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {PROMPT_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
              <FieldErrors field={fields.type} />
            </label>
          </div>
          <label className="field">
            <span>标题</span>
            <input {...getInputProps(fields.title, { type: "text" })} maxLength={200} />
            <FieldErrors field={fields.title} />
          </label>
          <label className="field">
            <span>系统提示词</span>
            <textarea {...getTextareaProps(fields.systemContent)} rows={5} />
            <FieldErrors field={fields.systemContent} />
          </label>
          <label className="field">
            <span>用户提示词</span>
            <textarea {...getTextareaProps(fields.userContent)} rows={10} ref={userContentRef} />
            <FieldErrors field={fields.userContent} />
          </label>
          <label className="checkbox">
            <input {...getInputProps(fields.isSystem, { type: "checkbox" })} />
            系统提示词（is_system）
          </label>
        </div>
        <aside className="admin-variables" aria-label="可用变量">
          <h3>可用变量</h3>
          <p className="hint">生成时替换为用户填写的内容</p>
          <ul>
            {PROMPT_VARIABLES.map((v) => (
              <li key={v.id}>
                <button type="button" className="admin-variable" onClick={() => insert(v.id)} title="插入到用户提示词">
                  <code>{`{|${v.id}|}`}</code>
                </button>
                <span>{v.label}</span>
              </li>
            ))}
          </ul>
        </aside>
      </div>
      <div className="admin-dialog-actions">
        <Link className="btn" to={closeHref} preventScrollReset>
          取消
        </Link>
        <SubmitButton className="btn btn-primary" pendingLabel="保存中...">
          保存
        </SubmitButton>
      </div>
    </Form>
  );
}
