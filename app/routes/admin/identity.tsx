import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect } from "react-router";
import { ClaimForm, FormErrors, QueryNotice, QueueWaitCells } from "~/components/admin/ui";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { IDENTITY_DOCUMENT_LABELS } from "~/schemas/identity";
import { reviewQueueSchema } from "~/schemas/review";
import { claimNextIdentity, identityQueue } from "~/server/admin/identity-queue.server";
import { readForm } from "~/server/platform/form-data.server";
import { formatNumber, formatWait } from "~/utils/format";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/identity";
import { AdminTable } from "~/components/admin/admin-table";

/**
 * 实名审核 (docs/product.md#author-identity, decision 204): authors' identity submissions,
 * oldest first, masked; 领取下一个 claims the oldest nobody holds and opens it.
 */
export const meta: Route.MetaFunction = () => [{ title: "实名审核 - 管理后台" }];

export async function loader() {
  const queue = await identityQueue();
  const now = Date.now();
  return {
    rows: queue.rows.map((r) => ({ ...r, submittedAt: formatShanghai(r.submittedAt), waited: formatWait(now - r.submittedAt.getTime()) })),
    pending: queue.pending,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: reviewQueueSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const id = await claimNextIdentity(adminActorOf(context));
  if (id === null) return redirect("/admin/identity?notice=identity-empty");
  return redirect(`/admin/identity/${id}?notice=identity-claimed`);
}

export default function IdentityQueue({ loaderData, actionData }: Route.ComponentProps) {
  const { rows, pending } = loaderData;
  return (
    <section className="admin-page">
      <h1>实名审核</h1>
      <QueryNotice />
      <FormErrors errors={actionData ? [actionData.error] : undefined} />
      <p data-testid="identity-summary">待审核 {formatNumber(pending)} 份</p>
      <ClaimForm intent="claim-next" label="领取下一个" primary />
      {rows.length === 0 ? (
        <p className="empty-state">暂无待审核的实名认证</p>
      ) : (
        <AdminTable label="待审核的实名认证" framed head={["作者", "证件", "提交时间", "领取"]}>
          {rows.map((r) => (
            <tr key={r.id} data-testid="identity-row">
              <td className="admin-break">
                <Link to={`/admin/identity/${r.id}`}>{r.author || r.email}</Link>
                <br />
                <small className="admin-muted">{r.email}</small>
              </td>
              <td className="admin-break">
                {IDENTITY_DOCUMENT_LABELS[r.documentType]} · {r.nameMasked} · {r.numberMasked}
              </td>
              <QueueWaitCells submittedAt={r.submittedAt} waited={r.waited} claimedBy={r.claimedBy} />
            </tr>
          ))}
        </AdminTable>
      )}
    </section>
  );
}
