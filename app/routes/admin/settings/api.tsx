import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { ApiConfigForm } from "~/components/admin/api-config-form";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { AdminDeleteDialog, AdminDialog, FormErrors, QueryNotice } from "~/components/admin/ui";
import { apiConfigActionSchema } from "~/schemas/admin";
import {
  createApiConfig,
  deleteApiConfig,
  listApiConfigs,
  MASKED_KEY,
  setDefaultApiConfig,
  storedApiKey,
  testApiConnection,
  updateApiConfig,
} from "~/server/admin/api-configs.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/api";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "API配置 - 管理后台" }];

/** 新建配置 creates once per one-time token (decision 172; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["api-config"] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function loader({ url }: Route.LoaderArgs) {
  const mode = url.searchParams.get("dialog");
  const id = url.searchParams.get("id") ?? "";
  const configs = await listApiConfigs();
  const selected = UUID.test(id) ? (configs.find((c) => c.id === id) ?? null) : null;
  const dialog =
    mode === "new" ? ({ mode: "new" } as const) : (mode === "edit" || mode === "delete") && selected ? ({ mode, id: selected.id } as const) : null;
  // The key never leaves the server: the table shows 20 stars for every config.
  return { configs, dialog, selected, maskedKey: MASKED_KEY, formToken: dialog?.mode === "new" ? newFormToken() : null };
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: apiConfigActionSchema });
  const hide = { hideFields: ["apiKey"] };
  if (submission.status !== "success") return data({ result: submission.reply(hide), test: null }, { status: 400 });
  const value = submission.value;
  return replyOnDomainError(
    async () => {
      switch (value.intent) {
        case "create": {
          // The same form sent twice (a double click, 重新提交) creates one configuration.
          const actor = adminActorOf(context);
          await oncePerFormToken(
            { adminId: actor.admin.id },
            "api-config",
            formTokenOf(form),
            (record) => createApiConfig(actor, value, record),
            async (id) => id,
          );
          return redirect("/admin/settings/api?notice=saved");
        }
        case "update":
          await updateApiConfig(adminActorOf(context), value.id, value);
          return redirect("/admin/settings/api?notice=saved");
        case "delete":
          await deleteApiConfig(adminActorOf(context), value.id);
          return redirect("/admin/settings/api?notice=deleted");
        case "set-default":
          await setDefaultApiConfig(adminActorOf(context), value.id);
          return redirect("/admin/settings/api?notice=default-set");
        case "test": {
          const apiKey = value.apiKey || (value.id ? await storedApiKey(value.id) : "");
          const test = await testApiConnection({ ...value, apiKey });
          return data({ result: submission.reply(hide), test }, { status: test.ok ? 200 : 422 });
        }
      }
    },
    (error) => ({ result: submission.reply({ ...hide, formErrors: [error.message] }), test: null }),
  );
}

export default function ApiSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { configs, dialog, selected, maskedKey, formToken } = loaderData;
  const base = "/admin/settings/api";
  const here = dialog ? `${base}?dialog=${dialog.mode}${dialog.mode !== "new" ? `&id=${dialog.id}` : ""}` : base;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>API配置</h1>
        <Link className="btn btn-primary" to={`${base}?dialog=new`} preventScrollReset>
          新建配置
        </Link>
      </div>
      <QueryNotice />
      {!dialog ? <FormErrors errors={actionData?.result.error?.[""] ?? undefined} /> : null}
      {configs.length === 0 ? (
        <p className="empty-state">暂无API配置</p>
      ) : (
        <AdminTable label="接口配置列表" framed head={["名称", "服务商", "接口地址", "API密钥", "模型", "创建时间", "操作"]}>
          {configs.map((c) => (
            <tr key={c.id}>
              <td>
                {c.name} {c.isDefault ? <span className="badge">默认</span> : null}
              </td>
              <td>{c.provider === "gemini" ? "Gemini" : "OpenAI"}</td>
              <td className="admin-break">{c.endpoint}</td>
              <td><code>{maskedKey}</code></td>
              <td>{c.model}</td>
              <td>{formatShanghaiSeconds(c.createdAt)}</td>
              <td className="admin-actions">
                {c.isDefault ? null : (
                  <Form method="post" action={base}>
                    <input type="hidden" name="intent" value="set-default" />
                    <input type="hidden" name="id" value={c.id} />
                    <button type="submit" className="btn-link">设为默认</button>
                  </Form>
                )}
                <Link to={`${base}?dialog=edit&id=${c.id}`} preventScrollReset>编辑</Link>
                <Link to={`${base}?dialog=delete&id=${c.id}`} preventScrollReset className="admin-danger-link">删除</Link>
              </td>
            </tr>
          ))}
        </AdminTable>
      )}

      {dialog?.mode === "new" || dialog?.mode === "edit" ? (
        <AdminDialog title={dialog.mode === "new" ? "新建API配置" : "编辑API配置"} closeHref={base}>
          <ApiConfigForm
            key={here}
            action={here}
            closeHref={base}
            initial={dialog.mode === "edit" && selected ? selected : null}
            lastResult={actionData?.result}
            test={actionData?.test}
            formToken={formToken ?? undefined}
          />
        </AdminDialog>
      ) : null}
      {dialog?.mode === "delete" && selected ? (
        <AdminDeleteDialog title="删除API配置" closeHref={base} action={here} id={selected.id} errors={actionData?.result.error?.[""] ?? undefined}>
          确定要删除配置「{selected.name}」吗？此操作无法撤销。
        </AdminDeleteDialog>
      ) : null}
    </section>
  );
}
