import type { ComponentProps, ReactNode } from "react";
import { Link } from "react-router";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * A form's submit button, disabled while its form is on its way and then showing
 * `pendingLabel` (保存中...) when given (docs/decisions/173). `pending` defaults to "this
 * page's navigation is submitting"; pass useIsPending's answer for a fetcher or an intent.
 */
export function SubmitButton({
  pending,
  pendingLabel,
  disabled,
  children,
  ...props
}: Omit<ComponentProps<"button">, "type"> & { pending?: boolean; pendingLabel?: ReactNode }) {
  const submitting = useIsPending();
  const busy = pending ?? submitting;
  return (
    <button type="submit" {...props} disabled={busy || disabled}>
      {busy && pendingLabel !== undefined ? pendingLabel : children}
    </button>
  );
}

/**
 * A form's last row: its submit button (`children`, 保存 unless named; `pendingLabel`
 * while it is on its way, 保存中... unless named) and 取消, a link back to `cancelHref`.
 */
export function SaveOrCancel({
  cancelHref,
  pending,
  pendingLabel = "保存中...",
  children = "保存",
}: {
  cancelHref: string;
  pending?: boolean;
  pendingLabel?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="form-actions">
      <SubmitButton className="btn btn-primary" pending={pending} pendingLabel={pendingLabel}>
        {children}
      </SubmitButton>
      <Link className="btn" to={cancelHref}>
        取消
      </Link>
    </div>
  );
}
