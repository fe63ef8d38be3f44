import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, useLoaderData } from "react-router";
import { SettingsSubPage } from "~/components/settings/settings-page";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { userContext } from "~/middleware/guards.server";
import { minorEnterSchema, minorLeaveSchema, minorModeFormSchema, PIN_ATTEMPTS, PIN_LOCK_HOURS } from "~/schemas/minor-mode";
import { minorMonthSummary } from "~/server/economy/minor-caps.server";
import { enterMinorMode, getMinorSettings, leaveMinorMode, minorModeState } from "~/server/identity/minor-mode.server";
import { formErrorsOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/minor-mode";

/**
 * 青少年模式 (docs/product.md#minor-mode, decision 218): turned on with a 4-digit PIN typed
 * twice, left with it; five wrong PINs lock the exit for a day. A reader whose verified
 * identity says they are under 18 is in the mode and cannot leave it. Shows the caps, this
 * month's spending and the reading hours.
 */
export const meta: Route.MetaFunction = () => [{ title: "青少年模式 - 砚台" }];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [state, settings, month, flash] = await Promise.all([
    minorModeState(user.id),
    getMinorSettings(),
    minorMonthSummary(user.id),
    takeFlash(request, url),
  ]);
  return data(
    { ...state, lockedUntil: state.lockedUntil ? formatShanghai(state.lockedUntil) : null, settings, month, notice: flash.notice },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: minorModeFormSchema });
  if (submission.status !== "success") return data(submission.reply({ formErrors: ["未知操作"] }), { status: 400 });
  const value = submission.value;
  return replyOnDomainError(
    async () => {
      if (value.intent === "enter") {
        await enterMinorMode(user.id, value.pin, value.pinAgain);
        return redirectWithFlash(request, "/settings/minor-mode", { kind: "success", text: "青少年模式已开启" });
      }
      await leaveMinorMode(user.id, value.pin);
      return redirectWithFlash(request, "/settings/minor-mode", { kind: "success", text: "青少年模式已关闭" });
    },
    (error) => submission.reply(formErrorsOf(error)),
  );
}

function PinField({ field, label }: { field: Parameters<typeof getInputProps>[0]; label: string }) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        {...getInputProps(field, { type: "password" })}
        key={field.key}
        inputMode="numeric"
        maxLength={4}
        autoComplete="off"
        required={false}
        pattern={undefined}
      />
      <FieldError field={field} alert />
    </label>
  );
}

type LastResult = Route.ComponentProps["actionData"];

function EnterForm({ lastResult }: { lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(minorEnterSchema, { id: "minor-enter", lastResult });
  const busy = useIsPending();
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="enter" />
      <PinField field={fields.pin} label="设置 4 位数字密码" />
      <PinField field={fields.pinAgain} label="再次输入密码" />
      <FormError form={form} />
      <div className="form-actions">
        <SubmitButton className="btn btn-primary" pending={busy} pendingLabel="开启中...">
          开启青少年模式
        </SubmitButton>
      </div>
    </Form>
  );
}

function LeaveForm({ lastResult }: { lastResult: LastResult }) {
  const [form, fields] = useSchemaForm(minorLeaveSchema, { id: "minor-leave", lastResult });
  const busy = useIsPending();
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="leave" />
      <PinField field={fields.pin} label="输入密码" />
      <FormError form={form} />
      <div className="form-actions">
        <SubmitButton className="btn" pending={busy} pendingLabel="关闭中...">
          关闭青少年模式
        </SubmitButton>
      </div>
    </Form>
  );
}

export default function MinorMode({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const { settings, month } = page;
  return (
    <SettingsSubPage title="青少年模式">
      <FlashMessage notice={page.notice} />
      <p data-testid="minor-mode-status">
        状态：<strong>{page.on ? "已开启" : "未开启"}</strong>
      </p>
      <ul className="hint">
        <li>不显示 R-18 作品（列表、搜索、作品页和章节）。</li>
        <li>
          单笔充值或消费（购买、订阅章节、购买全部、打赏）不超过 {settings.perPayment} 元（积分）；每个自然月（北京时间）充值不超过 {settings.perMonth} 元，消费不超过 {settings.perMonth} 积分。
        </li>
        {settings.hours ? <li>每天 {settings.hoursFrom}–{settings.hoursTo}（北京时间）不能阅读章节。</li> : null}
      </ul>
      {page.on ? (
        <p data-testid="minor-mode-month">
          本月已消费 {month.spent} 积分，已充值 {month.toppedUp} 元。
        </p>
      ) : null}
      {page.verifiedMinor ? (
        <p className="notice notice-warning" role="note">
          你的实名认证显示未满 18 周岁，青少年模式将保持开启，满 18 周岁后自动结束。
        </p>
      ) : page.self ? (
        page.lockedUntil ? (
          <p className="notice notice-warning" role="alert">
            密码错误次数过多，退出已锁定，请于 {page.lockedUntil}（北京时间）后再试。
          </p>
        ) : (
          <>
            <p className="hint">
              关闭需要输入开启时设置的密码；连续输错 {PIN_ATTEMPTS} 次将锁定 {PIN_LOCK_HOURS} 小时。
            </p>
            <LeaveForm lastResult={actionData} />
          </>
        )
      ) : (
        <EnterForm lastResult={actionData} />
      )}
    </SettingsSubPage>
  );
}
