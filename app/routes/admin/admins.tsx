import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { Form, redirect } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FieldErrors, FormErrors, QueryNotice } from "~/components/admin/ui";
import { useSchemaForm } from "~/components/ui/schema-form";
import { ADMIN_ROLE_LABELS, ADMIN_ROLES, addAdminSchema, adminAccountActionSchema, adminAccountReplyKeySchema } from "~/schemas/admin-accounts";
import { parseWithZod } from "@conform-to/zod/v4";
import { addAdmin, listAdmins, resetAdminPassword, setAdminDisabled, setAdminRole } from "~/server/identity/admin-accounts.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { adminContext } from "~/middleware/guards.server";
import type { Route } from "./+types/admins";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "管理员 - 管理后台" }];

/** docs/product.md#admin-roles: 超级管理员 only (the route sits under routes/admin/super-only.tsx). */
export async function loader({ context }: Route.LoaderArgs) {
  return { admins: await listAdmins(), selfId: context.get(adminContext).id };
}

const hide = { hideFields: ["password"] };

/** Add, change role, disable or enable, reset password; each writes its audit row. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const key = parseWithZod(form, { schema: adminAccountReplyKeySchema });
  const { intent, id: target } = key.status === "success" ? key.value : { intent: "", id: "" };
  const actor = adminActorOf(context);
  return replyToForm(
    form,
    adminAccountActionSchema,
    async (value) => {
      if (value.intent === "add") {
        await addAdmin(actor, value);
        return redirect("/admin/admins?notice=admin-added");
      }
      if (value.intent === "role") {
        await setAdminRole(actor, value.id, value.role);
        return redirect("/admin/admins?notice=admin-role");
      }
      if (value.intent === "disable" || value.intent === "enable") {
        await setAdminDisabled(actor, value.id, value.intent === "disable");
        return redirect(`/admin/admins?notice=admin-${value.intent}d`);
      }
      await resetAdminPassword(actor, value.id, value.password);
      return redirect("/admin/admins?notice=admin-password");
    },
    { ...hide, answer: (result) => ({ intent, target, result }) },
  );
}

export default function Admins({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const [form, fields] = useSchemaForm(addAdminSchema, {
    id: "admin-add",
    lastResult: actionData?.intent === "add" ? actionData.result : undefined,
    defaultValue: { intent: "add", role: "operator" },
  });
  const rowErrors = (id: string) => {
    if (!actionData || actionData.intent === "add" || actionData.target !== id) return undefined;
    const messages = Object.values(actionData.result.error ?? {}).flat().filter((m): m is string => typeof m === "string");
    return messages.length ? messages : undefined;
  };
  return (
    <section className="admin-page">
      <h1>管理员</h1>
      <p className="hint">超级管理员可以使用全部功能并管理管理员；运营不能修改站点设置、API配置与密钥、支付接口，不能导出数据，也不能管理管理员。</p>
      <QueryNotice ms={5000} />
      <AdminTable label="管理员列表" framed head={["邮箱", "角色", "状态", "两步验证", "添加时间", "操作"]}>
        {loaderData.admins.map((a) => (
          <tr key={a.id} data-testid="admin-row">
            <td>
              {a.email}
              {a.id === loaderData.selfId ? <span className="admin-badge">我</span> : null}
              <FormErrors errors={rowErrors(a.id)} />
            </td>
            <td>
              {a.id === loaderData.selfId ? (
                ADMIN_ROLE_LABELS[a.role]
              ) : (
                <Form method="post" className="admin-actions">
                  <input type="hidden" name="intent" value="role" />
                  <input type="hidden" name="id" value={a.id} />
                  <select name="role" defaultValue={a.role} aria-label={`${a.email} 的角色`}>
                    {ADMIN_ROLES.map((r) => (
                      <option key={r} value={r}>
                        {ADMIN_ROLE_LABELS[r]}
                      </option>
                    ))}
                  </select>
                  <SubmitButton className="btn" pending={busy}>
                    修改角色
                  </SubmitButton>
                </Form>
              )}
            </td>
            <td>{a.disabledAt ? `已停用（${formatShanghaiSeconds(a.disabledAt)}）` : "启用"}</td>
            <td>{a.totpEnabled ? "已开启" : "未开启"}</td>
            <td>{formatShanghaiSeconds(a.createdAt)}</td>
            <td>
              <div className="admin-actions">
                {a.id === loaderData.selfId ? null : (
                  <Form method="post">
                    <input type="hidden" name="intent" value={a.disabledAt ? "enable" : "disable"} />
                    <input type="hidden" name="id" value={a.id} />
                    <SubmitButton className={a.disabledAt ? "btn" : "btn btn-danger"} pending={busy}>
                      {a.disabledAt ? "启用" : "停用"}
                    </SubmitButton>
                  </Form>
                )}
                <details>
                  <summary>重置密码</summary>
                  <Form method="post" className="admin-inline-form">
                    <input type="hidden" name="intent" value="reset-password" />
                    <input type="hidden" name="id" value={a.id} />
                    <label className="field">
                      <span>新密码</span>
                      <input type="password" name="password" autoComplete="new-password" required />
                    </label>
                    <SubmitButton className="btn" pending={busy}>
                      重置
                    </SubmitButton>
                  </Form>
                </details>
              </div>
            </td>
          </tr>
        ))}
      </AdminTable>

      <div className="admin-card">
        <h2>添加管理员</h2>
        <FormErrors form={form} />
        <Form method="post" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="add" />
          <div className="admin-form-row">
            <label className="field">
              <span>邮箱</span>
              <input {...getInputProps(fields.email, { type: "email" })} autoComplete="off" />
              <FieldErrors field={fields.email} />
            </label>
            <label className="field">
              <span>角色</span>
              <select {...getSelectProps(fields.role)}>
                {ADMIN_ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ADMIN_ROLE_LABELS[r]}
                  </option>
                ))}
              </select>
              <FieldErrors field={fields.role} />
            </label>
          </div>
          <label className="field">
            <span>初始密码</span>
            <input {...getInputProps(fields.password, { type: "password" })} autoComplete="new-password" />
            <FieldErrors field={fields.password} />
          </label>
          <SubmitButton className="btn btn-primary" pending={busy}>
            添加
          </SubmitButton>
        </Form>
      </div>
    </section>
  );
}
