import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link } from "react-router";
import { userContext } from "~/middleware/guards.server";
import { markFormSchema } from "~/schemas/reader-marks";
import { MARK_MESSAGES, MARK_NOTE_MAX } from "~/schemas/reader-mark-rules";
import { asRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { addMark, markablePlace, markHref } from "~/server/reading/marks.server";
import { safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/marks";

/**
 * 书签 and 划线 (decision 241). GET `/works/:id/marks?chapterId=<id>&p=<paragraph>`: the page a
 * paragraph's 书签 link opens (no JavaScript needed): the paragraph quoted, 加书签 and 划线整段,
 * each with a note. POST: add a mark (the reader page's selection popup posts its offsets
 * and text through a fetcher); a success goes back (`back`) with a notice, or is
 * the fetcher's data; a refusal is this page with the message and its status.
 */
export const meta: Route.MetaFunction = () => [{ title: "书签和划线 - 砚台" }];

interface MarkAnswer {
  ok?: boolean;
  message?: string;
  error?: string;
  field?: string | null;
  back?: string;
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const chapterId = Number(url.searchParams.get("chapterId"));
  const paragraph = Number(url.searchParams.get("p"));
  try {
    const place = await markablePlace(user, workId, chapterId, paragraph);
    return { workId, ...place, back: markHref(workId, place.chapter.order, paragraph) };
  } catch (error) {
    return asRouteError(error);
  }
}

/** Only back to this work's reader. */
const backOf = (value: string, workId: number) => safeRedirectPath(value, `/works/${workId}`, (path) => path === `/works/${workId}`);

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const workId = Number(params.id);
  const submission = parseWithZod(await readForm(request), { schema: markFormSchema });
  if (submission.status !== "success") return data<MarkAnswer>({ error: MARK_MESSAGES.unknown, back: `/works/${workId}` }, { status: 400 });
  const form = submission.value;
  const back = backOf(form.back, workId);
  return replyOnDomainError(
    async () => {
      const selection = form.start === undefined || form.end === undefined ? null : { start: Number(form.start), end: Number(form.end), quote: form.quote };
      await addMark(user, { workId, chapterId: form.chapterId, kind: form.intent, paragraph: form.paragraph, selection, note: form.note });
      const message = form.intent === "bookmark" ? MARK_MESSAGES.bookmarked : MARK_MESSAGES.highlighted;
      if (form.enhanced) return data<MarkAnswer>({ ok: true, message });
      return redirectWithFlash(request, back, { kind: "success", text: message });
    },
    (error): MarkAnswer => ({ error: error.message, field: error.field ?? null, back }),
  );
}

export default function MarkParagraph({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as MarkAnswer | undefined;
  const { workId, chapter, paragraph, text, back } = loaderData;
  const action = `/works/${workId}/marks?chapterId=${chapter.id}&p=${paragraph}`;
  return (
    <section className="settings-page mark-page" aria-labelledby="mark-title">
      <h1 id="mark-title">书签和划线</h1>
      <p className="muted">
        {chapter.title} · 第 {paragraph + 1} 段
      </p>
      <blockquote className="mark-quote">{text}</blockquote>
      {answer?.error ? (
        <p className="notice notice-error" role="alert">
          {answer.error}
        </p>
      ) : null}
      {(["bookmark", "highlight"] as const).map((intent) => (
        <Form key={intent} method="post" action={action} className="mark-form">
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="chapterId" value={chapter.id} />
          <input type="hidden" name="paragraph" value={paragraph} />
          <input type="hidden" name="back" value={back} />
          <label htmlFor={`mark-note-${intent}`}>{intent === "bookmark" ? "书签笔记（可不填）" : "划线笔记（可不填）"}</label>
          <textarea
            id={`mark-note-${intent}`}
            name="note"
            rows={2}
            maxLength={MARK_NOTE_MAX}
            aria-invalid={answer?.field === "note" || undefined}
          />
          <button type="submit" className="btn btn-primary">
            {intent === "bookmark" ? "加书签" : "划线整段"}
          </button>
        </Form>
      ))}
      <p>
        <Link to={back}>返回章节</Link> · <Link to="/bookmarks">我的书签和划线</Link>
      </p>
    </section>
  );
}
