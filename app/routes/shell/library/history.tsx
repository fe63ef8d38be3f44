import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, useLoaderData } from "react-router";
import { FlashMessage } from "~/components/ui/flash-message";
import { Pagination } from "~/components/ui/pagination";
import { userContext } from "~/middleware/guards.server";
import { HISTORY_MESSAGES, historyFormSchema } from "~/schemas/history";
import { clearHistory, listHistory, removeHistoryEntry } from "~/server/reading/history.server";
import { domainErrorOf } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { parsePage } from "~/utils/pagination";
import { formatShanghai } from "~/utils/shanghai-time";
import type { Route } from "./+types/history";

export const meta: Route.MetaFunction = () => [{ title: "阅读记录 - 砚台" }];

/** 阅读记录 (docs/product.md#reading-history, decision 234): the works the reader opened, newest first. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const [history, flash] = await Promise.all([listHistory(user, parsePage(url.searchParams.get("page"))), takeFlash(request, url)]);
  return data({ ...history, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

/** 删除 one entry or 清空 all: POST, redirect back with a notice (no JavaScript needed). */
export async function action({ request, context, url }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: historyFormSchema });
  const back = url.searchParams.get("page") ? `/history?page=${parsePage(url.searchParams.get("page"))}` : "/history";
  if (submission.status !== "success") return data({ error: HISTORY_MESSAGES.unknown }, { status: 400 });
  const form = submission.value;
  try {
    if (form.intent === "clear") {
      const n = await clearHistory(user.id);
      return redirectWithFlash(request, "/history", { kind: "success", text: n > 0 ? HISTORY_MESSAGES.cleared : HISTORY_MESSAGES.empty });
    }
    await removeHistoryEntry(user.id, form.workId);
    return redirectWithFlash(request, back, { kind: "success", text: HISTORY_MESSAGES.removed });
  } catch (error) {
    const known = domainErrorOf(error);
    if (!known) throw error;
    return data({ error: known.message }, { status: known.status });
  }
}

export default function History({ actionData }: Route.ComponentProps) {
  const { entries, total, page, pageCount, notice } = useLoaderData<typeof loader>();
  const error = actionData && "error" in actionData ? actionData.error : null;
  const action = page > 1 ? `/history?page=${page}` : "/history";
  return (
    <section className="history-page" aria-labelledby="history-title">
      <div className="history-head">
        <h1 id="history-title">阅读记录</h1>
        {total > 0 ? (
          <Form method="post" action="/history">
            <input type="hidden" name="intent" value="clear" />
            <button type="submit" className="btn btn-small btn-danger">
              清空
            </button>
          </Form>
        ) : null}
      </div>
      <FlashMessage notice={notice} />
      {error ? (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p className="empty-state">还没有阅读记录。打开一部作品的章节后，它会出现在这里。</p>
      ) : (
        <ol className="history-list">
          {entries.map((entry) => (
            <li key={entry.workId} className="history-entry" data-testid="history-entry">
              <div className="history-text">
                <Link to={`/works/${entry.workId}`} className="history-title">
                  {entry.title}
                </Link>
                <span className="muted">
                  <Link to={`/authors/${entry.authorId}`}>{entry.authorNickname}</Link>
                </span>
                <Link to={entry.href} className="history-chapter">
                  读到第 {entry.chapterOrder} 章 · {entry.chapterTitle}
                </Link>
                <time className="muted" dateTime={entry.readAt}>
                  {formatShanghai(entry.readAt)}
                </time>
              </div>
              <Form method="post" action={action}>
                <input type="hidden" name="intent" value="remove" />
                <input type="hidden" name="workId" value={entry.workId} />
                <button type="submit" className="btn btn-small" aria-label={`从阅读记录中删除《${entry.title}》`}>
                  删除
                </button>
              </Form>
            </li>
          ))}
        </ol>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/history?page=${p}`} window={3} />
    </section>
  );
}
