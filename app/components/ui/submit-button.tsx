import type { ComponentProps, ReactNode } from "react";
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
