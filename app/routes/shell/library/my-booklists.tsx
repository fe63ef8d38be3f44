import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link } from "react-router";
import { BooklistCards } from "~/components/booklists/booklist-cards";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormTokenField } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { BOOKLIST_DESCRIPTION_MAX, BOOKLIST_TITLE_MAX, booklistCreateSchema } from "~/schemas/booklists";
import { createBooklist, myBooklists } from "~/server/community/booklists.server";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { formTokenOf, newFormToken, oncePerFormToken } from "~/server/platform/form-tokens.server";
import type { Route } from "./+types/my-booklists";

/**
 * 我的书单 (docs/product.md#booklists, decision 232): the reader's own lists, 新建书单, and the
 * lists they follow.
 */
export const meta: Route.MetaFunction = () => [{ title: "我的书单 - 砚台" }];

/** 新建书单 creates once per one-time token (decision 077; tests/integration/creating-forms.test.ts). */
export const handle = { creates: ["booklist"] };

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [lists, flash] = await Promise.all([myBooklists(user), takeFlash(request, url)]);
  return data({ ...lists, formToken: newFormToken(), notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

type Answer = { error: string; field?: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: booklistCreateSchema });
  if (submission.status !== "success") return data<Answer>({ error: "未知操作" }, { status: 400 });
  const { title, description } = submission.value;
  return replyOnDomainError(
    async () => {
      const made = await oncePerFormToken(
        user.id,
        "booklist",
        formTokenOf(form),
        (record) => createBooklist(user, { title, description }, record),
        async (id) => ({ id: Number(id) }),
      );
      return redirectWithFlash(request, `/booklists/${made.id}`, { kind: "success", text: "书单已创建。在作品页点“加入书单”，就能把作品放进来。" });
    },
    (error): Answer => ({ error: error.message, field: error.field }),
  );
}

export default function MyBooklists({ loaderData, actionData }: Route.ComponentProps) {
  const { mine, followed, limit, formToken, notice } = loaderData;
  const answer = actionData as Answer | undefined;
  const errorOf = (field: string) => (answer && (answer.field === field || (!answer.field && field === "title")) ? answer.error : undefined);
  return (
    <section className="my-booklists" aria-labelledby="my-booklists-title">
      <FlashMessage notice={notice} />
      <div className="booklists-head">
        <h1 id="my-booklists-title">我的书单</h1>
        <Link to="/booklists">浏览热门书单</Link>
      </div>
      {mine.length === 0 ? <p className="empty-state">你还没有书单。</p> : <BooklistCards lists={mine} showOwner={false} />}
      <details className="booklist-create" open={Boolean(answer) || mine.length === 0}>
        <summary className="btn">新建书单</summary>
        {mine.length >= limit ? (
          <p className="muted">每人最多 {limit} 个书单，可以先删除不用的书单。</p>
        ) : (
          <Form method="post" className="stack-form" aria-label="新建书单">
            <input type="hidden" name="intent" value="create" />
            <FormTokenField token={formToken} />
            <label className="field">
              <span>书单名称</span>
              <input name="title" type="text" maxLength={BOOKLIST_TITLE_MAX * 2} aria-describedby="booklist-title-error" placeholder="如：适合通宵的仙侠" />
              <span className="muted">最多 {BOOKLIST_TITLE_MAX} 字</span>
              <FieldError errors={errorOf("title")} id="booklist-title-error" alert />
            </label>
            <label className="field">
              <span>书单简介（可不填）</span>
              <textarea name="description" rows={3} maxLength={BOOKLIST_DESCRIPTION_MAX * 2} aria-describedby="booklist-description-error" />
              <span className="muted">最多 {BOOKLIST_DESCRIPTION_MAX} 字</span>
              <FieldError errors={errorOf("description")} id="booklist-description-error" alert />
            </label>
            <div className="form-actions">
              <SubmitButton className="btn btn-primary" pendingLabel="创建中...">
                创建书单
              </SubmitButton>
            </div>
          </Form>
        )}
      </details>
      <h2>我关注的书单</h2>
      {followed.length === 0 ? <p className="muted">还没有关注的书单。</p> : <BooklistCards lists={followed} headingLevel={3} />}
    </section>
  );
}
