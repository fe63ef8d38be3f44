import { useEffect, useState } from "react";
import { Link, useFetcher, useNavigate } from "react-router";
import { Dialog } from "~/components/ui/dialog";
import { FormError } from "~/components/ui/forms";

interface PurchaseAnswer {
  intent: "purchase" | "favorite";
  ok?: true;
  already?: boolean;
  error?: string;
}

/** /credits, coming back to this dialog after a redeem or a payment. */
function topUpHref(workId: number): string {
  return `/credits?${new URLSearchParams({ redirectTo: `/works/${workId}?purchase=1` })}`;
}

/**
 * 购买作品 (docs/product.md: States and actions, "Purchase dialog"): idle, processing (购买中...),
 * success (then the work opens) or error with its message (docs/product.md). The server renders
 * it from `?purchase=1`, so without JavaScript it is a plain form that posts, and the
 * server redirects to the opened work.
 */
export function PurchaseDialog({
  work,
  balance,
  purchased,
  closeHref,
  serverError,
}: {
  work: { id: number; title: string; price: number };
  balance: number;
  /** Bought already (or just now): the dialog only offers to open the work. */
  purchased: boolean;
  closeHref: string;
  /** The error of a submission made without JavaScript. */
  serverError?: string;
}) {
  const fetcher = useFetcher<PurchaseAnswer>({ key: `purchase-${work.id}` });
  const navigate = useNavigate();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  const state: "idle" | "processing" | "success" | "error" =
    fetcher.state !== "idle"
      ? "processing"
      : answer?.ok || purchased
        ? "success"
        : answer?.error || serverError
          ? "error"
          : "idle";
  const error = answer?.error ?? serverError;

  // After a purchase the work opens (its loader has already been revalidated).
  useEffect(() => {
    if (state !== "success") return;
    const timer = setTimeout(() => navigate(`/works/${work.id}`, { replace: true }), 800);
    return () => clearTimeout(timer);
  }, [state, navigate, work.id]);

  return (
    <Dialog title="购买作品" closeHref={closeHref} closable={state !== "processing"} className="purchase-dialog">
      {state === "success" ? (
        <>
          <p className="notice notice-success" role="status">
            {answer?.ok && !answer.already ? "购买成功" : "你已购买过该作品"}，正在打开作品...
          </p>
          <Link to={`/works/${work.id}`} className="btn btn-primary btn-block" replace>
            开始阅读
          </Link>
        </>
      ) : (
        <fetcher.Form method="post" action={`/works/${work.id}?purchase=1`}>
          <input type="hidden" name="intent" value="purchase" />
          {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
          <p>
            确认花费 <strong>{work.price}</strong> 积分购买《{work.title}》？
          </p>
          <p className="muted">当前积分余额：{balance}</p>
          <FormError errors={error} />
          {balance < work.price ? (
            <p className="muted">积分不足，充值后会回到这里继续购买。</p>
          ) : null}
          <div className="form-actions">
            <Link to={closeHref} className="btn" replace>
              取消
            </Link>
            {balance < work.price ? (
              <Link to={topUpHref(work.id)} className="btn">
                去充值
              </Link>
            ) : null}
            <button type="submit" className="btn btn-primary" disabled={state === "processing"}>
              {state === "processing" ? "购买中..." : state === "error" ? "重新购买" : "确认购买"}
            </button>
          </div>
        </fetcher.Form>
      )}
    </Dialog>
  );
}
