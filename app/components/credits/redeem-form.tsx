import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form } from "react-router";
import { REDEEM_CODE_MAX, redeemSchema } from "~/schemas/credits";
import { FieldError, FormError } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/** 兑换码充值: the code is required; what the server says about it is shown by the field. */
export function RedeemForm({
  action,
  lastResult,
  storeUrl,
}: {
  action: string;
  lastResult?: SubmissionResult<string[]>;
  storeUrl: string;
}) {
  const [form, fields] = useForm({
    id: "redeem",
    lastResult,
    constraint: getZodConstraint(redeemSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: redeemSchema }),
  });
  const busy = useIsPending({ intent: "redeem" });
  return (
    <Form method="post" action={action} {...getFormProps(form)} preventScrollReset>
      <input type="hidden" name="intent" value="redeem" />
      <label className="field">
        <span>兑换码</span>
        <input
          {...getInputProps(fields.code, { type: "text" })}
          key={fields.code.key}
          required={false}
          maxLength={REDEEM_CODE_MAX}
          inputMode="numeric"
          autoComplete="off"
          placeholder="请输入10位兑换码"
          autoFocus
        />
        <FieldError field={fields.code} alert />
      </label>
      <FormError form={form} />
      <SubmitButton className="btn btn-primary btn-block" pending={busy} pendingLabel="兑换中...">
        立即兑换
      </SubmitButton>
      {storeUrl ? (
        <p className="muted credits-dialog-hint">
          还没有兑换码？
          <a href={storeUrl} target="_blank" rel="noopener noreferrer">
            前往商店购买
          </a>
        </p>
      ) : null}
    </Form>
  );
}
