import { data, Form, Link, useLoaderData } from "react-router";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { incomeActionSchema } from "~/schemas/credits";
import { parseWithZod } from "@conform-to/zod/v4";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import { userContext } from "~/middleware/guards.server";
import { convertIncomeToCredits, incomeOverview, requestPayout } from "~/server/economy/income.server";
import { attendanceOverview } from "~/server/economy/attendance.server";
import { CONTRACT_LABELS } from "~/types/contracts";
import { identityNeeded } from "~/server/identity/author-identity.server";
import { currentPayoutAccount } from "~/server/identity/payout-accounts.server";
import { PAYOUT_ACCOUNT_KIND_LABELS } from "~/schemas/payout-account";
import { PAYOUT_STATUS_LABELS } from "~/types/payouts";
import { parsePage } from "~/utils/pagination";
import type { Route } from "./+types/income";
import { TableScroll } from "~/components/ui/table-scroll";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

/**
 * 我的收入 (docs/product.md#author-income): the income balance and what is held by pending
 * payouts, the 签约状态 and this month's 全勤 (decision 236), income by work, by chapter and by
 * day, the income ledger with each sale's, tip's and bonus's gross and platform share,
 * 提现申请 and 转为积分.
 * Live: a sale announces itself to the author's open pages (the `income` user event).
 */
export const meta: Route.MetaFunction = () => [{ title: "我的收入 - 砚台" }];

/** 提现申请 asks once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["payout"] };

const TYPE_LABELS = {
  sale: "作品收入",
  tip: "打赏收入",
  bonus: "全勤奖",
  payout_request: "提现申请",
  payout_paid: "提现完成",
  payout_refused: "提现退回",
  payout_returned: "款项退回",
  convert: "转为积分",
} as const;

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [overview, flash, needsIdentity, account, attendance] = await Promise.all([
    incomeOverview(user.id, parsePage(url.searchParams.get("page"))),
    takeFlash(request, url),
    identityNeeded(user.id),
    currentPayoutAccount(user.id),
    attendanceOverview(user.id),
  ]);
  const accountLabel = account ? [PAYOUT_ACCOUNT_KIND_LABELS[account.kind], account.bankName, account.accountMasked, `（${account.holderMasked}）`].filter(Boolean).join(" ") : null;
  return data({ ...overview, attendance, needsIdentity, accountLabel, notice: flash.notice, formToken: newFormToken() }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: incomeActionSchema });
  if (submission.status !== "success") return data({ intent: "payout", field: null, error: "未知操作" }, { status: 400 });
  const { intent, amount } = submission.value;
  return replyOnDomainError(
    async () => {
      if (intent === "payout") {
        // The same form sent twice (a double click, a retry) asks once (decision 077).
        const id = await oncePerFormToken(
          user.id,
          "payout",
          formTokenOf(form),
          async (record) => (await requestPayout(user.id, amount, record)).id,
          async (resultId) => Number(resultId),
        );
        return redirectWithFlash(request, "/income", { kind: "success", text: `提现申请 #${id} 已提交，金额已冻结，等待处理` });
      }
      const { credits } = await convertIncomeToCredits(user.id, amount);
      return redirectWithFlash(request, "/income", { kind: "success", text: `已转为积分，当前积分 ${credits}` });
    },
    (error) => ({ intent, field: error.field ?? null, error: error.message }),
  );
}

export default function Income({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const busy = useIsPending();
  const answer = actionData as { intent: "payout" | "convert"; field: string | null; error: string } | undefined;
  const errorOf = (intent: string, field: string) => (answer?.intent === intent && (answer.field === field || (!answer.field && field === "amount")) ? answer.error : undefined);
  return (
    <section className="income-page">
      <h1>我的收入</h1>
      <FlashMessage notice={page.notice} />
      <div className="income-summary" data-testid="income-summary">
        <div>
          <span className="muted">可用收入</span>
          <strong data-testid="income-balance">{page.balance}</strong>
        </div>
        <div>
          <span className="muted">提现冻结中</span>
          <strong>{page.held}</strong>
        </div>
        <div>
          <span className="muted">作者分成</span>
          <strong>{page.authorSharePercent}%</strong>
        </div>
      </div>
      <AttendanceLine attendance={page.attendance} />
      <div className="income-forms">
        <Form method="post" className="card form">
          <h2>提现申请</h2>
          {page.needsIdentity ? (
            <p className="notice" data-testid="payout-identity">
              提现前需要先完成<Link to="/settings/identity">实名认证</Link>，收款账户的户名须与认证姓名一致。
            </p>
          ) : null}
          <input type="hidden" name="intent" value="payout" />
          <FormTokenField token={page.formToken} />
          <p data-testid="payout-account-line">
            收款账户：{page.accountLabel ?? <span className="muted">尚未添加</span>} <Link to="/income/account">{page.accountLabel ? "更换" : "添加收款账户"}</Link>
          </p>
          <FieldError errors={errorOf("payout", "account")} alert as="p" />
          <div className="field">
            <label htmlFor="payout-amount">金额（不低于 {page.payoutMinimum}）</label>
            <input id="payout-amount" name="amount" inputMode="numeric" required aria-describedby="payout-tax-hint" />
            <small id="payout-tax-hint" className="muted">
              1 积分 = 1 元；支付时按规定代扣个人所得税，每笔的应发、个税和实发见提现记录里的结算单。
            </small>
            <FieldError errors={errorOf("payout", "amount")} alert as="p" />
          </div>
          <SubmitButton className="btn btn-primary" pending={busy}>
            提交申请
          </SubmitButton>
        </Form>
        <Form method="post" className="card form">
          <h2>转为积分</h2>
          <input type="hidden" name="intent" value="convert" />
          <p className="muted">收入按 1:1 转入积分余额，可用于购买作品或兑换 Tokens。</p>
          <div className="field">
            <label htmlFor="convert-amount">金额</label>
            <input id="convert-amount" name="amount" inputMode="numeric" required />
            <FieldError errors={errorOf("convert", "amount")} alert as="p" />
          </div>
          <SubmitButton className="btn" pending={busy}>
            转为积分
          </SubmitButton>
        </Form>
      </div>

      <h2>按作品</h2>
      <TableScroll label="按作品">
        <table className="data-table">
          <thead>
            <tr>
              <th>作品</th>
              <th>销售笔数</th>
              <th>读者支付</th>
              <th>我的收入</th>
              <th>其中打赏</th>
              <th>近30天</th>
            </tr>
          </thead>
          <tbody>
            {page.byWork.length === 0 ? (
              <tr>
                <td colSpan={6}>暂无收入</td>
              </tr>
            ) : (
              page.byWork.map((w) => (
                <tr key={w.workId ?? "gone"}>
                  <td>{w.workId ? <Link to={`/works/${w.workId}`}>{w.title}</Link> : w.title}</td>
                  <td>{w.sales}</td>
                  <td>{w.gross}</td>
                  <td>{w.total}</td>
                  <td>{w.tips}</td>
                  <td>{w.recent}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableScroll>

      <h2>按章节（销量前20）</h2>
      <TableScroll label="按章节（销量前20）">
        <table className="data-table">
          <thead>
            <tr>
              <th>章节</th>
              <th>购买人数</th>
              <th>章节定价合计</th>
            </tr>
          </thead>
          <tbody>
            {page.byChapter.length === 0 ? (
              <tr>
                <td colSpan={3}>暂无按章销售</td>
              </tr>
            ) : (
              page.byChapter.map((c) => (
                <tr key={c.chapterId}>
                  <td>
                    《{c.workTitle}》{c.label}
                  </td>
                  <td>{c.sales}</td>
                  <td>{c.gross}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableScroll>

      <h2>近30天（北京时间，按日）</h2>
      {page.byDay.length === 0 ? (
        <p className="muted">近30天暂无收入</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table" data-testid="income-days">
            <caption className="sr-only">近30天每日销售</caption>
            <thead>
              <tr>
                <th scope="col">日期</th>
                <th scope="col">销售笔数</th>
                <th scope="col">读者支付</th>
                <th scope="col">我的收入</th>
              </tr>
            </thead>
            <tbody>
              {page.byDay.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.sales}</td>
                  <td>{d.gross}</td>
                  <td>{d.income}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">合计</th>
                <td>{page.salesTotals.sales}</td>
                <td>{page.salesTotals.gross}</td>
                <td>{page.salesTotals.income}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}

      <h2>提现记录</h2>
      {page.payouts.length === 0 ? (
        <p className="muted">暂无提现申请</p>
      ) : (
        <ul className="income-payouts">
          {page.payouts.map((p) => (
            <li key={p.id}>
              <Link to={`/income/payouts/${p.id}`}>#{p.id}</Link> {p.amount} · {PAYOUT_STATUS_LABELS[p.status]} · {formatShanghaiSeconds(p.createdAt)}
              {p.reference ? <small className="muted">（{p.reference}）</small> : null}
            </li>
          ))}
        </ul>
      )}

      <h2>收入明细</h2>
      <TableScroll label="收入明细">
        <table className="data-table" data-testid="income-ledger">
          <thead>
            <tr>
              <th>时间</th>
              <th>类型</th>
              <th>说明</th>
              <th>金额</th>
              <th>平台分成</th>
              <th>收入变动</th>
            </tr>
          </thead>
          <tbody>
            {page.ledger.length === 0 ? (
              <tr>
                <td colSpan={6}>暂无记录</td>
              </tr>
            ) : (
              page.ledger.map((r) => (
                <tr key={r.id}>
                  <td>{formatShanghaiSeconds(r.createdAt)}</td>
                  <td>{TYPE_LABELS[r.type]}</td>
                  <td>{r.description}</td>
                  <td>{r.gross ?? "—"}</td>
                  <td>{r.gross === null ? "—" : r.gross - r.amount}</td>
                  <td>{r.amount > 0 ? `+${r.amount}` : r.amount}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableScroll>
      <Pagination page={page.ledgerPage} pageCount={page.ledgerPageCount} hrefFor={(p) => `/income?page=${p}`} />
    </section>
  );
}

/** 签约状态 and this month's 全勤 so far (decision 236). */
function AttendanceLine({ attendance: a }: { attendance: ReturnType<typeof useLoaderData<typeof loader>>["attendance"] }) {
  const signed = a.contract !== "none";
  return (
    <p className="notice" data-testid="income-contract">
      签约状态：{CONTRACT_LABELS[a.contract]}
      {a.bonus <= 0
        ? null
        : signed
          ? `。全勤奖：本月每天发布不少于 ${a.minWords} 字，次月初发放 ${a.bonus}；本月已达标 ${a.daysMet}/${a.daysSoFar} 天${a.todayMet ? "（今天已达标）" : "（今天尚未达标）"}${a.onTrack ? "" : "，本月已无法获得全勤奖"}。`
          : `。签约作者每月每天发布不少于 ${a.minWords} 字可获全勤奖 ${a.bonus}。`}
    </p>
  );
}
