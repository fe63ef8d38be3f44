import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect, useLoaderData } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { ExchangeForm } from "~/components/credits/exchange-form";
import { CreditHistory, TokenHistory } from "~/components/credits/history";
import { RedeemForm } from "~/components/credits/redeem-form";
import { TopUpForm } from "~/components/credits/top-up-form";
import { Dialog } from "~/components/ui/dialog";
import { FlashMessage } from "~/components/ui/flash-message";
import { Pagination } from "~/components/ui/pagination";
import { CREDITS_MESSAGES, creditsActionSchema, creditsIntentSchema } from "~/schemas/credits";
import { domainErrorOf, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { siteOrigin } from "~/server/platform/request.server";
import { userContext } from "~/middleware/guards.server";
import { creditsToTokensRatio, EXCHANGE_MESSAGES, exchangeCreditsForTokens } from "~/server/economy/ledger.server";
import { createPaymentOrder, isOnlinePaymentEnabled } from "~/server/economy/epay.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { REDEEM_FAILED, redeemForUser } from "~/server/economy/redeem.server";
import { getSiteConfig } from "~/server/platform/site-config.server";
import { creditsReturnPath, paymentReturnCookie } from "~/server/platform/return-to.server";
import { isSecureRequest } from "~/server/platform/cookies.server";
import { formatTokens } from "~/utils/format";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/credits";
import { listCreditHistory, listTokenHistory } from "./credits.server";

export const meta: Route.MetaFunction = () => [{ title: "我的积分 - 砚台" }];

/** The form creates rows once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["top-up", "exchange"] };

/** The three forms, each in its dialog; `intent` tells the action which one posted. */
type Intent = "redeem" | "exchange" | "topup";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const tab = url.searchParams.get("tab") === "tokens" ? "tokens" : "credits";
  const page = parsePage(url.searchParams.get("page"));
  const [creditHistory, tokenHistory, config, onlinePayment, ratio, flash] = await Promise.all([
    tab === "credits" ? listCreditHistory(user.id, page) : null,
    tab === "tokens" ? listTokenHistory(user.id, page) : null,
    getSiteConfig(["store_url_v2"] as const),
    isOnlinePaymentEnabled(),
    creditsToTokensRatio(),
    takeFlash(request, url),
  ]);
  const requested = url.searchParams.get("dialog");
  const dialog: Intent | null =
    requested === "redeem" || requested === "exchange" || (requested === "topup" && onlinePayment) ? requested : null;
  const storeUrl = /^https?:\/\//i.test(config.store_url_v2.trim()) ? config.store_url_v2.trim() : "";
  const history = creditHistory ?? tokenHistory!;
  return data(
    {
      credits: user.credits,
      tokens: user.tokens,
      tab,
      creditRows: creditHistory?.rows.map(({ createdAt, ...r }) => ({ ...r, time: formatShanghaiSeconds(createdAt) })) ?? [],
      tokenRows: tokenHistory?.rows.map(({ createdAt, ...r }) => ({ ...r, time: formatShanghaiSeconds(createdAt) })) ?? [],
      page: history.page,
      pageCount: history.pageCount,
      onlinePayment,
      storeUrl,
      ratio,
      dialog,
      // The top-up and the exchange dialogs each carry a one-time token (decision 077).
      formToken: dialog === "topup" || dialog === "exchange" ? newFormToken() : "",
      notice: flash.notice,
      returnTo: creditsReturnPath(url),
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

type ActionReply = { intent: Intent; result: SubmissionResult<string[]> };

function failed(intent: Intent, result: SubmissionResult<string[]>, status: number) {
  return data<ActionReply>({ intent, result }, { status });
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const formData = await readForm(request);
  const submission = parseWithZod(formData, { schema: creditsActionSchema });
  const picked = parseWithZod(formData, { schema: creditsIntentSchema });
  const intent: Intent = picked.status === "success" ? picked.value.intent : "redeem";
  if (submission.status !== "success") return failed(intent, submission.reply(), 400);
  const value = submission.value;
  const returnTo = creditsReturnPath(url);

  if (value.intent === "redeem") {
    try {
      const { amount } = await redeemForUser(user.id, value.code);
      // Came from a purchase short of credits: back there, where the new balance shows,
      // with the same notice.
      return redirectWithFlash(request, returnTo ?? "/credits", { kind: "success", text: `兑换成功，获得 ${amount} 积分` });
    } catch (error) {
      const { message, status } = domainErrorOf(error, REDEEM_FAILED);
      return failed(intent, submission.reply({ fieldErrors: { code: [message] } }), status);
    }
  }

  if (value.intent === "exchange") {
    try {
      // The same form sent twice (a double click, a retry) exchanges once (decision 077).
      const text = await oncePerFormToken(
        user.id,
        "exchange",
        formTokenOf(formData),
        async (record) => {
          if (value.amount > user.credits) return null;
          const result = await exchangeCreditsForTokens(user.id, value.amount, record);
          return `兑换成功：${result.credits} 积分已兑换为 ${formatTokens(result.tokens)} Tokens`;
        },
        async () => "这次兑换已经完成",
      );
      if (text === null) return failed(intent, submission.reply({ fieldErrors: { amount: [CREDITS_MESSAGES.exchangeTooMuch] } }), 400);
      return redirectWithFlash(request, "/credits?tab=tokens", { kind: "success", text });
    } catch (error) {
      const { message, status } = domainErrorOf(error, EXCHANGE_MESSAGES.failed);
      return failed(intent, submission.reply({ formErrors: [message] }), status);
    }
  }

  return replyOnDomainError(
    async () => {
      const order = await createPaymentOrder(user.id, value.amount, siteOrigin(), formTokenOf(formData));
      const headers = new Headers();
      if (returnTo) headers.append("Set-Cookie", await paymentReturnCookie.serialize(returnTo, { secure: isSecureRequest(request) }));
      return redirect(order.redirectUrl, { headers });
    },
    (error): ActionReply => ({ intent, result: submission.reply({ formErrors: [error.message] }) }),
  );
}

export default function Credits({ actionData }: Route.ComponentProps) {
  const { credits, tokens, tab, creditRows, tokenRows, page, pageCount, onlinePayment, storeUrl, ratio, dialog, formToken, notice, returnTo } =
    useLoaderData<typeof loader>();
  const reply = (intent: Intent) => (actionData && actionData.intent === intent ? actionData.result : undefined);
  const back: Record<string, string> = returnTo ? { redirectTo: returnTo } : {};
  const here = (params: Record<string, string>) => `/credits?${new URLSearchParams({ tab, ...back, ...params })}`;
  const closeHref = returnTo ? here({}) : tab === "tokens" ? "/credits?tab=tokens" : "/credits";
  return (
    <section className="credits-page">
      <h1>我的积分</h1>
      <FlashMessage notice={notice} />
      {returnTo ? (
        <p className="notice" role="status">
          充值完成后将回到你刚才的页面。<Link to={returnTo}>直接返回</Link>
        </p>
      ) : null}
      <div className="balance-cards">
        <div className="balance-card">
          <span className="balance-label">积分余额</span>
          <strong className="balance-value" data-testid="credits-page-balance">{credits}</strong>
          <div className="balance-actions">
            {onlinePayment ? (
              // A document load: only a /credits document's policy lets its form's redirect go
              // to the gateway (form-action, app/entry.server.tsx), and the reader may have come
              // here by a client-side navigation from a page without it (e.g. 去充值).
              <Link className="btn btn-primary" to={here({ dialog: "topup" })} reloadDocument>在线充值</Link>
            ) : null}
            <Link className={onlinePayment ? "btn" : "btn btn-primary"} to={here({ dialog: "redeem" })}>兑换码充值</Link>
            {storeUrl ? (
              <a className="btn" href={storeUrl} target="_blank" rel="noopener noreferrer">前往商店</a>
            ) : null}
          </div>
        </div>
        <div className="balance-card">
          <span className="balance-label">Tokens 余额</span>
          <strong className="balance-value" data-testid="tokens-page-balance" title={`${tokens} Tokens`}>{formatTokens(tokens)}</strong>
          <div className="balance-actions">
            <Link className="btn" to={here({ dialog: "exchange" })}>积分兑换 Tokens</Link>
            <span className="muted">1 积分 = {ratio} Tokens</span>
          </div>
        </div>
      </div>

      <nav className="tabs" aria-label="记录">
        <Link to="/credits" className={tab === "credits" ? "tab active" : "tab"} aria-current={tab === "credits" ? "page" : undefined}>积分记录</Link>
        <Link to="/credits?tab=tokens" className={tab === "tokens" ? "tab active" : "tab"} aria-current={tab === "tokens" ? "page" : undefined}>Tokens 记录</Link>
      </nav>
      {tab === "credits" ? <CreditHistory rows={creditRows} /> : <TokenHistory rows={tokenRows} />}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => here({ page: String(p) })} />

      {dialog === "redeem" ? (
        <Dialog className="credits-dialog" title="兑换码充值" closeHref={closeHref}>
          <RedeemForm action={here({ dialog: "redeem" })} lastResult={reply("redeem")} storeUrl={storeUrl} />
        </Dialog>
      ) : dialog === "exchange" ? (
        <Dialog className="credits-dialog" title="积分兑换 Tokens" closeHref={closeHref}>
          <ExchangeForm action={here({ dialog: "exchange" })} lastResult={reply("exchange")} balance={credits} ratio={ratio} formToken={formToken} />
        </Dialog>
      ) : dialog === "topup" ? (
        <Dialog className="credits-dialog" title="在线充值" closeHref={closeHref}>
          <TopUpForm action={here({ dialog: "topup" })} lastResult={reply("topup")} formToken={formToken} />
        </Dialog>
      ) : null}
    </section>
  );
}
