import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from "@conform-to/react";
import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { apiConfigActionSchema, CONTEXT_TOKENS_DEFAULT, CONTEXT_TOKENS_MAX, CONTEXT_TOKENS_MIN, MODEL_PLACEHOLDERS } from "~/schemas/admin";
import { FieldErrors, FormErrors, Notice } from "./ui";
import { FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";

export interface ApiConfigValues {
  id: string;
  name: string;
  provider: "openai" | "gemini";
  endpoint: string;
  model: string;
  contextTokens: number;
}

/**
 * Create/edit an AI provider connection, with the connectivity test run by the server
 * (same form, the 测试连接 button). The stored key is never sent here: in edit mode a
 * blank key keeps it, and the test uses it.
 */
export function ApiConfigForm({
  action,
  closeHref,
  initial,
  lastResult,
  test,
  formToken,
}: {
  action: string;
  closeHref: string;
  initial: ApiConfigValues | null;
  lastResult?: SubmissionResult<string[]>;
  test?: { ok: boolean; message: string } | null;
  /** A new configuration's one-time token (decision 172). */
  formToken?: string;
}) {
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(apiConfigActionSchema, {
    id: initial ? `api-config-${initial.id}` : "api-config-new",
    lastResult,
    defaultValue: initial ? { ...initial } : { provider: "openai" },
  });
  const [provider, setProvider] = useState<string>(String(fields.provider.initialValue ?? initial?.provider ?? "openai"));
  const busyIntent = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const f = fields as unknown as Record<"name" | "provider" | "endpoint" | "apiKey" | "model" | "contextTokens", typeof fields.intent>;
  return (
    <Form method="post" action={action} {...getFormProps(form)}>
      {initial ? <input type="hidden" name="id" value={initial.id} /> : null}
      {formToken ? <FormTokenField token={formToken} /> : null}
      <FormErrors form={form} />
      {test ? (
        <Notice kind={test.ok ? "success" : "error"} testId="api-test-result">
          {test.message}
        </Notice>
      ) : null}
      <label className="field">
        <span>名称</span>
        <input {...getInputProps(f.name, { type: "text" })} maxLength={100} />
        <FieldErrors field={f.name} />
      </label>
      <label className="field">
        <span>服务商</span>
        <select {...getSelectProps(f.provider)} onChange={(e) => setProvider(e.currentTarget.value)}>
          <option value="openai">OpenAI 兼容</option>
          <option value="gemini">Gemini</option>
        </select>
      </label>
      <label className="field">
        <span>接口地址</span>
        <input
          {...getInputProps(f.endpoint, { type: "text" })}
          placeholder={provider === "gemini" ? "https://generativelanguage.googleapis.com/v1beta/" : "https://api.openai.com/v1"}
          inputMode="url"
        />
        <FieldErrors field={f.endpoint} />
      </label>
      <label className="field">
        <span>API密钥</span>
        <input
          {...getInputProps(f.apiKey, { type: "password" })}
          defaultValue=""
          autoComplete="off"
          placeholder={initial ? "已保存（留空则保持不变）" : ""}
        />
        <FieldErrors field={f.apiKey} />
      </label>
      <label className="field">
        <span>模型</span>
        <input {...getInputProps(f.model, { type: "text" })} placeholder={provider === "gemini" ? MODEL_PLACEHOLDERS.gemini : MODEL_PLACEHOLDERS.openai} />
      </label>
      <label className="field">
        <span>上下文大小（Tokens）</span>
        <input
          {...getInputProps(f.contextTokens, { type: "number" })}
          min={CONTEXT_TOKENS_MIN}
          max={CONTEXT_TOKENS_MAX}
          inputMode="numeric"
          placeholder={String(CONTEXT_TOKENS_DEFAULT)}
          aria-describedby="context-tokens-hint"
        />
        <span className="muted" id="context-tokens-hint">连载续写的提示词最多占用这么多Tokens（按估算），超出时先省略较早的章节摘要。留空为 {CONTEXT_TOKENS_DEFAULT}。</span>
        <FieldErrors field={f.contextTokens} />
      </label>
      <div className="admin-dialog-actions">
        {/* The first submit button is the one Enter presses: saving. */}
        <button type="submit" name="intent" value={initial ? "update" : "create"} className="btn btn-primary admin-order-last" disabled={busyIntent !== null}>
          {busyIntent === "create" || busyIntent === "update" ? "保存中..." : "保存"}
        </button>
        <button type="submit" name="intent" value="test" className="btn" disabled={busyIntent !== null}>
          {busyIntent === "test" ? "测试中..." : "测试连接"}
        </button>
        <Link className="btn" to={closeHref} preventScrollReset>
          取消
        </Link>
      </div>
    </Form>
  );
}
