/**
 * The site's one field/error kit, used by the user side and the back office alike
 * (docs/architecture.md: Forms). A field's error carries the id that Conform's
 * getInputProps/getTextareaProps/getSelectProps name in the input's aria-describedby
 * (`${field.id}-error`, i.e. the field's errorId) while the field is invalid, so a
 * screen reader reads the message with the input; the form's own error carries the
 * form's errorId, which getFormProps names in the form's aria-describedby.
 *
 * Nothing here imports Conform or zod: a page that only shows errors does not ship them
 * (useSchemaForm, in schema-form.ts, does; docs/decisions/243).
 */

/** What the kit needs of Conform's field or form metadata. */
export type ErrorMeta = { errorId: string; errors?: string[] };

type Tag = "span" | "p" | "div";

function firstMessage(errors: string[] | string | null | undefined) {
  return typeof errors === "string" ? errors : errors?.[0];
}

/**
 * The hidden one-time token of a creating form (publish, new chapter, top-up): a repeated
 * submission of the same form gives what the first one created (docs/decisions/077).
 */
export function FormTokenField({ token }: { token: string }) {
  return <input type="hidden" name="formToken" value={token} />;
}

/**
 * One field's first error, next to the field. Pass the Conform `field`; `errors` is for
 * messages Conform does not hold (a plain action reply), and then `id` is what an input's
 * aria-describedby should name. `alert` (role="alert") makes it announce itself as it
 * appears: the settings and credits forms, the favourite button and the price form use it.
 */
export function FieldError({
  field,
  errors,
  id,
  alert = false,
  as: Element = "span",
  className,
}: {
  field?: ErrorMeta;
  errors?: string[] | string | null;
  id?: string;
  alert?: boolean;
  as?: Tag;
  className?: string;
}) {
  const message = firstMessage(errors ?? field?.errors);
  if (!message) return null;
  return (
    <Element className={className ? `field-error ${className}` : "field-error"} id={id ?? field?.errorId} role={alert ? "alert" : undefined}>
      {message}
    </Element>
  );
}

/** The form's first error (a message that belongs to no field), always announced. */
export function FormError({
  form,
  errors,
  as: Element = "p",
  className = "form-error",
}: {
  form?: ErrorMeta;
  errors?: string[] | string | null;
  as?: Tag;
  className?: string;
}) {
  const message = firstMessage(errors ?? form?.errors);
  if (!message) return null;
  return (
    <Element className={className} id={form?.errorId} role="alert">
      {message}
    </Element>
  );
}
