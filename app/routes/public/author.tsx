import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, useLoaderData } from "react-router";
import { FollowAuthorButton } from "~/components/authors/follow-author-button";
import { BooklistCards } from "~/components/booklists/booklist-cards";
import { BlockButton } from "~/components/blocks/block-button";
import { WorkCard } from "~/components/work-card";
import { FieldError } from "~/components/ui/forms";
import { Pagination } from "~/components/ui/pagination";
import { authorFollowSchema } from "~/schemas/authors";
import { getAuthorPage, setAuthorFollow } from "~/server/community/author-follows.server";
import { getSessionUser, loginRedirectUrl } from "~/server/identity/session.server";
import { orRouteError, replyOnDomainError } from "~/server/platform/errors.server";
import { readForm } from "~/server/platform/form-data.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { parsePage } from "~/utils/pagination";
import { shanghaiDate } from "~/utils/shanghai-time";
import type { Route } from "./+types/author";

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

/**
 * `/authors/:id` (docs/product.md#author-pages, decision 230): an author's nickname, avatar,
 * follower count and the works readers may see (the catalog's `/works?author=` listing, the
 * same filters), and 关注作者 / 已关注. Public; following needs a session.
 */
export const meta: Route.MetaFunction = ({ data }) => [{ title: data ? `${data.author.nickname}的作者主页 - 砚台` : "作者主页 - 砚台" }];

export async function loader({ request, params, url }: Route.LoaderArgs) {
  const viewer = await getSessionUser(request);
  const [page, defaultCoverUrl] = await Promise.all([
    orRouteError(() => getAuthorPage(params.id, viewer, parsePage(url.searchParams.get("page")))),
    getDisplayConfigValue("default_cover_url"),
  ]);
  return { ...page, signedIn: viewer !== null, defaultCoverUrl };
}

export async function action({ request, params, url }: Route.ActionArgs) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const submission = parseWithZod(await readForm(request), { schema: authorFollowSchema });
  if (submission.status !== "success") return data({ error: "未知操作" }, { status: 400 });
  const { on, enhanced } = submission.value;
  return replyOnDomainError(
    async () => {
      const now = await setAuthorFollow(user, params.id, on);
      if (enhanced) return data({ on: now });
      return redirect(`/authors/${params.id}`);
    },
    (error) => ({ error: error.message }),
  );
}

export default function AuthorPage({ actionData }: Route.ComponentProps) {
  const { author, followers, following, blocked, isSelf, works, booklists, signedIn, defaultCoverUrl } = useLoaderData<typeof loader>();
  const here = `/authors/${author.id}`;
  const answer = actionData as { error?: string } | undefined;
  return (
    <section className="author-page" aria-labelledby="author-title">
      <header className="author-head">
        {author.avatarUrl ? (
          <img src={author.avatarUrl} alt="" className="avatar author-avatar" width={64} height={64} />
        ) : (
          <span className="avatar avatar-letter author-avatar" aria-hidden="true">
            {Array.from(author.nickname)[0] ?? "作"}
          </span>
        )}
        <div className="author-facts">
          <h1 id="author-title">{author.nickname}</h1>
          <p className="muted">
            <span data-testid="author-followers">{followers} 位关注者</span> · 加入于 {shanghaiDate(author.joinedAt)}
          </p>
        </div>
        {isSelf ? <p className="muted">这是你的作者主页</p> : <FollowAuthorButton authorId={author.id} following={following} signedIn={signedIn} />}
        {signedIn && !isSelf && !blocked ? (
          <BlockButton kind="author" value={author.id} back={here}>
            屏蔽作者
          </BlockButton>
        ) : null}
      </header>
      <FieldError errors={answer?.error} alert as="p" />
      {blocked ? (
        // decision 233: the page still opens; the works are left out like everywhere else.
        <div className="notice notice-error blocked-notice" role="status" data-testid="author-blocked">
          <span>你已屏蔽这位作者，其作品不会出现在你看到的列表中。</span>
          <BlockButton kind="author" value={author.id} back={here} blocked>
            取消屏蔽
          </BlockButton>
        </div>
      ) : null}
      <h2>公开作品{works.total > 0 ? `（${works.totalCapped ? `${works.total}+` : works.total}）` : ""}</h2>
      {works.works.length === 0 ? (
        <p className="empty-state">暂无公开作品</p>
      ) : (
        <div className="work-grid">
          {works.works.map((work) => (
            <WorkCard key={work.id} work={work} defaultCoverUrl={defaultCoverUrl} headingLevel={3} />
          ))}
        </div>
      )}
      <Pagination page={works.page} pageCount={works.pageCount} hrefFor={(p) => `/authors/${author.id}?page=${p}`} />
      {booklists.length > 0 ? (
        <>
          <h2>{isSelf ? "我的书单" : "TA的书单"}</h2>
          <BooklistCards lists={booklists} headingLevel={3} showOwner={false} />
        </>
      ) : null}
    </section>
  );
}
