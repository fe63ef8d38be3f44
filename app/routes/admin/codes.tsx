import { Form, Link, redirect } from "react-router";
import { DownloadLink } from "~/components/admin/download-link";
import { formatShanghaiSeconds } from "~/utils/shanghai-time";
import { GenerateCodesForm } from "~/components/admin/generate-codes-form";
import { AdminDialog, FormErrors, QueryNotice } from "~/components/admin/ui";
import { Pagination } from "~/components/ui/pagination";
import { CODE_STATUS_FILTERS, codesIntentSchema, generateCodesSchema, voidCodesSchema, type CodeStatusFilter } from "~/schemas/admin";
import { parseWithZod } from "@conform-to/zod/v4";
import { generateRedeemCodes, listRedeemCodes, voidRedeemCodes } from "~/server/admin/redeem-codes.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { parsePage } from "~/utils/pagination";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import type { Route } from "./+types/codes";
import { AdminTable } from "~/components/admin/admin-table";

export const meta: Route.MetaFunction = () => [{ title: "兑换码管理 - 管理后台" }];

/** 生成兑换码 makes one batch per one-time token (decision 172; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["redeem-codes"] };

const STATUS_LABELS: Record<CodeStatusFilter, string> = { all: "全部", unused: "未使用", used: "已使用", void: "已作废", expired: "已过期" };

function statusOf(url: URL): CodeStatusFilter {
  const s = url.searchParams.get("status");
  return (CODE_STATUS_FILTERS as readonly string[]).includes(s ?? "") ? (s as CodeStatusFilter) : "all";
}

export async function loader({ url }: Route.LoaderArgs) {
  const status = statusOf(url);
  const code = (url.searchParams.get("code") ?? "").trim().slice(0, 20);
  const batch = (url.searchParams.get("batch") ?? "").trim().slice(0, 50);
  const result = await listRedeemCodes({ status, page: parsePage(url.searchParams.get("page")), code, batch });
  const generating = url.searchParams.get("dialog") === "generate";
  return { ...result, status, code, batch, generating, formToken: generating ? newFormToken() : null };
}

/** The codes' end: the end of the chosen day in China time (the site's clock). */
function endOfSiteDay(day: string): Date {
  return new Date(new Date(`${day}T00:00:00+08:00`).getTime() + 24 * 3600 * 1000);
}

/** Generates codes; on success back to page 1 with 兑换码生成成功！ for 3 s. */
export async function action({ request, url, context }: Route.ActionArgs) {
  const status = statusOf(url);
  const form = await readForm(request);
  const picked = parseWithZod(form, { schema: codesIntentSchema });
  const intent = picked.status === "success" ? picked.value.intent : "generate";
  if (intent === "void" || intent === "void-batch") {
    return replyToForm(
      form,
      voidCodesSchema,
      async (value) => {
        await voidRedeemCodes(adminActorOf(context), value.intent === "void" ? { id: value.id } : { batch: value.batch });
        return redirect(`/admin/codes?${new URLSearchParams({ status, notice: "codes-voided" })}`);
      },
      { answer: (result) => ({ result }) },
    );
  }
  return replyToForm(
    form,
    generateCodesSchema,
    async ({ quantity, amount, batch, expiresOn }) => {
      const actor = adminActorOf(context);
      // The same form sent twice (a double click, 重新提交) makes one batch.
      await oncePerFormToken(
        { adminId: actor.admin.id },
        "redeem-codes",
        formTokenOf(form),
        (record) => generateRedeemCodes(actor, quantity, amount, { batch, expiresAt: expiresOn ? endOfSiteDay(expiresOn) : null, record }),
        async () => [],
      );
      return redirect(`/admin/codes?${new URLSearchParams({ status, notice: "codes-generated" })}`);
    },
    { answer: (result) => ({ result }) },
  );
}

function codeState(c: { status: string; voidedAt: Date | string | null; expiresAt: Date | string | null }): string {
  if (c.status === "used") return "已使用";
  if (c.voidedAt) return "已作废";
  if (c.expiresAt && new Date(c.expiresAt).getTime() <= Date.now()) return "已过期";
  return "未使用";
}

export default function Codes({ loaderData, actionData }: Route.ComponentProps) {
  const { codes, total, page, pageCount, status, code, batch, generating, formToken } = loaderData;
  const filters = `status=${status}${code ? `&code=${encodeURIComponent(code)}` : ""}${batch ? `&batch=${encodeURIComponent(batch)}` : ""}`;
  const base = `/admin/codes?${filters}&page=${page}`;
  const voidErrors = actionData && !generating ? Object.values(actionData.result.error ?? {}).flat().filter((m): m is string => typeof m === "string") : [];
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
      {voidErrors.length ? <FormErrors errors={voidErrors} /> : null}
      <Form method="get" className="toolbar" aria-label="状态筛选">
        <input type="search" name="code" defaultValue={code} key={`c${code}`} placeholder="按兑换码搜索" aria-label="按兑换码搜索" maxLength={20} inputMode="numeric" />
        <input type="search" name="batch" defaultValue={batch} key={`b${batch}`} placeholder="批次名称" aria-label="批次名称" maxLength={50} />
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
        <AdminTable label="兑换码列表" framed head={["兑换码", "积分", "状态", "使用用户", "使用时间", "创建时间", "批次", "有效期至", "操作"]}>
          {codes.map((c) => (
            <tr key={c.id}>
              <td><code>{c.code}</code></td>
              <td>{c.amount}</td>
              <td>{codeState(c)}</td>
              <td>{c.userEmail ?? "—"}</td>
              <td>{formatShanghaiSeconds(c.usedAt) || "—"}</td>
              <td>{formatShanghaiSeconds(c.createdAt)}</td>
              <td>
                {c.batch ? <Link to={`/admin/codes?status=all&batch=${encodeURIComponent(c.batch)}`}>{c.batch}</Link> : "—"}
              </td>
              <td>{formatShanghaiSeconds(c.expiresAt) || "—"}</td>
              <td>
                {codeState(c) === "未使用" ? (
                  <Form method="post" action={base}>
                    <input type="hidden" name="intent" value="void" />
                    <input type="hidden" name="id" value={c.id} />
                    <button type="submit" className="btn btn-ghost admin-danger-link">作废</button>
                  </Form>
                ) : null}
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/admin/codes?${filters}&page=${p}`} />
      {batch && codes.some((c) => codeState(c) === "未使用") ? (
        <Form method="post" action={base} className="admin-inline-form">
          <input type="hidden" name="intent" value="void-batch" />
          <input type="hidden" name="batch" value={batch} />
          <button type="submit" className="btn btn-danger">作废批次“{batch}”中所有未使用的兑换码</button>
        </Form>
      ) : null}
      {generating ? (
        <AdminDialog title="生成兑换码" closeHref={base}>
          <GenerateCodesForm action={`${base}&dialog=generate`} closeHref={base} lastResult={actionData?.result} formToken={formToken ?? undefined} />
        </AdminDialog>
      ) : null}
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
