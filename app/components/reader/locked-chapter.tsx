import { useEffect, useRef, useState } from "react";
import { Form, Link } from "react-router";
import { authHref } from "~/components/shell/auth-links";
import { FormError } from "~/components/ui/forms";
import { LockIcon } from "./lock-icon";
import { useIsPending } from "~/components/ui/use-is-pending";

export interface LockedChapterData {
  id: number;
  title: string;
  order: number;
  price: number;
  wordCount: number;
}

/** /credits, coming back to this chapter after a redeem or a payment. @internal */
export function chapterTopUpHref(workId: number, order: number): string {
  return `/credits?${new URLSearchParams({ redirectTo: `/works/${workId}?chapter=${order}` })}`;
}

/**
 * A VIP chapter the reader does not own (docs/product.md#paying-by-chapter): its title, the
 * first ~200 字, its price, 购买本章 and 购买全部 with the total, and the 自动订阅 switch.
 * Plain forms that post and come back here (the chapter then opens in place), so it all
 * works without JavaScript. With 自动订阅 on and enough credits, the page buys the chapter
 * itself once it has loaded (a POST, never the GET that showed it); without JavaScript the
 * reader presses the button.
 */
export function LockedChapter({
  workId,
  workTitle,
  chapter,
  preview,
  quote,
  balance,
  signedIn,
  autoSubscribed,
  prev,
  next,
  error,
  missing,
}: {
  workId: number;
  workTitle: string;
  chapter: LockedChapterData;
  preview: string[];
  quote: { count: number; sum: number; total: number; discountPercent: number };
  balance: number;
  signedIn: boolean;
  autoSubscribed: boolean;
  prev: number | null;
  next: number | null;
  error?: string;
  missing?: number;
}) {
  const here = `/works/${workId}?chapter=${chapter.order}`;
  const busy = useIsPending({ state: "non-idle" });
  const short = chapter.price - balance;
  const autoForm = useRef<HTMLFormElement>(null);
  const autoBuy = signedIn && autoSubscribed && short <= 0 && !error;
  // Only a running page buys by itself; without JavaScript the reader presses the button.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  useEffect(() => {
    if (autoBuy && hydrated) autoForm.current?.requestSubmit();
  }, [autoBuy, hydrated, chapter.id]);

  return (
    <article className="locked-chapter" data-testid="locked-chapter">
      <h1 className="chapter-title">{chapter.title}</h1>
      <div className="locked-preview">
        {preview.map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </div>
      <div className="paywall" data-testid="paywall">
        <LockIcon size={32} className="paywall-lock" />
        <div>
          <p className="paywall-title">本章为VIP章节，购买后即可阅读</p>
          <p className="paywall-price">
            本章价格：<strong>{chapter.price}</strong> 积分 <small className="muted">（{chapter.wordCount} 字）</small>
          </p>
          {signedIn ? <p className="muted">当前积分余额：{balance}</p> : null}
        </div>
      </div>
      {signedIn ? (
        <div className="locked-actions">
          <FormError errors={error} />
          {short > 0 || missing ? (
            <p className="notice notice-error" role="alert">
              积分不足，还差 {Math.max(short, missing ?? 0)} 积分。
              <Link to={chapterTopUpHref(workId, chapter.order)}>去充值</Link>，充值后会回到本章。
            </p>
          ) : null}
          {autoBuy && hydrated ? (
            <p className="notice notice-success" role="status">
              已开启自动订阅，正在为你购买本章……
            </p>
          ) : null}
          <Form method="post" action={here} ref={autoForm} className="inline-form">
            <input type="hidden" name="intent" value="buy-chapter" />
            <input type="hidden" name="chapterId" value={chapter.id} />
            <input type="hidden" name="order" value={chapter.order} />
            <input type="hidden" name="price" value={chapter.price} />
            {autoBuy ? <input type="hidden" name="auto" value="1" /> : null}
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? "购买中..." : `购买本章（${chapter.price} 积分）`}
            </button>
          </Form>
          {quote.count > 1 ? (
            <Form method="post" action={here} className="inline-form">
              <input type="hidden" name="intent" value="buy-all" />
              <input type="hidden" name="order" value={chapter.order} />
              <input type="hidden" name="total" value={quote.total} />
              <input type="hidden" name="price" value={quote.total} />
              <button type="submit" className="btn" disabled={busy}>
                购买全部（{quote.count} 章，{quote.total} 积分）
              </button>
              {quote.discountPercent > 0 ? (
                <small className="muted">
                  {" "}
                  原价 {quote.sum} 积分，全本优惠 {quote.discountPercent}%
                </small>
              ) : null}
            </Form>
          ) : null}
          <Form method="post" action={here} className="auto-subscribe">
            <input type="hidden" name="intent" value="auto-subscribe" />
            <input type="hidden" name="order" value={chapter.order} />
            <input type="hidden" name="on" value={autoSubscribed ? "0" : "1"} />
            <span>
              自动订阅：<strong data-testid="auto-subscribe-state">{autoSubscribed ? "已开启" : "未开启"}</strong>
              <small className="muted">（开启后，打开下一个VIP章节时自动购买）</small>
            </span>
            <button type="submit" className="btn btn-small" disabled={busy}>
              {autoSubscribed ? "关闭自动订阅" : "开启自动订阅"}
            </button>
          </Form>
        </div>
      ) : (
        <p>
          <Link className="btn btn-primary" to={authHref({ pathname: `/works/${workId}`, search: `?chapter=${chapter.order}` }, "login", here)}>
            登录后购买
          </Link>
        </p>
      )}
      <nav className="chapter-nav" aria-label={`《${workTitle}》章节导航`}>
        {prev !== null ? (
          <Link to={`/works/${workId}?chapter=${prev}`} className="btn" rel="prev">
            上一章
          </Link>
        ) : null}
        <Link to={`/works/${workId}#toc`} className="btn">
          目录
        </Link>
        {next !== null ? (
          <Link to={`/works/${workId}?chapter=${next}`} className="btn" rel="next">
            下一章
          </Link>
        ) : null}
      </nav>
    </article>
  );
}
