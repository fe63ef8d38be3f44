import { Form, redirect } from "react-router";
import { FormErrors, QueryNotice } from "~/components/admin/ui";
import { CATEGORY_NAME_MAX } from "~/schemas/category-field";
import { categoryActionSchema } from "~/schemas/categories";
import { listCategoriesForAdmin, runCategoryAction } from "~/server/catalog/categories.server";
import { readForm, replyToForm } from "~/server/platform/form-data.server";
import { adminActorOf } from "~/middleware/admin-actor.server";
import type { Route } from "./+types/categories";
import { SubmitButton } from "~/components/ui/submit-button";
import { useIsPending } from "~/components/ui/use-is-pending";

export const meta: Route.MetaFunction = () => [{ title: "作品分类 - 管理后台" }];

export async function loader() {
  return { categories: await listCategoriesForAdmin() };
}

/** Add, rename, delete, move up or down (docs/decisions/121); each a plain form. */
export async function action({ request, context }: Route.ActionArgs) {
  return replyToForm(await readForm(request), categoryActionSchema, async (action) => {
    await runCategoryAction(adminActorOf(context), action);
    return redirect(`/admin/categories?notice=${action.intent === "delete" ? "deleted" : "saved"}`);
  });
}

export default function Categories({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useIsPending();
  const errors = actionData && "error" in actionData && actionData.error ? Object.values(actionData.error).flat().filter(Boolean) as string[] : [];
  return (
    <section className="admin-page">
      <h1>作品分类</h1>
      <p className="hint">读者按分类筛选作品，作者发布新作品时选择分类。删除分类后，其中的作品变为未分类。</p>
      <QueryNotice />
      <FormErrors errors={errors} />
      <Form method="post" className="admin-card admin-inline-form">
        <input type="hidden" name="intent" value="add" />
        <label className="field">
          <span>新分类</span>
          <input type="text" name="name" required maxLength={CATEGORY_NAME_MAX} placeholder="如：武侠" />
        </label>
        <SubmitButton className="btn btn-primary" pending={busy}>
          添加
        </SubmitButton>
      </Form>
      <ol className="category-list" aria-label="分类列表">
        {loaderData.categories.map((c, i) => (
          <li key={c.id} className="admin-card category-row" data-testid="category-row">
            <Form method="post" className="category-row">
              <input type="hidden" name="intent" value="rename" />
              <input type="hidden" name="id" value={c.id} />
              <label>
                <span className="sr-only">分类名称</span>
                <input type="text" name="name" defaultValue={c.name} key={c.name} required maxLength={CATEGORY_NAME_MAX} />
              </label>
              <SubmitButton className="btn" pending={busy}>
                保存
              </SubmitButton>
            </Form>
            <span className="muted">{c.works} 部作品</span>
            <Form method="post">
              <input type="hidden" name="id" value={c.id} />
              <button type="submit" name="intent" value="up" className="btn-link" disabled={busy || i === 0} aria-label={`上移${c.name}`}>
                上移
              </button>
              <button
                type="submit"
                name="intent"
                value="down"
                className="btn-link"
                disabled={busy || i === loaderData.categories.length - 1}
                aria-label={`下移${c.name}`}
              >
                下移
              </button>
              <SubmitButton name="intent" value="delete" className="btn-link admin-danger-link" aria-label={`删除${c.name}`} pending={busy}>
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
