import { Form, Link, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { replyMessages } from "~/components/admin/reply-errors";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { RANKING_REASON_MAX, rankingActionSchema } from "~/schemas/front-page";
import { listRankingRemovals, runRankingAction } from "~/server/admin/front-page.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/rankings";

/**
 * 排行管理 (docs/product.md#front-page): take a work out of every ranking and the home
 * page's computed rows, with a reason (audited), or put it back. `?work=` fills the id.
 */
export const meta: Route.MetaFunction = () => [{ title: "排行管理 - 管理后台" }];

export async function loader({ url }: Route.LoaderArgs) {
  const work = url.searchParams.get("work") ?? "";
  return { removals: await listRankingRemovals(), work: /^\d{1,15}$/.test(work) ? work : "" };
}

export async function action({ request, context }: Route.ActionArgs) {
  return replyToForm(await readForm(request), rankingActionSchema, async (action) => {
    await runRankingAction(adminActorOf(context), action);
    return redirect(`/admin/rankings?notice=${action.intent === "remove" ? "removed" : "saved"}`);
  });
}

export default function Rankings({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const { removals, work } = loaderData;
  return (
    <section className="admin-page">
      <h1>排行管理</h1>
      <p className="hint">移出排行的作品不再出现在排行榜和首页的热门、新书、新完本中，读者仍可搜索和阅读。被下架的作品本来就不会出现在排行中。</p>
      <QueryNotice />
      <FormErrors errors={replyMessages(actionData)} />
      <Form method="post" className="admin-card admin-inline-form">
        <input type="hidden" name="intent" value="remove" />
        <label className="field">
          <span>作品编号</span>
          <input type="text" name="workId" defaultValue={work} inputMode="numeric" required pattern="\d+" maxLength={15} />
        </label>
        <label className="field">
          <span>原因</span>
          <input type="text" name="reason" required maxLength={RANKING_REASON_MAX} />
        </label>
        <SubmitButton className="btn btn-danger" pending={busy}>
          移出排行
        </SubmitButton>
      </Form>
      <h2>已移出排行的作品（{removals.length}）</h2>
      {removals.length === 0 ? <p className="admin-muted">没有被移出排行的作品。</p> : null}
      <ul className="category-list">
        {removals.map((r) => (
          <li key={r.workId} className="admin-card category-row" data-testid="ranking-removal">
            <span>
              <Link to={`/admin/works/${r.workId}`}>
                #{r.workId} 《{r.title}》
              </Link>{" "}
              {r.reason} · {formatShanghai(r.createdAt)}
            </span>
            <Form method="post">
              <input type="hidden" name="intent" value="restore" />
              <input type="hidden" name="workId" value={r.workId} />
              <SubmitButton className="btn" pending={busy} aria-label={`恢复排行《${r.title}》`}>
                恢复排行
              </SubmitButton>
            </Form>
          </li>
        ))}
      </ul>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
