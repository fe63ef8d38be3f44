import { getFormProps, getInputProps, type SubmissionResult } from "@conform-to/react";
import { useEffect, useState } from "react";
import { Form, Link } from "react-router";
import { CODE_BATCH_MAX, CODE_DENOMINATIONS, generateCodesSchema } from "~/schemas/admin";
import { FieldErrors, FormErrors } from "./ui";
import { FormTokenField } from "~/components/ui/forms";
import { useSchemaForm } from "~/components/ui/schema-form";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * docs/product.md: Back office: quantity 1-100 (default 1) and a denomination of 10/20/50/100 (default
 * 10). With JavaScript the confirm button is disabled outside the range and while the
 * codes are being generated; the server checks the same rules either way.
 */
/** `formToken`: the page's one-time token (decision 172), so a replayed form makes one batch. */
export function GenerateCodesForm({
  action,
  closeHref,
  lastResult,
  formToken,
}: {
  action: string;
  closeHref: string;
  lastResult?: SubmissionResult<string[]>;
  formToken?: string;
}) {
  const [form, fields] = useSchemaForm(generateCodesSchema, { id: "generate-codes", lastResult, defaultValue: { quantity: "1", amount: "10" } });
  const [quantity, setQuantity] = useState(String(fields.quantity.initialValue ?? "1"));
  // Only a page with JavaScript can enable the button again, so only it may disable it.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const valid = /^\d{1,3}$/.test(quantity.trim()) && Number(quantity) >= 1 && Number(quantity) <= CODE_BATCH_MAX;
  const busy = useIsPending();
  const checkedAmount = String(fields.amount.initialValue ?? "10");
  return (
    <Form method="post" action={action} {...getFormProps(form)}>
      <input type="hidden" name="intent" value="generate" />
      {formToken ? <FormTokenField token={formToken} /> : null}
      <FormErrors form={form} />
      <label className="field">
        <span>数量</span>
        <input
          {...getInputProps(fields.quantity, { type: "number" })}
          min={1}
          max={CODE_BATCH_MAX}
          step={1}
          onChange={(e) => setQuantity(e.currentTarget.value)}
        />
        <span className="hint">每次最多生成{CODE_BATCH_MAX}个</span>
        <FieldErrors field={fields.quantity} />
      </label>
      <label className="field">
        <span>批次名称（可选）</span>
        <input {...getInputProps(fields.batch, { type: "text" })} maxLength={50} placeholder="如 双十一活动" />
        <FieldErrors field={fields.batch} />
      </label>
      <label className="field">
        <span>有效期至（可选，含当天）</span>
        <input {...getInputProps(fields.expiresOn, { type: "date" })} />
        <FieldErrors field={fields.expiresOn} />
      </label>
      <fieldset className="admin-fieldset">
        <legend>面额</legend>
        <div className="choice-row">
          {CODE_DENOMINATIONS.map((amount) => (
            <label key={amount} className="checkbox">
              <input type="radio" name={fields.amount.name} value={amount} defaultChecked={checkedAmount === String(amount)} />
              {amount} 积分
            </label>
          ))}
        </div>
        <FieldErrors field={fields.amount} />
      </fieldset>
      <div className="admin-dialog-actions">
        <Link className="btn" to={closeHref} preventScrollReset>
          取消
        </Link>
        <button type="submit" className="btn btn-primary" disabled={busy || (hydrated && !valid)}>
          {busy ? "生成中..." : "确认生成"}
        </button>
      </div>
    </Form>
  );
}
