import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { OPDS_LABEL_MAX, OPDS_TOKEN_LIMIT, opdsTokenActionSchema } from "~/schemas/settings";
import { createOpdsToken, listOpdsTokens, opdsTokenLabel, revokeOpdsToken } from "~/server/identity/opds-tokens.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { siteOrigin } from "~/server/platform/request.server";
import { opdsBase } from "~/server/reading/opds.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/opds";

export const meta: Route.MetaFunction = () => [{ title: "阅读App（OPDS） - 砚台" }];

/** 创建令牌 creates once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["opds-token"] };

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [tokens, flash] = await Promise.all([listOpdsTokens(user.id), takeFlash(request, url)]);
  return data(
    { tokens, exampleAddress: opdsBase(siteOrigin(), "<令牌>"), formToken: newFormToken(), notice: flash.notice },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

type Created = { label: string; address: string | null };

/**
 * 创建令牌 answers with the catalog's address in this one response (only the token's hash
 * is kept), so it does not redirect; the same form sent again creates nothing and says so.
 * 撤销 redirects with a notice. Decision 201.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: opdsTokenActionSchema });
  if (submission.status !== "success") {
    const intent = form.get("intent");
    const unknown = intent !== "create" && intent !== "revoke";
    return data({ result: submission.reply(unknown ? { formErrors: ["未知操作"] } : undefined), created: null }, { status: 400 });
  }
  const value = submission.value;
  if (value.intent === "revoke") {
    return replyOnDomainError(
      async () => {
        const label = await revokeOpdsToken(user.id, value.id);
        return redirectWithFlash(request, "/settings/opds", { kind: "success", text: `已撤销令牌「${label}」，使用它的阅读App将无法再访问书库` });
      },
      (error) => ({ result: submission.reply(formErrorsOf(error)), created: null }),
    );
  }
  return replyOnDomainError(
    async () => {
      const created = await oncePerFormToken<Created>(
        user.id,
        "opds-token",
        formTokenOf(form),
        async (record) => {
          const made = await createOpdsToken(user.id, value.label, record);
          return { label: made.label, address: opdsBase(siteOrigin(), made.token) };
        },
        async (id) => ({ label: (await opdsTokenLabel(user.id, Number(id))) ?? value.label, address: null }),
      );
      return data({ result: submission.reply({ resetForm: true }), created }, { headers: { "Cache-Control": "no-store" } });
    },
    (error) => ({ result: submission.reply(formErrorsOf(error)), created: null }),
  );
}

export default function OpdsSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { tokens, exampleAddress, formToken, notice } = loaderData;
  const [form, fields] = useSchemaForm(opdsTokenActionSchema, { id: "opds-token", lastResult: actionData?.result });
  const label = (fields as unknown as Record<"label", typeof fields.intent>).label;
  const created = actionData?.created;
  return (
    <SettingsSubPage title="阅读App（OPDS）">
      <FlashMessage notice={notice} />
      <p className="muted">
        在 KOReader、静读天下（Moon+ Reader）等支持 OPDS 的阅读App中添加书库地址，就能下载你已购买的作品和书架上免费作品的 EPUB。书库地址含有你的令牌，请勿分享；不再使用时可随时撤销。
      </p>
      {created?.address ? (
        <div className="notice notice-success" role="status" data-testid="opds-created">
          <p>令牌「{created.label}」已创建。请把下面的书库地址复制到阅读App中，它只显示这一次：</p>
          <code className="opds-address" data-testid="opds-address">{created.address}</code>
        </div>
      ) : created ? (
        <div className="notice notice-success" role="status" data-testid="opds-created">
          <p>这个表单已经提交过，令牌「{created.label}」已在第一次提交时创建。书库地址只显示一次；如果没有保存，请撤销它后重新创建。</p>
        </div>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="create" />
        <FormTokenField token={formToken} />
        <label className="field">
          <span>令牌名称</span>
          <input {...getInputProps(label, { type: "text" })} key={label.key} required={false} maxLength={OPDS_LABEL_MAX * 2} placeholder="如：KOReader" />
          <span className="muted">
            1-{OPDS_LABEL_MAX} 个字符，最多 {OPDS_TOKEN_LIMIT} 个令牌
          </span>
          <FieldError field={label} alert />
        </label>
        <FormError form={form} />
        <div className="form-actions">
          <SubmitButton className="btn btn-primary" pendingLabel="创建中...">
            创建令牌
          </SubmitButton>
        </div>
      </Form>
      <h2 className="opds-heading">我的令牌</h2>
      {tokens.length === 0 ? (
        <p className="muted">还没有令牌。书库地址形如 {exampleAddress}</p>
      ) : (
        <ul className="opds-tokens" aria-label="阅读App令牌">
          {tokens.map((t) => (
            <li key={t.id} className="opds-token">
              <div>
                <strong>{t.label}</strong>
                <span className="muted">
                  创建于 {formatShanghai(t.createdAt)} · {t.lastUsedAt ? `最近使用 ${formatShanghai(t.lastUsedAt)}` : "尚未使用"}
                </span>
              </div>
              <Form method="post">
                <input type="hidden" name="intent" value="revoke" />
                <input type="hidden" name="id" value={t.id} />
                <button type="submit" className="btn btn-small" aria-label={`撤销令牌「${t.label}」`}>
                  撤销
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </SettingsSubPage>
  );
}
