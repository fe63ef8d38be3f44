import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect, useLoaderData } from "react-router";
import { FollowButton } from "~/components/ui/follow-button";
import { WorkCard } from "~/components/work-card";
import { FlashMessage } from "~/components/ui/flash-message";
import { FieldError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { AppLink } from "~/components/ui/app-link";
import { authorWorksHref } from "~/utils/hrefs";
import { booklistFollowSchema } from "~/schemas/booklists";
import { getBooklistPage, parseBooklistId, setBooklistFollow } from "~/server/community/booklists.server";
import { getSessionUser, loginRedirectUrl } from "~/server/identity/session.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import { shanghaiDate } from "~/utils/shanghai-time";
import type { Route } from "./+types/booklist";

/**
 * `/booklists/:id` (docs/product.md#booklists, decision 232): a 书单's title, description,
 * owner and followers, and its works this viewer may see, each with the owner's note, in
 * the owner's order; 关注书单 (a session needed). The owner gets a link to 管理书单.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `${data.list.title} - 书单 - 砚台` : "书单 - 砚台" }];

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

export async function loader({ request, params, url }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  const [page, defaultCoverUrl, flash] = await Promise.all([
    orRouteError(() => getBooklistPage(parseBooklistId(params.id), viewer, parsePage(url.searchParams.get("page")))),
    getDisplayConfigValue("default_cover_url"),
    takeFlash(request, url),
  ]);
  return data({ ...page, signedIn: viewer !== null, defaultCoverUrl, notice: flash.notice }, flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined);
}

export async function action({ request, params, url }: Route.ActionArgs) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const submission = parseWithZod(await readForm(request), { schema: booklistFollowSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { on, enhanced } = submission.value;
  return replyOnDomainError(
    async () => {
      const now = await setBooklistFollow(user, parseBooklistId(params.id), on);
      if (enhanced) return data({ on: now });
      return redirect(`/booklists/${params.id}`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function BooklistPage({ actionData }: Route.ComponentProps) {
  const { list, entries, isOwner, following, hiddenCount, page, pageCount, signedIn, defaultCoverUrl, notice } = useLoaderData<typeof loader>();
  const answer = actionData as { error?: string } | undefined;
  return (
    <section className="booklist-page" aria-labelledby="booklist-title">
      <FlashMessage notice={notice} />
      <p className="reader-breadcrumb">
        <Link to="/booklists">书单</Link>
      </p>
      <header className="booklist-head">
        <div className="booklist-facts">
          <h1 id="booklist-title">{list.title}</h1>
          <p className="muted">
            <AppLink to={authorWorksHref(list.owner.id)}>{list.owner.nickname}</AppLink> 创建于 {shanghaiDate(list.createdAt)} ·{" "}
            <span data-testid="booklist-works">{list.works} 部作品</span> · <span data-testid="booklist-followers">{list.followers} 人关注</span>
          </p>
        </div>
        {isOwner ? (
          <Link className="btn" to={`/booklists/${list.id}/edit`}>
            管理书单
          </Link>
        ) : (
          <FollowButton action={`/booklists/${list.id}`} following={following} signedIn={signedIn} label="关注书单" className="follow-author-button" />
        )}
      </header>
      <FieldError errors={answer?.error} alert as="p" />
      {list.description ? <p className="booklist-description">{list.description}</p> : null}
      {isOwner && hiddenCount > 0 ? (
        <p className="notice" role="note">
          有 {hiddenCount} 部作品已下架、设为私密，或不在你的显示设置内，读者看不到它们。
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p className="empty-state">这个书单里还没有可以显示的作品。</p>
      ) : (
        <ol className="booklist-entries">
          {entries.map((entry) => (
            <li key={entry.work.id} className="booklist-entry" data-testid="booklist-entry">
              <WorkCard work={entry.work} defaultCoverUrl={defaultCoverUrl} headingLevel={2} />
              {entry.note ? (
                <p className="booklist-note">
                  <span className="booklist-note-label">推荐语</span>
                  {entry.note}
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <Pagination page={page} pageCount={pageCount} hrefFor={(p) => `/booklists/${list.id}?page=${p}`} />
    </section>
  );
}
