import { Form, Link, useActionData, useLoaderData } from "react-router";
import { asRouteError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { userContext } from "~/middleware/guards.server";
import { handleMyWorksAction } from "./my-works-actions.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { isUnder, safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/delete";
import { FormError } from "~/components/ui/forms";

export const meta: Route.MetaFunction = () => [{ title: "删除作品 - 砚台" }];

/** The confirmation page for deleting without JavaScript. */
export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const work = await getOwnedWork(user.id, Number(params.id)).catch(asRouteError);
  const back = safeRedirectPath(url.searchParams.get("back"), "/my-works", isUnder("/my-works"));
  return { work: { id: work.id, title: work.title, chapterCount: work.chapterCount }, back };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  form.set("intent", "delete");
  form.set("workId", String(params.id));
  return handleMyWorksAction(user.id, form);
}

export default function DeleteWork() {
  const { work, back } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const error = failed && "result" in failed ? Object.values(failed.result.error ?? {}).flat()[0] : undefined;
  return (
    <section className="confirm-page">
      <h1>删除作品</h1>
      <p>
        确定要删除《{work.title}》吗？它的 {work.chapterCount} 个章节会一起删除，删除后无法恢复。
      </p>
      <FormError errors={error} />
      <Form method="post">
        <input type="hidden" name="back" value={back} />
        <button type="submit" className="btn btn-danger">确认删除</button>{" "}
        <Link to={back} className="btn">取消</Link>
      </Form>
    </section>
  );
}
