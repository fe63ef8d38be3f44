import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link } from "react-router";
import { FieldError, FormError, FormTokenField } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { BOOKLIST_NOTE_MAX, BOOKLIST_TITLE_MAX, booklistAddSchema } from "~/schemas/booklists";
import { addToBooklist, addToBooklistChoices, booklistTitle } from "~/server/community/booklists.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import type { Route } from "./+types/add-to-booklist";

/**
 * 加入书单 (docs/product.md#booklists, decision 232): from the work page, the reader picks one
 * of their lists or names a new one, writes a note, and lands on the list.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `加入书单 - ${data.work.title} - 砚台` : "加入书单 - 砚台" }];

/** 加入书单 (a new list with it, too) creates once per one-time token (decision 077). */
export const handle = { creates: ["booklist"] };

export async function loader({ params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const choices = await orRouteError(() => addToBooklistChoices(user, Number(params.id)));
  return { ...choices, formToken: newFormToken() };
}

type Answer = { error: string; field?: string; list?: string; title?: string; note?: string };

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: booklistAddSchema });
  if (submission.status !== "success") return data<Answer>({ error: "未知操作" }, { status: 400 });
  const { list, title, note } = submission.value;
  const sent = { list: typeof list === "string" ? list : undefined, title: typeof title === "string" ? title : undefined, note: typeof note === "string" ? note : undefined };
  return replyOnDomainError(
    async () => {
      const added = await oncePerFormToken(
        user.id,
        "booklist",
        formTokenOf(form),
        (record) => addToBooklist(user, Number(params.id), { list, title, note }, record),
        async (id) => ({ listId: Number(id), title: (await booklistTitle(user, Number(id))) ?? "", workTitle: "" }),
      );
      return redirectWithFlash(request, `/booklists/${added.listId}`, { kind: "success", text: `已加入书单《${added.title}》` });
    },
    (error): Answer => ({ error: error.message, field: error.field, ...sent }),
  );
}

export default function AddToBooklist({ loaderData, actionData }: Route.ComponentProps) {
  const { work, lists, canCreate, formToken } = loaderData;
  const answer = actionData as Answer | undefined;
  const firstFree = lists.find((l) => !l.has);
  const chosen = answer?.list ?? (firstFree ? String(firstFree.id) : "new");
  const errorOf = (field: string) => (answer?.field === field ? answer.error : undefined);
  return (
    <section className="add-to-booklist" aria-labelledby="add-to-booklist-title">
      <p className="reader-breadcrumb">
        <Link to={`/works/${work.id}`}>{work.title}</Link>
      </p>
      <h1 id="add-to-booklist-title">加入书单</h1>
      <p className="muted">
        把《{work.title}》加入你的书单，可以写一句推荐语。书单是公开的，其他读者可以看到并关注。
      </p>
      <Form method="post" className="stack-form" aria-label="加入书单">
        <FormTokenField token={formToken} />
        <fieldset className="booklist-choices" aria-describedby="booklist-list-error">
          <legend>选择书单</legend>
          {lists.map((l) => (
            <label key={l.id} className="radio-row">
              <input type="radio" name="list" value={l.id} defaultChecked={chosen === String(l.id)} disabled={l.has} />
              <span>
                {l.title}
                {l.has ? <span className="muted">（已收录）</span> : null}
              </span>
            </label>
          ))}
          {canCreate ? (
            <label className="radio-row">
              <input type="radio" name="list" value="new" defaultChecked={chosen === "new"} />
              <span>新建书单</span>
            </label>
          ) : (
            <p className="muted">你的书单已达上限，不能再新建。</p>
          )}
          <FieldError errors={errorOf("list")} id="booklist-list-error" alert />
        </fieldset>
        {canCreate ? (
          <label className="field">
            <span>新书单名称（选“新建书单”时填写）</span>
            <input name="title" type="text" maxLength={BOOKLIST_TITLE_MAX * 2} defaultValue={answer?.title} aria-describedby="booklist-title-error" />
            <FieldError errors={errorOf("title")} id="booklist-title-error" alert />
          </label>
        ) : null}
        <label className="field">
          <span>推荐语（可不填）</span>
          <textarea name="note" rows={3} maxLength={BOOKLIST_NOTE_MAX * 2} defaultValue={answer?.note} aria-describedby="booklist-note-error" />
          <span className="muted">最多 {BOOKLIST_NOTE_MAX} 字</span>
          <FieldError errors={errorOf("note")} id="booklist-note-error" alert />
        </label>
        <FormError errors={answer && !answer.field ? answer.error : undefined} />
        <div className="form-actions">
          <SubmitButton className="btn btn-primary" pendingLabel="加入中...">
            加入书单
          </SubmitButton>
          <Link className="btn" to={`/works/${work.id}`}>
            取消
          </Link>
        </div>
      </Form>
    </section>
  );
}
