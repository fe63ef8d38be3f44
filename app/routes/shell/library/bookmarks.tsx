import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, useLoaderData } from "react-router";
import { MarkList } from "~/components/reader/mark-list";
import { FlashMessage } from "~/components/ui/flash-message";
import { Pagination } from "~/components/ui/pagination";
import { userContext } from "~/middleware/guards.server";
import { markDeleteSchema } from "~/schemas/reader-marks";
import { MARK_MESSAGES } from "~/schemas/reader-mark-rules";
import { replyOnDomainError } from "~/server/platform/errors.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { listMarks, removeMark } from "~/server/reading/marks.server";
import { parsePage } from "~/utils/pagination";
import { safeRedirectPath } from "~/utils/redirect";
import type { Route } from "./+types/bookmarks";

export const meta: Route.MetaFunction = () => [{ title: "书签和划线 - 砚台" }];

/** `?work=<id>`: one work's marks. */
function workOf(url: URL): number | undefined {
  const n = Number(url.searchParams.get("work"));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** 书签和划线 (decision 241): all the reader's marks, newest first, or one work's; each removable. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  const workId = workOf(url);
  const [list, flash] = await Promise.all([listMarks(user, parsePage(url.searchParams.get("page")), workId), takeFlash(request, url)]);
  const here = `/bookmarks${url.search}`;
  return data({ ...list, workId: workId ?? null, here, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

/** 删除 one mark (this list's and the work page's forms post here), then back with a notice. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = context.get(userContext);
  const submission = parseWithZod(await readForm(request), { schema: markDeleteSchema });
  if (submission.status !== "success") return data({ error: MARK_MESSAGES.unknown }, { status: 400 });
  const { id, back } = submission.value;
  const to = safeRedirectPath(back, "/bookmarks", (path) => path === "/bookmarks" || /^\/works\/\d+$/.test(path));
  return replyOnDomainError(
    async () => {
      await removeMark(user.id, id);
      return redirectWithFlash(request, to, { kind: "success", text: MARK_MESSAGES.removed });
    },
    (error) => ({ error: error.message }),
  );
}

export default function Bookmarks({ actionData }: Route.ComponentProps) {
  const { marks, total, page, pageCount, workId, here, notice } = useLoaderData<typeof loader>();
  const error = actionData && "error" in actionData ? actionData.error : null;
  const hrefFor = (p: number) => `/bookmarks?${workId ? `work=${workId}&` : ""}page=${p}`;
  return (
    <section className="history-page" aria-labelledby="marks-title">
      <h1 id="marks-title">书签和划线</h1>
      {workId ? (
        <p>
          <Link to="/bookmarks">查看全部作品的书签和划线</Link>
        </p>
      ) : null}
      <FlashMessage notice={notice} />
      {error ? (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {total === 0 ? (
        <p className="empty-state">还没有书签和划线。阅读时选中一段文字即可划线或加书签，也可以点段落旁的书签按钮。</p>
      ) : (
        <MarkList marks={marks} back={here} showWork={!workId} />
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={hrefFor} window={3} />
    </section>
  );
}
