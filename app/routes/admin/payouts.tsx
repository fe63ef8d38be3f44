import { data, Form, Link, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { PAYOUT_STATUSES, type PayoutStatus } from "~/db/schema";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { payoutOutcomeSchema } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { listPayoutRequests, settlePayout } from "~/server/economy/income.server";
import { parsePage } from "~/utils/pagination";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/payouts";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { AdminTable, UserCell } from "~/components/admin/admin-table";

/**
 * 提现申请 (docs/product.md#author-income): authors' payout requests, filtered by status and
 * e-mail; a pending one is marked paid (with the payment's reference) or refused (the
 * amount returns to the author's income). Settled outside the site; plain forms. A pending
 * request shows its account's full number to the operator paying it, each such view in the
 * audit log (decision 210); paying
 * writes the statement with the tax withheld (decision 209, /admin/payouts/:id).
 */
export const meta: Route.MetaFunction = () => [{ title: "提现申请 - 管理后台" }];

const STATUS_LABELS: Record<PayoutStatus, string> = { pending: "待处理", paid: "已支付", refused: "已拒绝", returned: "款项已退回" };

function parseStatus(value: string | null): PayoutStatus | "all" {
  return value && (PAYOUT_STATUSES as readonly string[]).includes(value) ? (value as PayoutStatus) : value === "all" ? "all" : "pending";
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const status = parseStatus(url.searchParams.get("status"));
  const email = (url.searchParams.get("email") ?? "").slice(0, 200);
  const list = await listPayoutRequests({ status, email, page: parsePage(url.searchParams.get("page")) }, adminActorOf(context));
  return { ...list, status, email };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: payoutOutcomeSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { outcome, id, reference } = submission.value;
  return replyOnDomainError(
    async () => {
      await settlePayout(adminActorOf(context), id, outcome, reference);
      const back = new URLSearchParams(url.search);
      back.set("notice", outcome === "paid" ? "payout-paid" : "payout-refused");
      return redirect(`/admin/payouts?${back}`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function Payouts({ loaderData, actionData }: Route.ComponentProps) {
  const { requests, status, email, page, pageCount, total } = loaderData;
  const busy = useIsPending();
  const hrefFor = (p: number) => `/admin/payouts?${new URLSearchParams({ status, email, page: String(p) })}`;
  return (
    <section className="admin-page">
      <h1>提现申请</h1>
      <QueryNotice />
      <FormErrors errors={actionData && "error" in actionData ? [actionData.error] : undefined} />
      <Form method="get" className="admin-card admin-filters">
        <label className="field">
          <span>状态</span>
          <select name="status" defaultValue={status}>
            <option value="pending">待处理</option>
            <option value="paid">已支付</option>
            <option value="refused">已拒绝</option>
            <option value="returned">款项已退回</option>
            <option value="all">全部</option>
          </select>
        </label>
        <label className="field">
          <span>作者邮箱</span>
          <input name="email" defaultValue={email} placeholder="包含即可" />
        </label>
        <button type="submit" className="btn">
          筛选
        </button>
      </Form>
      <p className="admin-muted">共 {total} 条</p>
      <AdminTable label="提现申请" testId="payout-table" head={["编号", "作者", "金额", "收款信息", "申请时间", "状态", "操作"]}>
        {requests.length === 0 ? (
          <tr>
            <td colSpan={7}>暂无提现申请</td>
          </tr>
        ) : (
          requests.map((r) => (
            <tr key={r.id}>
              <td>
                <Link to={`/admin/payouts/${r.id}`}>#{r.id}</Link>
              </td>
              <UserCell userId={r.userId} nickname={r.nickname} email={r.email} />
              <td>{r.amount}</td>
              <td className="admin-payee">
                {r.payeeName ? <>收款人：{r.payeeName}<br /></> : null}
                {r.payee}
                {r.accountFull ? (
                  <>
                    <br />
                    <span data-testid="payout-account-full">账号：{r.accountFull}</span>
                  </>
                ) : null}
              </td>
              <td>{formatShanghaiSeconds(r.createdAt)}</td>
              <td>
                {STATUS_LABELS[r.status]}
                {r.reference ? <small className="admin-muted">（{r.reference}）</small> : null}
              </td>
              <td>
                {r.status === "pending" ? (
                  <>
                    <Form method="post" className="inline-form">
                      <input type="hidden" name="id" value={r.id} />
                      <input type="hidden" name="outcome" value="paid" />
                      <input name="reference" placeholder="付款凭证号" aria-label={`#${r.id} 付款凭证号`} required maxLength={200} />
                      <SubmitButton className="btn btn-primary btn-small" pending={busy}>
                        标记已支付
                      </SubmitButton>
                    </Form>
                    <Form method="post" className="inline-form">
                      <input type="hidden" name="id" value={r.id} />
                      <input type="hidden" name="outcome" value="refused" />
                      <input name="reference" placeholder="拒绝理由（可选）" aria-label={`#${r.id} 拒绝理由`} maxLength={200} />
                      <SubmitButton className="btn btn-small" pending={busy}>
                        拒绝
                      </SubmitButton>
                    </Form>
                  </>
                ) : null}
              </td>
            </tr>
          ))
        )}
      </AdminTable>
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} />
    </section>
  );
}
