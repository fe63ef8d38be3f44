import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError, FormError } from "~/components/ui/forms";
import { SubmitButton } from "~/components/ui/submit-button";
import { userContext } from "~/middleware/guards.server";
import { BOOKLIST_DESCRIPTION_MAX, BOOKLIST_NOTE_MAX, BOOKLIST_TITLE_MAX, booklistEditSchema } from "~/schemas/booklists";
import {
  deleteBooklist,
  getBooklistForEdit,
  moveEntry,
  parseBooklistId,
  removeEntry,
  setEntryNote,
  updateBooklist,
} from "~/server/community/booklists.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import type { Route } from "./+types/booklist-edit";

/**
 * 管理书单 (docs/product.md#booklists, decision 232): the owner renames the list, rewrites its
 * description and the entries' notes, moves and removes entries, deletes the list. Another
 * reader's list answers 403, a missing one 404. Every form a plain POST answered here.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `管理书单 - ${data.title} - 砚台` : "管理书单 - 砚台" }];

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [list, flash] = await Promise.all([orRouteError(() => getBooklistForEdit(user, parseBooklistId(params.id))), takeFlash(request, url)]);
  return data({ ...list, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

type Answer = { error: string; field?: string; intent: string; work?: number };

const DONE: Record<string, string> = { details: "书单信息已保存", note: "推荐语已保存", remove: "已从书单移除" };

export async function action({ request, params, url, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: booklistEditSchema });
  if (submission.status !== "success") return data<Answer>({ error: "未知操作", intent: "" }, { status: 400 });
  const { intent, title, description, note, confirm } = submission.value;
  const listId = parseBooklistId(params.id);
  const workId = Number(submission.value.work);
  const back = (notice?: string) => (notice ? redirectWithFlash(request, url.pathname, { kind: "success", text: notice }) : redirect(`${url.pathname}#w-${workId}`));
  return replyOnDomainError(
    async () => {
      switch (intent) {
        case "details":
          await updateBooklist(user, listId, { title, description });
          return back(DONE.details);
        case "note":
          await setEntryNote(user, listId, workId, note);
          return back(DONE.note);
        case "remove":
          await removeEntry(user, listId, workId);
          return back(DONE.remove);
        case "up":
        case "down":
        case "top":
          await moveEntry(user, listId, workId, intent);
          return back();
        case "delete": {
          const deleted = await deleteBooklist(user, listId, confirm);
          return redirectWithFlash(request, "/my-booklists", { kind: "success", text: `书单《${deleted}》已删除` });
        }
      }
    },
    (error): Answer => ({ error: error.message, field: error.field, intent, work: Number.isSafeInteger(workId) ? workId : undefined }),
  );
}

export default function BooklistEdit({ loaderData, actionData }: Route.ComponentProps) {
  const { id, title, description, entries, notice } = loaderData;
  const answer = actionData as Answer | undefined;
  const errorFor = (intent: string, work?: number) => (answer && answer.intent === intent && (work === undefined || answer.work === work) ? answer.error : undefined);
  return (
    <section className="booklist-edit" aria-labelledby="booklist-edit-title">
      <FlashMessage notice={notice} />
      <p className="reader-breadcrumb">
        <Link to="/my-booklists">我的书单</Link> / <Link to={`/booklists/${id}`}>{title}</Link>
      </p>
      <h1 id="booklist-edit-title">管理书单</h1>
      <Form method="post" className="stack-form" aria-label="书单信息">
        <input type="hidden" name="intent" value="details" />
        <label className="field">
          <span>书单名称</span>
          <input name="title" type="text" defaultValue={title} maxLength={BOOKLIST_TITLE_MAX * 2} aria-describedby="booklist-details-error" />
        </label>
        <label className="field">
          <span>书单简介</span>
          <textarea name="description" rows={3} defaultValue={description} maxLength={BOOKLIST_DESCRIPTION_MAX * 2} aria-describedby="booklist-details-error" />
        </label>
        <FieldError errors={errorFor("details")} id="booklist-details-error" alert as="p" />
        <div className="form-actions">
          <SubmitButton className="btn btn-primary">保存</SubmitButton>
        </div>
      </Form>

      <h2>作品（{entries.length}）</h2>
      {entries.length === 0 ? (
        <p className="empty-state">
          书单里还没有作品。在作品页点“加入书单”，就能把作品放进来。
        </p>
      ) : (
        <ol className="booklist-edit-entries">
          {entries.map((entry, i) => (
            <li key={entry.workId} id={`w-${entry.workId}`} className="booklist-edit-entry">
              <p className="booklist-edit-work">
                <Link to={`/works/${entry.workId}`}>{entry.title}</Link> <span className="muted">{entry.authorNickname}</span>
                {entry.listed ? null : <span className="badge">读者看不到</span>}
              </p>
              <Form method="post" className="booklist-note-form" aria-label={`《${entry.title}》的推荐语`}>
                <input type="hidden" name="intent" value="note" />
                <input type="hidden" name="work" value={entry.workId} />
                <label className="field">
                  <span>推荐语</span>
                  <textarea name="note" rows={2} defaultValue={entry.note} maxLength={BOOKLIST_NOTE_MAX * 2} aria-describedby={`note-error-${entry.workId}`} />
                </label>
                <FieldError errors={errorFor("note", entry.workId)} id={`note-error-${entry.workId}`} alert as="p" />
                <button type="submit" className="btn btn-small">
                  保存推荐语
                </button>
              </Form>
              <Form method="post" className="booklist-entry-actions" aria-label={`调整《${entry.title}》`}>
                <input type="hidden" name="work" value={entry.workId} />
                <button type="submit" name="intent" value="top" className="btn btn-small" disabled={i === 0}>
                  置顶
                </button>
                <button type="submit" name="intent" value="up" className="btn btn-small" disabled={i === 0}>
                  上移
                </button>
                <button type="submit" name="intent" value="down" className="btn btn-small" disabled={i === entries.length - 1}>
                  下移
                </button>
                <button type="submit" name="intent" value="remove" className="btn btn-small btn-danger">
                  移除
                </button>
              </Form>
              <FormError errors={["up", "down", "top", "remove"].some((k) => errorFor(k, entry.workId)) ? answer?.error : undefined} />
            </li>
          ))}
        </ol>
      )}

      <h2>删除书单</h2>
      <Form method="post" className="stack-form" aria-label="删除书单">
        <input type="hidden" name="intent" value="delete" />
        <label className="checkbox-row">
          <input type="checkbox" name="confirm" value="1" aria-describedby="booklist-delete-error" />
          <span>确认删除（书单里的作品和推荐语会一起删除，关注者也将看不到它）</span>
        </label>
        <FieldError errors={errorFor("delete")} id="booklist-delete-error" alert as="p" />
        <div className="form-actions">
          <button type="submit" className="btn btn-danger">
            删除书单
          </button>
        </div>
      </Form>
    </section>
  );
}
