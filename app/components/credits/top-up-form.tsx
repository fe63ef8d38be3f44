import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "react-router";
import { TOP_UP_MAX, topUpSchema } from "~/schemas/credits";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 在线充值: a whole number of yuan (1 yuan = 1 credit). The server creates the order and
 * sends the browser to the payment gateway; the credits arrive when the gateway's notify
 * does. A full page navigation: the gateway is another site.
 */
export function TopUpForm({ action, lastResult, formToken }: { action: string; lastResult?: SubmissionResult<string[]>; formToken: string }) {
  const [form, fields] = useForm({
    id: "topup",
    lastResult,
    constraint: getZodConstraint(topUpSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: topUpSchema }),
  });
  const busy = useIsPending({ intent: "topup" });
  return (
    <Form method="post" action={action} {...getFormProps(form)} reloadDocument>
      <input type="hidden" name="intent" value="topup" />
      <FormTokenField token={formToken} />
      <label className="field">
        <span>充值金额（元）</span>
        <input
          {...getInputProps(fields.amount, { type: "number" })}
          key={fields.amount.key}
          required={false}
          min={1}
          max={TOP_UP_MAX}
          step={1}
          inputMode="numeric"
          placeholder="请输入整数金额"
          autoFocus
        />
        <FieldError field={fields.amount} alert />
      </label>
      <p className="muted">
        1 元 = 1 积分，最少 1 元。支付完成后积分自动到账。充值即表示你已阅读
        <Link to="/refund" target="_blank">《退款政策》</Link>。
      </p>
      <FormError form={form} />
      <SubmitButton className="btn btn-primary btn-block" pending={busy} pendingLabel="正在创建订单...">
        前往支付
      </SubmitButton>
    </Form>
  );
}
