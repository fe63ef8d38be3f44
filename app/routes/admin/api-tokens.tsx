import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FieldErrors, FormErrors, Notice, QueryNotice } from "~/components/admin/ui";
import { FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { apiTokenActionSchema } from "~/schemas/admin";
import { apiTokenName, createApiToken, listApiTokens, revokeApiToken } from "~/server/identity/api-tokens.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/api-tokens";
import { SubmitButton } from "~/components/ui/submit-button";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "API令牌 - 管理后台" }];

/** 创建令牌 creates once per one-time token (decision 172; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["api-token"] };

export async function loader({ request, url }: Route.LoaderArgs) {
  const tokens = await listApiTokens();
  const now = Date.now();
  return {
    tokens: tokens.map((t) => ({
      ...t,
      state: t.revokedAt ? "已撤销" : t.expiresAt && t.expiresAt.getTime() <= now ? "已过期" : "有效",
    })),
    origin: url.origin,
    formToken: newFormToken(),
  };
}

/**
 * Create (the token is in this one response and nowhere else: only its hash is kept) or
 * revoke. No redirect after creating, or the token would be lost. The same form sent
 * again (重新提交, a retry) creates no second token and cannot show the first one's
 * secret again: it answers with the first token's name and says so (decision 172).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: apiTokenActionSchema });
  if (submission.status !== "success") return data({ result: submission.reply(), created: null }, { status: 400 });
  const value = submission.value;
  if (value.intent === "revoke") {
    const found = await revokeApiToken(adminActorOf(context), value.id);
    if (!found) return data({ result: submission.reply({ formErrors: ["令牌不存在"] }), created: null }, { status: 404 });
    return redirect("/admin/api-tokens?notice=revoked");
  }
  const actor = adminActorOf(context);
  const input = { name: value.name, expiresInDays: value.expiresIn === "never" ? null : Number(value.expiresIn) };
  return replyOnDomainError(
    async () => {
      const created = await oncePerFormToken<{ name: string; token: string | null }>(
        { adminId: actor.admin.id },
        "api-token",
        formTokenOf(form),
        async (record) => {
          const made = await createApiToken(actor, input, record);
          return { name: made.name, token: made.token };
        },
        async (id) => ({ name: (await apiTokenName(Number(id))) ?? input.name, token: null }),
      );
      return data({ result: submission.reply({ resetForm: true }), created }, { headers: { "Cache-Control": "no-store" } });
    },
    (error) => ({ result: submission.reply({ formErrors: [error.message] }), created: null }),
  );
}

export default function ApiTokens({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(apiTokenActionSchema, { id: "api-token", lastResult: actionData?.result, defaultValue: { expiresIn: "90" } });
  const f = fields as unknown as Record<"name" | "expiresIn", typeof fields.intent>;
  const example = `curl -fOJ -H "Authorization: Bearer <令牌>" ${loaderData.origin}/exports/database.zip`;
  return (
    <section className="admin-page">
      <h1>API令牌</h1>
      <p className="hint">脚本可以用令牌下载导出文件（作品TXT、未使用兑换码、数据库备份），令牌只在这些导出地址有效。</p>
      <QueryNotice />
      {actionData?.created?.token ? (
        <Notice kind="success" testId="created-token">
          <p>令牌「{actionData.created.name}」已创建。请立即复制保存，它只显示这一次：</p>
          <code className="admin-token">{actionData.created.token}</code>
        </Notice>
      ) : actionData?.created ? (
        <Notice kind="success" testId="created-token">
          <p>
            这个表单已经提交过，令牌「{actionData.created.name}」已在第一次提交时创建，没有再创建新的令牌。令牌只在创建时显示一次；如果没有保存，请撤销它后重新创建。
          </p>
        </Notice>
      ) : null}
      <FormErrors form={form} />
      <Form method="post" {...getFormProps(form)} className="admin-card admin-inline-form">
        <input type="hidden" name="intent" value="create" />
        <FormTokenField token={loaderData.formToken} />
        <label className="field">
          <span>名称</span>
          <input {...getInputProps(f.name, { type: "text" })} placeholder="如：每日备份脚本" maxLength={100} />
          <FieldErrors field={f.name} />
        </label>
        <label className="field">
          <span>有效期</span>
          <select {...getSelectProps(f.expiresIn)}>
            <option value="30">30 天</option>
            <option value="90">90 天</option>
            <option value="365">1 年</option>
            <option value="never">永不过期</option>
          </select>
        </label>
        <SubmitButton className="btn btn-primary">创建令牌</SubmitButton>
      </Form>
      <p className="hint">
        示例：<code>{example}</code>
      </p>
      {loaderData.tokens.length === 0 ? (
        <p className="empty-state">暂无令牌</p>
      ) : (
        <AdminTable label="API 令牌列表" framed head={["名称", "创建者", "状态", "创建时间", "过期时间", "最近使用", "操作"]}>
          {loaderData.tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{t.adminEmail}</td>
              <td>{t.state}</td>
              <td>{formatShanghaiSeconds(t.createdAt)}</td>
              <td>{t.expiresAt ? formatShanghaiSeconds(t.expiresAt) : "永不过期"}</td>
              <td>{formatShanghaiSeconds(t.lastUsedAt) || "—"}</td>
              <td>
                {t.revokedAt ? null : (
                  <Form method="post">
                    <input type="hidden" name="intent" value="revoke" />
                    <input type="hidden" name="id" value={t.id} />
                    <button type="submit" className="btn-link admin-danger-link">撤销</button>
                  </Form>
                )}
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
    </section>
  );
}
