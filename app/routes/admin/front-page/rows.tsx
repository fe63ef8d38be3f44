import { Form, Link, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { replyMessages } from "~/components/admin/reply-errors";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";
import { adminActorOf } from "~/middleware/admin-actor.server";
import { CURATED_ROW_NAME_MAX, curatedRowActionSchema } from "~/schemas/front-page";
import { listCuratedRowsForAdmin, runCuratedRowAction } from "~/server/admin/front-page.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import type { Route } from "./+types/rows";

/**
 * 编辑推荐 (docs/product.md#front-page): the home page's curated rows, in order. Create,
 * rename, move up or down, delete; each row's works on its own page. Plain forms.
 */
export const meta: Route.MetaFunction = () => [{ title: "编辑推荐 - 管理后台" }];

/** 新建推荐位 carries a one-time token (decision 172): posted twice, it makes one row. */
export const handle = { creates: ["curated-row"] };

export async function loader() {
  return { rows: await listCuratedRowsForAdmin(), formToken: newFormToken() };
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request);
  return replyToForm(form, curatedRowActionSchema, async (action) => {
    const actor = adminActorOf(context);
    if (action.intent === "create") {
      const id = await oncePerFormToken(
        { adminId: actor.admin.id },
        "curated-row",
        formTokenOf(form),
        (record) => runCuratedRowAction(actor, action, record),
        async (first) => Number(first),
      );
      return redirect(`/admin/front-page/${id}?notice=saved`);
    }
    await runCuratedRowAction(actor, action);
    return redirect(`/admin/front-page?notice=${action.intent === "delete" ? "deleted" : "saved"}`);
  });
}

export default function CuratedRows({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const { rows } = loaderData;
  return (
    <section className="admin-page">
      <h1>编辑推荐</h1>
      <p className="hint">推荐位显示在首页的热门、新书等榜单之上，按这里的顺序排列。下架、未公开或读者设置不可见的作品不会显示。</p>
      <QueryNotice />
      <FormErrors errors={replyMessages(actionData)} />
      <Form method="post" className="admin-card admin-inline-form">
        <input type="hidden" name="intent" value="create" />
        <input type="hidden" name="formToken" value={loaderData.formToken} />
        <label className="field">
          <span>新推荐位名称</span>
          <input type="text" name="name" required maxLength={CURATED_ROW_NAME_MAX} placeholder="如：编辑推荐" />
        </label>
        <SubmitButton className="btn btn-primary" pending={busy}>
          新建推荐位
        </SubmitButton>
      </Form>
      {rows.length === 0 ? <p className="admin-muted">还没有推荐位。</p> : null}
      <ol className="category-list" aria-label="推荐位列表">
        {rows.map((row, i) => (
          <li key={row.id} className="admin-card category-row" data-testid="curated-row-admin">
            <Form method="post" className="category-row">
              <input type="hidden" name="intent" value="rename" />
              <input type="hidden" name="id" value={row.id} />
              <label>
                <span className="sr-only">推荐位名称</span>
                <input type="text" name="name" defaultValue={row.name} key={row.name} required maxLength={CURATED_ROW_NAME_MAX} />
              </label>
              <SubmitButton className="btn" pending={busy}>
                改名
              </SubmitButton>
            </Form>
            <Link to={`/admin/front-page/${row.id}`}>管理作品（{row.works}）</Link>
            <Form method="post">
              <input type="hidden" name="id" value={row.id} />
              <button type="submit" name="intent" value="up" className="btn-link" disabled={busy || i === 0} aria-label={`上移${row.name}`}>
                上移
              </button>
              <button type="submit" name="intent" value="down" className="btn-link" disabled={busy || i === rows.length - 1} aria-label={`下移${row.name}`}>
                下移
              </button>
              <SubmitButton name="intent" value="delete" className="btn-link admin-danger-link" aria-label={`删除${row.name}`} pending={busy}>
                删除
              </SubmitButton>
            </Form>
          </li>
        ))}
      </ol>
    </section>
  );
}

export { AdminErrorBox as ErrorBoundary } from "~/components/admin/ui";
