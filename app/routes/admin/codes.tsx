import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { DownloadLink } from "~/components/admin/download-link";
import { formatDateTime } from "~/components/admin/format";
import { GenerateCodesForm } from "~/components/admin/generate-codes-form";
import { AdminDialog, AdminErrorBox, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { CODE_STATUS_FILTERS, generateCodesSchema, type CodeStatusFilter } from "~/schemas/admin";
import { generateRedeemCodes, listRedeemCodes } from "~/server/admin/redeem-codes.server";
import { adminActorOf } from "~/server/admin/audit.server";
import { formErrorsOf, replyOnDomainError } from "~/server/errors.server";
import { parsePage } from "~/utils/pagination";
import { readForm } from "~/server/form-data.server";
import type { Route } from "./+types/codes";

export const meta: Route.MetaFunction = () => [{ title: "兑换码管理 - 管理后台" }];

const STATUS_LABELS: Record<CodeStatusFilter, string> = { all: "全部", unused: "未使用", used: "已使用" };

function statusOf(url: URL): CodeStatusFilter {
  const s = url.searchParams.get("status");
  return (CODE_STATUS_FILTERS as readonly string[]).includes(s ?? "") ? (s as CodeStatusFilter) : "all";
}

export async function loader({ url }: Route.LoaderArgs) {
  const status = statusOf(url);
  const result = await listRedeemCodes({ status, page: parsePage(url.searchParams.get("page")) });
  return { ...result, status, generating: url.searchParams.get("dialog") === "generate" };
}

/** Generates codes; on success back to page 1 with 兑换码生成成功！ for 3 s. */
export async function action({ request, url, context }: Route.ActionArgs) {
  const status = statusOf(url);
  const submission = parseWithZod(await readForm(request), { schema: generateCodesSchema });
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400 });
  return replyOnDomainError(
    async () => {
      await generateRedeemCodes(adminActorOf(context), submission.value.quantity, submission.value.amount);
      return redirect(`/admin/codes?${new URLSearchParams({ status, notice: "codes-generated" })}`);
    },
    (error) => ({ result: submission.reply(formErrorsOf(error)) }),
  );
}

export default function Codes({ loaderData, actionData }: Route.ComponentProps) {
  const { codes, total, page, pageCount, status, generating } = loaderData;
  const base = `/admin/codes?status=${status}&page=${page}`;
  return (
    <section className="admin-page">
      <div className="page-head">
        <h1>兑换码管理</h1>
        <div className="admin-head-actions">
          <DownloadLink href="/exports/redeem-codes/unused.xlsx" fileName="未使用兑换码.xlsx" className="btn">
            导出未使用
          </DownloadLink>
          <Link className="btn btn-primary" to={`${base}&dialog=generate`} preventScrollReset>
            生成兑换码
          </Link>
        </div>
      </div>
      <QueryNotice ms={3000} />
      {/* Changing the filter starts again at page 1 (no page in this form). */}
      <Form method="get" className="toolbar" aria-label="状态筛选">
        <select name="status" defaultValue={status} key={status} aria-label="状态" onChange={(e) => e.currentTarget.form?.requestSubmit()}>
          {CODE_STATUS_FILTERS.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
        <button type="submit" className="btn">筛选</button>
        <span className="hint">共 {total} 个</span>
      </Form>
      {codes.length === 0 ? (
        <p className="empty-state">暂无兑换码</p>
      ) : (
        <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="兑换码列表">
          <table className="admin-table">
            <thead>
              <tr>
                <th>兑换码</th>
                <th>积分</th>
                <th>状态</th>
                <th>使用用户</th>
                <th>使用时间</th>
                <th>创建时间</th>
              </tr>
            </thead>
            <tbody>
              {codes.map((c) => (
                <tr key={c.id}>
                  <td><code>{c.code}</code></td>
                  <td>{c.amount}</td>
                  <td>{c.status === "used" ? "已使用" : "未使用"}</td>
                  <td>{c.userEmail ?? "—"}</td>
                  <td>{formatDateTime(c.usedAt) || "—"}</td>
                  <td>{formatDateTime(c.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/admin/codes?status=${status}&page=${p}`} />
      {generating ? (
        <AdminDialog title="生成兑换码" closeHref={base}>
          <GenerateCodesForm action={`${base}&dialog=generate`} closeHref={base} lastResult={actionData?.result} />
        </AdminDialog>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBox />;
}
