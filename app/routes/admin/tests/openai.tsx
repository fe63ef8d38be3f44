import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form } from "react-router";
import { FieldErrors, FormErrors, Notice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { chatTestSchema } from "~/schemas/admin";
import { runChatTest } from "~/server/admin/api-configs.server";
import { readForm } from "~/server/platform/form-data.server";
import type { Route } from "./+types/openai";
import { orRouteError } from "~/server/platform/errors.server";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "AI对话接口测试 - 管理后台" }];

export async function loader() {
  return null;
}

/** docs/product.md D7: endpoint, key and model come from the form; the call is made by the server. */
export async function action({ request }: Route.ActionArgs) {
  // A write the database refuses for lack of space is 存储空间不足 (503), not 出错了.
  return orRouteError(async () => {
    const hide = { hideFields: ["apiKey"] };
    const submission = parseWithZod(await readForm(request), { schema: chatTestSchema });
    if (submission.status !== "success") return data({ result: submission.reply(hide), test: null }, { status: 400 });
    const test = await runChatTest(submission.value);
    return data({ result: submission.reply(hide), test }, { status: test.ok ? 200 : 422 });
  });
}

export default function ChatTest({ actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(chatTestSchema, { id: "chat-test", lastResult: actionData?.result, defaultValue: { model: "qwen-plus" } });
  const busy = useIsPending();
  return (
    <section className="admin-page">
      <h1>AI对话接口测试</h1>
      <p className="hint">向兼容 OpenAI 的对话接口发送一条测试消息（由服务器发出），检查接口是否可用。</p>
      <FormErrors form={form} />
      {actionData?.test && !busy ? (
        <Notice kind={actionData.test.ok ? "success" : "error"} testId="chat-test-result">
          {actionData.test.message}
        </Notice>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="admin-card">
        <label className="field">
          <span>接口地址</span>
          <input {...getInputProps(fields.endpoint, { type: "text" })} placeholder="https://dashscope.aliyuncs.com/compatible-mode/v1" inputMode="url" />
          <FieldErrors field={fields.endpoint} />
        </label>
        <label className="field">
          <span>API密钥</span>
          <input {...getInputProps(fields.apiKey, { type: "password" })} autoComplete="off" />
          <FieldErrors field={fields.apiKey} />
        </label>
        <label className="field">
          <span>模型</span>
          <input {...getInputProps(fields.model, { type: "text" })} />
        </label>
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="测试中...">
          发送测试
        </SubmitButton>
      </Form>
    </section>
  );
}
