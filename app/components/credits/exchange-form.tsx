import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useEffect, useState } from "react";
import { Form } from "react-router";
import { exchangeAmountProblem, exchangeSchema, isValidExchangeAmount } from "~/schemas/credits";
import { formatTokens } from "~/utils/format";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 积分兑换 Tokens (docs/product.md: States and actions, Rules): a whole number from 1 to the balance. With
 * JavaScript the confirm button is disabled outside that range, with the reason beside it,
 * and the tokens to receive are shown as the amount is typed; the server refuses a bad
 * amount either way.
 */
export function ExchangeForm({
  action,
  lastResult,
  balance,
  ratio,
  formToken,
}: {
  action: string;
  lastResult?: SubmissionResult<string[]>;
  balance: number;
  ratio: number;
  /** One-time token: the same form sent twice exchanges once (decision 077). */
  formToken: string;
}) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const [form, fields] = useForm({
    id: "exchange",
    lastResult,
    constraint: getZodConstraint(exchangeSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: exchangeSchema }),
  });
  const [amount, setAmount] = useState(typeof fields.amount.initialValue === "string" ? fields.amount.initialValue : "");
  const valid = isValidExchangeAmount(amount, balance);
  // Said beside the greyed-out button, in the server's words (0, -5, 1.5, over the balance).
  const problem = exchangeAmountProblem(amount, balance);
  const busy = useIsPending({ intent: "exchange" });
  return (
    <Form method="post" action={action} {...getFormProps(form)} preventScrollReset>
      <input type="hidden" name="intent" value="exchange" />
      <FormTokenField token={formToken} />
      <p className="muted">
        当前积分余额 <strong>{balance}</strong>，1 积分可兑换 {ratio} Tokens。
      </p>
      <label className="field">
        <span>兑换积分数量</span>
        <input
          {...getInputProps(fields.amount, { type: "number" })}
          key={fields.amount.key}
          required={false}
          min={1}
          max={Math.max(balance, 1)}
          step={1}
          inputMode="numeric"
          placeholder={balance > 0 ? `1 - ${balance}` : "积分余额为 0"}
          onChange={(e) => setAmount(e.currentTarget.value)}
          autoFocus
        />
        <FieldError field={fields.amount} alert />
      </label>
      {hydrated ? (
        <p className={problem ? "exchange-preview field-error" : "exchange-preview"} aria-live="polite" data-testid="exchange-preview">
          {valid ? `将获得 ${formatTokens(Number(amount) * ratio)} Tokens（${Number(amount) * ratio}）` : (problem ?? " ")}
        </p>
      ) : null}
      <FormError form={form} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy || (hydrated && !valid)}>
        {busy ? "兑换中..." : "确认兑换"}
      </button>
    </Form>
  );
}
