import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { userContext } from "~/middleware/guards.server";
import { phoneConfirmSchema, phoneFormSchema, phoneSendSchema } from "~/schemas/phone";
import { PHONE_CODE_MINUTES } from "~/schemas/phone-rules";
import { confirmPhoneCode, phoneSettings, sendPhoneCode } from "~/server/identity/phone-verification.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { clientAddressOf } from "~/server/platform/request.server";
import { safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/phone";

/**
 * 绑定手机号 (后台实名, docs/product.md#phone-verification, decision 235): 获取验证码 sends a
 * 6-digit code to the number, 绑定 takes it; the same two forms change a bound number. A
 * comment form's link brings `redirectTo`, where the reader goes back once bound.
 */
export const meta: Route.MetaFunction = () => [{ title: "绑定手机号 - 砚台" }];

/** The page the reader came from (a comment form), a same-origin path, or "". */
function backTo(url: URL): string {
  return safeRedirectPath(url.searchParams.get("redirectTo"), "");
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [view, flash] = await Promise.all([phoneSettings(user.id), takeFlash(request, url)]);
  return data({ ...view, back: backTo(url), notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: phoneFormSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const value = submission.value;
  const here = `/settings/phone${url.search}`;
  return replyOnDomainError(
    async () => {
      if (value.intent === "send") {
        await sendPhoneCode(user.id, value.phone, clientAddressOf(context));
        return redirectWithFlash(request, here, { kind: "success", text: `验证码已发送，${PHONE_CODE_MINUTES} 分钟内有效` });
      }
      const phone = await confirmPhoneCode(user.id, value.code);
      // Back to the comment form the reader came from, which now shows its box.
      const back = backTo(url);
      if (back) return redirect(back);
      return redirectWithFlash(request, "/settings", { kind: "success", text: `手机号已绑定：${phone}` });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

type LastResult = Route.ComponentProps["actionData"];

/** The answer to this form's own intent, so the other form shows no message of it. */
function answerFor(lastResult: LastResult, intent: "send" | "confirm"): LastResult {
  return lastResult?.initialValue?.intent === intent ? lastResult : undefined;
}

function SendForm({ lastResult, bound }: { lastResult: LastResult; bound: boolean }) {
  const [form, fields] = useSchemaForm(phoneSendSchema, { id: "phone-send", lastResult: answerFor(lastResult, "send") });
  const busy = useIsPending({ intent: "send" });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="send" />
      <label className="field">
        <span>{bound ? "新手机号" : "手机号"}</span>
        <input
          {...getInputProps(fields.phone, { type: "tel" })}
          key={fields.phone.key}
          inputMode="numeric"
          autoComplete="tel-national"
          maxLength={20}
          placeholder="11 位中国大陆手机号"
          required={false}
          pattern={undefined}
        />
        <FieldError field={fields.phone} alert />
      </label>
      <FormError form={form} />
      <div className="form-actions">
        <SubmitButton className="btn" pending={busy} pendingLabel="发送中...">
          获取验证码
        </SubmitButton>
      </div>
    </Form>
  );
}

function ConfirmForm({ lastResult, pending }: { lastResult: LastResult; pending: string | null }) {
  const [form, fields] = useSchemaForm(phoneConfirmSchema, { id: "phone-confirm", lastResult: answerFor(lastResult, "confirm") });
  const busy = useIsPending({ intent: "confirm" });
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="confirm" />
      {pending ? (
        <p className="hint" data-testid="phone-pending">
          验证码已发送至 {pending}，{PHONE_CODE_MINUTES} 分钟内有效。
        </p>
      ) : null}
      <label className="field">
        <span>验证码</span>
        <input
          {...getInputProps(fields.code, { type: "text" })}
          key={fields.code.key}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          placeholder="6 位数字"
          required={false}
          pattern={undefined}
        />
        <FieldError field={fields.code} alert />
      </label>
      <FormError form={form} />
      <div className="form-actions">
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="绑定中...">
          绑定
        </SubmitButton>
      </div>
    </Form>
  );
}

export default function Phone({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  return (
    <SettingsSubPage title="绑定手机号">
      <FlashMessage notice={page.notice} />
      <p data-testid="phone-status">
        {page.phone ? (
          <>
            已绑定：<strong>{page.phone}</strong>
          </>
        ) : (
          "未绑定手机号"
        )}
      </p>
      <p className="hint">
        {page.required ? "本站要求绑定手机号后才能发表本章说、段评、回复和书评。" : null}
        一个手机号只能绑定一个账号；验证码 {PHONE_CODE_MINUTES} 分钟内有效，只能使用一次。
      </p>
      <SendForm lastResult={actionData} bound={Boolean(page.phone)} />
      {page.pending || actionData?.initialValue?.intent === "confirm" ? <ConfirmForm lastResult={actionData} pending={page.pending} /> : null}
      {page.back ? (
        <p>
          <Link to={page.back}>返回</Link>
        </p>
      ) : null}
    </SettingsSubPage>
  );
}
