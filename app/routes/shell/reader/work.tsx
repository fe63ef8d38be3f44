import { SHARED_PAGE } from "~/server/platform/shared-cache.server";
import { isRouteErrorResponse, Link, type ShouldRevalidateFunctionArgs, useLoaderData, useLocation, useParams, useRevalidator } from "react-router";
import { FavoriteButton } from "~/components/library/favorite-button";
import { ChapterDrawer } from "~/components/reader/chapter-drawer";
import { ChapterReader } from "~/components/reader/chapter-reader";
import { RecapPanel } from "~/components/reader/recap";
import { LockIcon } from "~/components/reader/lock-icon";
import { LockedChapter } from "~/components/reader/locked-chapter";
import { OfflineButton } from "~/components/reader/offline-button";
import { FlashMessage } from "~/components/ui/flash-message";
import { WorkBlockMenu } from "~/components/blocks/block-button";
import { ShareButton } from "~/components/share/share-button";
import { TypoReport } from "~/components/reader/typo-report";
import { ParagraphMarkLink, WorkMarks } from "~/components/reader/bookmarks";
import { MarkedText, MarkPopup } from "~/components/reader/highlights";
import { PurchaseDialog } from "~/components/reader/purchase-dialog";
import { TableOfContents } from "~/components/reader/table-of-contents";
import { NoticeChapter } from "~/components/reader/notice-chapter";
import { WorkHeader } from "~/components/reader/work-header";
import { WorkFans } from "~/components/reader/fan-ranking";
import { VoteBox } from "~/components/reader/vote-box";
import { authHref } from "~/components/shell/auth-links";
import { AppLink } from "~/components/ui/app-link";
import { authorWorksHref } from "~/utils/hrefs";
import { workFeedHref } from "~/utils/feed";
import { noindex, readerMeta, siteNameOf } from "~/components/shell/seo-meta";
import { OwnerControls } from "~/components/works/my-work-card";
import { handleReaderAction, loadReaderPage, type ReaderActionData } from "./reader-page.server";
import type { Route } from "./+types/work";
import { FieldError } from "~/components/ui/forms";
import type { LiveCommentsHandle } from "~/components/comments/live-comments";
import type { FirstTouchHandle } from "~/utils/first-touch";
import { ThreadDialog } from "~/components/comments/thread-dialog";
import { RatingLine } from "~/components/reviews/review-item";

export const meta: Route.MetaFunction = ({ data, matches }) => {
  if (!data) return [{ title: "作品 - 砚台" }];
  const siteName = siteNameOf(matches);
  // An R-18 work behind its gate: the title, and no engine keeps it.
  if (data.gate !== "ok") return [{ title: `${data.work.title} - 砚台` }, noindex()];
  const chapter = data.mode === "chapter" || data.mode === "locked" ? data.chapter : null;
  // Feed readers and browsers find the work's chapter feed from any of its pages.
  const feed = workFeedHref(data.work);
  return [
    { title: `${data.mode === "chapter" ? `${data.chapter.title} - ` : data.mode === "notice" ? `${data.noticeChapter.title} - ` : ""}${data.work.title} - 砚台` },
    { tagName: "link", rel: "alternate", type: "application/atom+xml", title: `《${data.work.title}》章节更新`, href: feed },
    ...readerMeta({ origin: data.siteOrigin, siteName, work: data.work, defaultCoverUrl: data.defaultCoverUrl, chapter }),
  ];
};

/** A visitor gets the page a CDN may keep; anyone signed in a private one (decision 263). */
export function headers(): HeadersInit {
  return { "Cache-Control": SHARED_PAGE };
}

/** The chapter whose text the page shows, if it shows one. */
function shownChapter(data: unknown) {
  const page = data as Route.ComponentProps["loaderData"] | undefined;
  return page && page.gate === "ok" && page.mode === "chapter" ? { workId: page.work.id, chapterId: page.chapter.id } : null;
}

/**
 * A chapter hears its comments live (decision 101); its scripts start at the reader's first
 * touch, the text reading without them (decision 264).
 */
export const handle: LiveCommentsHandle & FirstTouchHandle = {
  liveComments: shownChapter,
  scriptsAtFirstTouch: (data) => shownChapter(data) !== null,
};

/**
 * Opening or closing a paragraph's thread dialog (`thread`) and what is posted inside it
 * leave the chapter as it is: the dialog loads its own thread and the bubbles refresh
 * their counts (decision 101), so a 1 MB chapter is not read again for each.
 */
export function shouldRevalidate({ currentUrl, nextUrl, formAction, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (formAction && new URL(formAction, currentUrl).pathname.endsWith("/comments")) return false;
  if (!formAction && currentUrl.pathname === nextUrl.pathname) {
    const before = new URLSearchParams(currentUrl.search);
    const after = new URLSearchParams(nextUrl.search);
    if (before.get("thread") !== after.get("thread")) {
      before.delete("thread");
      after.delete("thread");
      if (before.toString() === after.toString()) return false;
    }
  }
  return defaultShouldRevalidate;
}

export async function loader({ request, url, params }: Route.LoaderArgs) {
  return loadReaderPage(request, url, params.id);
}

export async function action({ request, url, params }: Route.ActionArgs) {
  return handleReaderAction(request, url, params.id);
}

export default function WorkPage({ actionData }: Route.ComponentProps) {
  const page = useLoaderData<typeof loader>();
  const location = useLocation();

  if (page.gate !== "ok") {
    return (
      <section className="reader reader-gated">
        <h1>{page.work.title}</h1>
        <p className="reader-author">作者：{page.work.authorNickname}</p>
        <div className="gate-notice" role="note">
          <span className="badge badge-r18">R-18</span>
          {page.gate === "login-for-r18" ? (
            <p>
              该作品含有 R-18 内容，请
              <Link to={`/works/${page.work.id}?auth=login&redirectTo=${encodeURIComponent(page.redirectTo)}`}>登录</Link>
              后查看。
            </p>
          ) : (
            <p>
              该作品含有 R-18 内容。如需查看，请在<Link to="/settings">设置</Link>的“浏览与显示”中开启“显示 R-18 内容”。
            </p>
          )}
        </div>
      </section>
    );
  }

  const { work, access, defaultCoverUrl } = page;
  const here = `/works/${work.id}`;
  const feed = workFeedHref(work);
  const locked = !access.canReadContent;
  const answer = actionData as ReaderActionData | undefined;
  const purchaseError = answer?.intent === "purchase" ? answer.error : undefined;
  const favoriteError = answer?.intent === "favorite" ? answer.error : undefined;
  const ownerError = answer?.intent === "owner" ? answer.error : undefined;
  // The chapter's address as loaded, and the paragraph whose thread dialog is open.
  const search = new URLSearchParams(location.search);
  const from = search.get("from");
  const chapterAddress = page.mode === "chapter" || page.mode === "locked" ? `${here}?chapter=${page.chapter.order}${from ? `&from=${encodeURIComponent(from)}` : ""}` : here;
  const threadParam = search.get("thread");
  const thread = page.mode === "chapter" && page.comments && threadParam && /^\d{1,7}$/.test(threadParam) ? Number(threadParam) : null;
  const purchaseHref = access.signedIn ? `${here}?purchase=1` : authHref({ pathname: here, search: "" }, "login", `${here}?purchase=1`);

  // 书签 and 划线 in the chapter shown (decision 241), for a signed-in reader.
  const readerMarks = page.mode === "chapter" ? page.readerMarks : null;
  const saleAnswer = answer && (answer.intent === "buy-chapter" || answer.intent === "buy-all" || answer.intent === "auto-subscribe") ? answer : undefined;

  // Above a chapter (read, locked or a 公告): the work and its author.
  const breadcrumb = (
    <p className="reader-breadcrumb">
      <Link to={here}>{work.title}</Link> <span className="muted">/ <AppLink to={authorWorksHref(work.userId)}>{work.authorNickname}</AppLink></span>
    </p>
  );

  return (
    <section className="reader">
      <FlashMessage notice={page.notice} />
      {page.mode === "notice" ? (
        <>
          {breadcrumb}
          <NoticeChapter key={page.noticeChapter.id} workId={work.id} notice={page.noticeChapter} />
        </>
      ) : page.mode === "locked" ? (
        <>
          {breadcrumb}
          <LockedChapter
            key={page.chapter.id}
            workId={work.id}
            workTitle={work.title}
            chapter={page.chapter}
            preview={page.preview}
            quote={page.quote}
            balance={access.balance}
            signedIn={access.signedIn}
            autoSubscribed={page.autoSubscribed}
            prev={page.prev}
            next={page.next}
            error={saleAnswer?.error}
            missing={saleAnswer?.missing}
          />
        </>
      ) : page.mode === "chapter" ? (
        <>
          {breadcrumb}
          {page.recap ? <RecapPanel recap={page.recap} /> : null}
          <ChapterReader
            key={`${page.chapter.id}:${page.batch.from}`}
            workId={work.id}
            chapter={page.chapter}
            batch={page.batch}
            authorNote={page.authorNote}
            prev={page.prev}
            next={page.next}
            saveProgress={access.signedIn}
            comments={page.comments}
            threadDialogHref={(index) => `${chapterAddress}&thread=${index}`}
            paragraphText={readerMarks ? (index, text) => <MarkedText text={text} marks={readerMarks.filter((m) => m.paragraph === index)} /> : undefined}
            paragraphTools={readerMarks ? (index) => <ParagraphMarkLink workId={work.id} chapterId={page.chapter.id} index={index} marks={readerMarks.filter((m) => m.paragraph === index)} /> : undefined}
            drawerHref={`${chapterAddress}&toc=${page.tocPage}`}
            tipHref={access.isOwner ? null : `${here}/tip?chapter=${page.chapter.order}`}
            voteBox={
              page.votes ? (
                <VoteBox workId={work.id} votes={page.votes.balance} formTokens={page.votes.formTokens} redirectTo={`${here}?chapter=${page.chapter.order}`} />
              ) : null
            }
          />
          {readerMarks ? <MarkPopup workId={work.id} chapterId={page.chapter.id} back={chapterAddress} /> : null}
          <div className="chapter-tools">
            <ShareButton url={`${page.shareOrigin}${here}?chapter=${page.chapter.order}`} title={`${work.title} ${page.chapter.title}`} label="分享本章" />
            {access.signedIn && !access.isOwner ? <TypoReport workId={work.id} chapterId={page.chapter.id} back={`${here}?chapter=${page.chapter.order}`} /> : null}
            {/* 离线阅读 from this chapter on (decision 244). */}
            {access.signedIn ? <OfflineButton workId={work.id} from={page.chapter.order} /> : null}
          </div>
          {page.drawer ? (
            <ChapterDrawer
              workId={work.id}
              current={page.chapter.order}
              list={page.drawer}
              closeHref={chapterAddress}
              pageHref={(p) => `${chapterAddress}&toc=${p}`}
            />
          ) : null}
          {thread !== null ? (
            <ThreadDialog
              key={thread}
              workId={work.id}
              order={page.chapter.order}
              chapterId={page.chapter.id}
              paragraph={thread}
              closeHref={chapterAddress}
            />
          ) : null}
        </>
      ) : (
        <>
          <WorkHeader work={work} defaultCoverUrl={defaultCoverUrl}>
            <div className="reader-actions">
              {(!locked || work.vipFrom !== null) && page.toc.chapters.length > 0 ? (
                page.progress ? (
                  <Link className="btn btn-primary" to={page.progress.href} title={page.progress.chapterTitle}>
                    继续阅读
                  </Link>
                ) : (
                  <Link className="btn btn-primary" to={`${here}?chapter=1`}>
                    开始阅读
                  </Link>
                )
              ) : null}
              {access.isOwner ? null : (
                <FavoriteButton workId={work.id} favorited={access.favorited} signedIn={access.signedIn} back={here} />
              )}
              {/* 加入书单 (decision 232): its own page; a visitor is asked to sign in first. */}
              {work.visibility !== "private" ? (
                <Link className="btn" to={`${here}/booklist`}>
                  加入书单
                </Link>
              ) : null}
              {(!locked || work.vipFrom !== null) && !access.isOwner && page.toc.chapters.length > 0 ? (
                // A reader's own copy (docs/decisions/123); a visitor is asked to sign in first.
                // Of a work sold by chapter and not bought whole: its free and bought chapters.
                <a className="btn" href={`/works/${work.id}/book.epub`}>
                  {locked ? "下载 EPUB（已解锁章节）" : "下载 EPUB"}
                </a>
              ) : null}
              <ShareButton url={`${page.shareOrigin}${here}`} title={work.title} />
              {/* 离线阅读 from where the reader is (decision 244). */}
              {access.signedIn && (!locked || work.vipFrom !== null) && page.toc.chapters.length > 0 ? <OfflineButton workId={work.id} from={null} /> : null}
            </div>
            {feed ? (
              <p className="reader-feed">
                <a href={feed} type="application/atom+xml">
                  订阅章节更新（RSS/Atom）
                </a>
              </p>
            ) : null}
            <div className="review-entry">
              <RatingLine summary={page.ratings} />
              <Link to={`${here}/reviews`}>书评区</Link>
              {page.wiki ? <Link to={`${here}/wiki`}>角色百科</Link> : null}
            </div>
            {access.isOwner ? <OwnerControls work={work} back={here} error={ownerError} review={page.workReview} /> : null}
            {access.signedIn && !access.isOwner && work.userId ? (
              <WorkBlockMenu authorId={work.userId} authorNickname={work.authorNickname} tags={work.tags ?? []} blocked={page.blocked} back={here} />
            ) : null}
            <FieldError errors={favoriteError} alert as="p" />
          </WorkHeader>
          {page.recap ? <RecapPanel recap={page.recap} /> : null}
          {work.vipFrom !== null && page.quote ? (
            <div className="paywall" data-testid="paywall">
              <LockIcon size={32} className="paywall-lock" />
              <div>
                <p className="paywall-title">
                  按章付费：前 {work.vipFrom - 1} 章免费试读，第 {work.vipFrom} 章起为VIP章节
                </p>
                {page.quote.count > 0 ? (
                  <p className="paywall-price">
                    未购买的VIP章节 {page.quote.count} 章，购买全部需 <strong>{page.quote.total}</strong> 积分
                    {page.quote.discountPercent > 0 ? `（全本优惠 ${page.quote.discountPercent}%）` : ""}
                  </p>
                ) : (
                  <p className="paywall-price">你已拥有全部VIP章节</p>
                )}
              </div>
            </div>
          ) : locked ? (
            <div className="paywall" data-testid="paywall">
              <LockIcon size={32} className="paywall-lock" />
              <div>
                <p className="paywall-title">
                  {page.lockedChapter ? "该章节属于付费作品，" : "这是一部付费作品，"}购买后即可阅读全部章节
                </p>
                <p className="paywall-price">
                  价格：<strong>{work.price}</strong> 积分
                </p>
              </div>
              <Link className="btn btn-primary" to={purchaseHref}>
                购买作品
              </Link>
            </div>
          ) : null}
          <TableOfContents
            workId={work.id}
            chapters={page.toc.chapters}
            volumes={page.toc.volumes}
            total={page.toc.total}
            page={page.toc.page}
            pageCount={page.toc.pageCount}
            order={page.toc.order}
            latest={page.toc.latest}
            notices={page.toc.notices}
            readable={!locked || work.vipFrom !== null}
            marks={page.marks}
          />
          {page.readerMarks ? <WorkMarks workId={work.id} marks={page.readerMarks.marks} total={page.readerMarks.total} /> : null}
          {page.votes ? <VoteBox workId={work.id} votes={page.votes.balance} formTokens={page.votes.formTokens} redirectTo={here} /> : null}
          <WorkFans workId={work.id} fans={page.fans} tips={page.tips} canTip={!access.isOwner} />
        </>
      )}
      {access.purchaseOpen || purchaseError ? (
        <PurchaseDialog
          work={work}
          balance={access.balance}
          purchased={access.purchased}
          closeHref={location.pathname}
          serverError={purchaseError}
        />
      ) : null}
    </section>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const params = useParams();
  const location = useLocation();
  const revalidator = useRevalidator();
  const search = new URLSearchParams(location.search);
  const inChapter = search.has("chapter") || search.has("chapterId") || search.has("notice");
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const message = isRouteErrorResponse(error) && typeof error.data === "string" ? error.data : "";

  if (status === 404 && inChapter && message === "章节不存在") {
    return (
      <section className="reader-error">
        <h1>章节不存在</h1>
        <p>这个章节不存在或已被删除。</p>
        <Link className="btn btn-primary" to={`/works/${params.id}`}>
          返回目录
        </Link>
      </section>
    );
  }
  if (status === 404 || status === 400) {
    return (
      <section className="reader-error">
        <h1>作品不存在</h1>
        <p>{message || "你访问的作品不存在或已被删除。"}</p>
        <a className="btn btn-primary" href="/">
          返回首页
        </a>
      </section>
    );
  }
  return (
    <section className="reader-error">
      <h1>{inChapter ? "章节内容加载失败" : "作品加载失败，请重试"}</h1>
      <p role="alert">加载失败，请重试</p>
      <div className="form-actions">
        <button type="button" className="btn btn-primary" onClick={() => revalidator.revalidate()} disabled={revalidator.state !== "idle"}>
          {revalidator.state !== "idle" ? "加载中..." : "重试"}
        </button>
        <a className="btn" href="/">
          返回首页
        </a>
      </div>
    </section>
  );
}
