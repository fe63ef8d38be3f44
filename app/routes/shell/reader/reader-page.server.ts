import { listMarks, marksForChapter } from "~/server/reading/marks.server";
import { fanRanking } from "~/server/community/fans.server";
import { recapFor } from "~/server/reading/recap.server";
import { hasWiki } from "~/server/reading/wiki.server";
import { workReviewFacts } from "~/server/studio/work-review.server";
import { voteBalance } from "~/server/community/votes.server";
import { recentTips } from "~/server/economy/tips.server";
import { data, redirect } from "react-router";
import {
  autoBuyChapter,
  chapterMark,
  type ChapterMark,
  isAutoSubscribed,
  ownedChapterIds,
  purchaseAllChapters,
  purchaseChapter,
  quoteAllChapters,
  setAutoSubscribe,
} from "~/server/economy/chapter-sales.server";
import { chapterForReaders, getPublishedNotice, publishedChapterNumber } from "~/server/catalog/chapter-numbers.server";
import { maskTexts } from "~/server/screening/screening.server";
import { commentCounts } from "~/server/community/comments.server";
import { ratingSummary } from "~/server/community/book-reviews.server";
import { refuseClosedHours } from "~/server/identity/minor-mode.server";
import { asRouteError, domainErrorOf, replyOnDomainError } from "~/server/platform/errors.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { redirectWithFlash, takeFlash } from "~/server/platform/flash.server";
import { readForm } from "~/server/platform/form-data.server";
import { newFormToken } from "~/server/platform/form-tokens.server";
import { readerActionSchema } from "~/schemas/reader";
import { parseWithZod } from "@conform-to/zod/v4";
import { LEDGER_MESSAGES, purchaseWork } from "~/server/economy/ledger.server";
import { OWNER_INTENTS, runMyWorksAction } from "~/routes/shell/works/my-works-actions.server";
import { getSessionUser, loginRedirectUrl } from "~/server/identity/session.server";
import { getDisplayConfigValue } from "~/server/platform/site-config.server";
import { getWorkForViewer, isFavorited } from "~/server/catalog/works.server";
import { listCategories } from "~/server/catalog/categories.server";
import { canReadChapter, isByChapter } from "~/server/catalog/chapter-access.server";
import {
  authorNoteForReaders,
  getProgress,
  neighbours,
  maskedBatch,
  paragraphBatch,
  parseChapterOrder,
  parseFrom,
  parseTocOrder,
  READER_MESSAGES,
  saveProgress,
  tableOfContents,
  TOC_PAGE_SIZE,
} from "~/server/reading/reader.server";
import { safeRedirectPath } from "~/utils/redirect";
import { configuredSiteOrigin, siteOrigin } from "~/server/platform/request.server";
import { readerBlocks } from "~/server/catalog/blocks.server";
import { progressHref, splitParagraphs } from "~/utils/reading";
import { parsePage } from "~/utils/pagination";

/** How many fans and tips the work page shows. */
const WORK_PAGE_FANS = 5;

/**
 * The reader page `/works/:id`: the work's header, then either its table of contents or
 * (with `?chapter=<order>`) one batch of a chapter; `?chapterId=<id>` redirects to the
 * chapter's `?chapter=<order>`. Chapter text, previews and the next
 * batch reach only viewers with `canReadContent` (owner, buyer, or a free work), after
 * the private (404) and r18 gates of getWorkForViewer.
 */
export async function loadReaderPage(request: Request, url: URL, idParam: string | undefined) {
  const viewer = await getSessionUser(request);
  const view = await getWorkForViewer(Number(idParam), viewer).catch(asRouteError);
  const { work, author, isOwner, purchased, gate, canReadContent } = view;
  const signedIn = Boolean(viewer);

  // `?chapterId=<id>`: a chapter's lasting address (feed entries link by it), sent on to
  // the reader's `?chapter=<number>`, which a move or a 存稿 published before it changes.
  const chapterId = url.searchParams.get("chapterId");
  if (chapterId !== null) {
    const number = /^\d{1,15}$/.test(chapterId) ? await publishedChapterNumber(work.id, Number(chapterId)) : null;
    if (number !== null) throw redirect(`/works/${work.id}?chapter=${number}`);
    // A notice chapter has no number: its address is `?notice=<id>` (decision 203).
    const notice = /^\d{1,15}$/.test(chapterId) ? await getPublishedNotice(work.id, Number(chapterId)) : null;
    if (notice) throw redirect(`/works/${work.id}?notice=${notice.id}`);
    throw data(READER_MESSAGES.chapterMissing, { status: 404 });
  }

  // An r18 work behind its gate shows no more than its title and author.
  if (gate !== "ok") {
    return {
      gate,
      work: { id: work.id, title: work.title, authorNickname: author.nickname, rating: work.rating },
      redirectTo: `/works/${work.id}`,
    } as const;
  }

  const header = {
    id: work.id,
    userId: work.userId,
    title: work.title,
    description: work.description,
    coverUrl: work.coverUrl,
    authorNickname: author.nickname,
    wordCount: work.wordCount,
    chapterCount: work.chapterCount,
    type: work.type,
    status: work.status,
    visibility: work.visibility,
    rating: work.rating,
    isAiGenerated: work.isAiGenerated,
    aiLevel: work.aiLevel,
    price: work.price,
    tags: work.tags,
    categoryName: null as string | null,
    /** Sold by chapter: VIP from this chapter number on (docs/product.md#paying-by-chapter). */
    vipFrom: isByChapter(work) ? work.vipFrom : null,
  };
  const [defaultCoverUrl, favorited, categories, voteCounts, blocks] = await Promise.all([
    getDisplayConfigValue("default_cover_url"),
    viewer && !isOwner ? isFavorited(viewer.id, work.id) : false,
    work.categoryId ? listCategories() : [],
    // 月票 and 推荐票 left, for the cast forms on the work page and a chapter's end (decision 222).
    viewer && !isOwner ? voteBalance(viewer.id) : null,
    // 屏蔽 (decision 233): the work page's menu shows what this reader already blocked.
    readerBlocks(viewer && !isOwner ? viewer : null),
  ]);
  header.categoryName = categories.find((c) => c.id === work.categoryId)?.name ?? null;
  const access = {
    signedIn,
    isOwner,
    purchased,
    canReadContent,
    favorited,
    balance: viewer?.credits ?? 0,
    // Stays open after buying, so the dialog can show its success state.
    purchaseOpen: url.searchParams.get("purchase") === "1" && signedIn && !isOwner && work.visibility === "public-vip",
  };
  // The owner sees their title, description, cover and tags under review (decision 214).
  const workReview = isOwner && viewer ? ((await workReviewFacts(viewer.id, [work.id])).get(work.id) ?? null) : null;
  const votes = voteCounts && { balance: voteCounts, formTokens: { monthly: newFormToken(), recommend: newFormToken() } };
  // Absolute addresses in the page's meta come from SITE_URL alone (docs/decisions/200).
  // 分享's links likewise: SITE_URL, else this machine's address, never the request's Host.
  const blocked = { author: blocks.authors.includes(work.userId), tags: work.tags.filter((t) => blocks.tags.includes(t)) };
  const common = { gate, work: header, defaultCoverUrl, access, workReview, votes, blocked, siteOrigin: configuredSiteOrigin(), shareOrigin: siteOrigin() };

  // `?notice=<id>`: a notice chapter (请假条, 作品相关: decision 203). Free whatever the
  // work's pricing, outside the numbering and prev/next; opening it moves no reading position.
  const noticeId = url.searchParams.get("notice");
  if (noticeId !== null) {
    const notice = /^\d{1,15}$/.test(noticeId) ? await getPublishedNotice(work.id, Number(noticeId)) : null;
    if (!notice) throw data(READER_MESSAGES.chapterMissing, { status: 404 });
    const [paragraphs, authorNote, flash] = await Promise.all([maskTexts(splitParagraphs(notice.content)), authorNoteForReaders(notice.authorNote), takeFlash(request, url)]);
    return withFlashCookie(
      {
        ...common,
        mode: "notice" as const,
        notice: flash.notice,
        noticeChapter: { id: notice.id, title: notice.title, kind: notice.kind as "leave" | "about", paragraphs, authorNote },
      },
      flash.setCookie,
    );
  }

  const order = parseChapterOrder(url.searchParams.get("chapter"));
  // 青少年模式's reading hours (decision 218): no chapter inside them, a 403 with the hours.
  if (order !== null && viewer) await refuseClosedHours(viewer.id).catch(asRouteError);
  // A paid work's chapter opens for whoever owns it (the work, or this chapter) and, when
  // the work is sold by chapter, for everyone if it is a free 试读 chapter; other VIP
  // chapters show the locked view (docs/product.md#paying-by-chapter).
  const chapter = order !== null && (canReadContent || work.visibility === "public-vip") ? await chapterForReaders(work.id, order) : null;
  if (order !== null && (canReadContent || isByChapter(work)) && !chapter) {
    throw data(READER_MESSAGES.chapterMissing, { status: 404 });
  }
  const open = chapter !== null && (canReadContent || (await canReadChapter(view, viewer, chapter)));
  if (chapter && !open && isByChapter(work)) {
    const [around, quote, autoSubscribed, flash] = await Promise.all([
      neighbours(work.id, chapter.order),
      quoteAllChapters(viewer?.id ?? null, work),
      viewer ? isAutoSubscribed(viewer.id, work.id) : false,
      takeFlash(request, url),
    ]);
    return withFlashCookie(
      {
        ...common,
        mode: "locked" as const,
        chapter: { id: chapter.id, title: chapter.title, order: chapter.order, price: Math.max(1, chapter.price), wordCount: chapter.wordCount },
        // The first ~200 字: enough to decide, never the chapter.
        preview: lockedPreview(chapter.content),
        quote,
        autoSubscribed,
        prev: around.prev,
        next: around.next,
        notice: flash.notice,
      },
      flash.setCookie,
    );
  }
  if (chapter && open) {
    const batch = await maskedBatch(paragraphBatch(splitParagraphs(chapter.content), parseFrom(url.searchParams.get("from"))));
    // 作者的话 under the text, for whoever may read the chapter (decision 202).
    const authorNote = await authorNoteForReaders(chapter.authorNote);
    // The bubbles of this batch come with it (the next batches bring their own).
    // `toc` opens the chapter list drawer on that page of the list (docs/product.md#reading-comfort).
    const drawerPage = url.searchParams.get("toc");
    const [around, comments, drawer, readerMarks, recap] = await Promise.all([
      neighbours(work.id, chapter.order),
      commentCounts(chapter.id, { from: batch.from, to: batch.from + batch.paragraphs.length }),
      drawerPage === null ? null : tableOfContents(work.id, false, parsePage(drawerPage)),
      // The reader's 书签 and 划线 in this chapter, drawn on its text (decision 241).
      viewer ? marksForChapter(viewer.id, chapter.id) : null,
      // 前情提要 (decision 252), from the position before this opening moves it.
      viewer ? recapFor(view, viewer.id) : null,
    ]);
    const drawerMarks = drawer ? await chapterMarks(view, viewer?.id ?? null, drawer.chapters) : null;
    // Opening a chapter records it (so 继续阅读 works without JavaScript too); a stored
    // position inside this batch is more precise and is kept.
    // It also records the day's read for the author's statistics, the owner's excepted
    // (in the same statement, at most once per reader, chapter and day: decision 099).
    // 离线阅读's download (decision 244) keeps the page without reading it: no position, no read.
    if (viewer && request.headers.get("X-Inkstone-Offline") !== "keep") {
      await saveProgress(
        viewer.id,
        work.id,
        chapter.id,
        batch.from,
        { from: batch.from, to: batch.from + Math.max(1, batch.paragraphs.length) },
        isOwner ? undefined : new Date(),
      );
    }
    const flash = await takeFlash(request, url);
    return withFlashCookie(
      {
      ...common,
      mode: "chapter" as const,
      notice: flash.notice,
      chapter: { id: chapter.id, title: chapter.title, order: chapter.order, aiLevel: chapter.aiLevel },
      batch,
      authorNote,
      comments,
      readerMarks,
      // Told when the reader goes on from where they were, not when they look back.
      recap: recap && chapter.order >= recap.upTo.order ? recap : null,
      prev: around.prev,
      next: around.next,
      /** The page of the chapter list that holds this chapter, and the open drawer's list. */
      tocPage: Math.ceil(chapter.order / TOC_PAGE_SIZE),
      drawer: drawer && {
        chapters: drawer.chapters,
        volumes: drawer.volumes,
        marks: drawerMarks,
        page: drawer.page,
        pageCount: drawer.pageCount,
        total: drawer.total,
      },
      },
      flash.setCookie,
    );
  }

  const byChapter = isByChapter(work);
  const [toc, progress, quote, flash, ratings, fans, tips, recap, wiki] = await Promise.all([
    tableOfContents(work.id, canReadContent, parsePage(url.searchParams.get("toc")), parseTocOrder(url.searchParams.get("order"))),
    viewer && (canReadContent || byChapter) ? getProgress(viewer.id, work.id) : null,
    byChapter && !isOwner && !purchased ? quoteAllChapters(viewer?.id ?? null, work) : null,
    // A notice for this page: e.g. 兑换成功 / 充值成功 on the way back from 去充值.
    takeFlash(request, url),
    // 评分 and the way to the 书评区 (docs/product.md#book-reviews).
    ratingSummary(work.id),
    // 粉丝榜's top and the latest tips (decision 207).
    fanRanking(work.id, null, { limit: WORK_PAGE_FANS }),
    recentTips(work.id, WORK_PAGE_FANS),
    // 前情提要 beside 继续阅读 (decision 252).
    viewer && (canReadContent || byChapter) ? recapFor(view, viewer.id) : null,
    // 角色百科 (decision 259): linked when the author has put anything in it.
    hasWiki(work.id),
  ]);
  // The reader's 书签 and 划线 in this work, newest first (decision 241).
  const readerMarks = viewer ? await listMarks(viewer, 1, work.id) : null;
  const marks = await chapterMarks(view, viewer?.id ?? null, toc.chapters);
  return withFlashCookie({
    ...common,
    mode: "work" as const,
    notice: flash.notice,
    fans: fans.fans,
    tips,
    toc,
    marks,
    readerMarks,
    quote,
    progress: progress && { href: progressHref(work.id, progress), chapterTitle: progress.chapterTitle },
    recap,
    wiki,
    ratings,
    // A chapter link for a work the viewer cannot read yet lands here, behind the lock.
    lockedChapter: order !== null && !canReadContent,
  }, flash.setCookie);
}

/**
 * 免费 / VIP / 已购 beside each listed chapter of a work sold by chapter, by chapter id:
 * the work page's 目录 and the reader's chapter drawer. Null for a work sold whole.
 */
async function chapterMarks(
  view: Awaited<ReturnType<typeof getWorkForViewer>>,
  viewerId: string | null,
  listed: { id: number; order: number }[],
): Promise<Record<number, ChapterMark> | null> {
  if (!isByChapter(view.work)) return null;
  const owned = viewerId && !view.isOwner && !view.purchased ? await ownedChapterIds(viewerId, listed.map((c) => c.id)) : new Set<number>();
  const marks: Record<number, ChapterMark> = {};
  for (const c of listed) {
    const mark = chapterMark(view, c.order, owned.has(c.id));
    if (mark) marks[c.id] = mark;
  }
  return marks;
}

/** The page's data, with the Set-Cookie that ends a shown notice only when there is one. */
function withFlashCookie<T>(page: T, setCookie: string | null) {
  return setCookie ? data(page, { headers: { "Set-Cookie": setCookie } }) : page;
}

/** The first ~200 字 of a locked chapter, whole paragraphs where they fit. */
const LOCKED_PREVIEW_CHARS = 200;
function lockedPreview(content: string): string[] {
  const out: string[] = [];
  let left = LOCKED_PREVIEW_CHARS;
  for (const paragraph of splitParagraphs(content.slice(0, LOCKED_PREVIEW_CHARS * 4))) {
    if (left <= 0) break;
    const chars = Array.from(paragraph);
    out.push(chars.length > left ? `${chars.slice(0, left).join("")}……` : paragraph);
    left -= chars.length;
  }
  return out;
}

export type ReaderActionData =
  | { intent: "favorite"; on?: boolean; error?: string }
  | { intent: "buy-chapter" | "buy-all" | "auto-subscribe"; error: string; missing?: number }
  | { intent: "purchase"; ok?: true; already?: boolean; error?: string }
  | { intent: "owner"; error: string };

/**
 * Follow / unfollow and purchase. With JavaScript (`enhanced=1`) the answer is data for
 * the fetcher; without it, a redirect (POST, redirect, GET) back to the page.
 */
export async function handleReaderAction(request: Request, url: URL, idParam: string | undefined) {
  const user = await getSessionUser(request);
  if (!user) throw redirect(loginRedirectUrl(url));
  const workId = Number(idParam);
  const form = await readForm(request);
  const submission = parseWithZod(form, { schema: readerActionSchema });
  if (submission.status !== "success") return data<ReaderActionData>({ intent: "favorite", error: "未知操作" }, { status: 400 });
  const { intent, enhanced, on } = submission.value;

  if (intent === "favorite") {
    return replyOnDomainError(
      async () => {
        await setFavorite(user, workId, on);
        if (enhanced) return data<ReaderActionData>({ intent: "favorite", on });
        return redirect(safeRedirectPath(submission.value.back, `/works/${workId}`));
      },
      (error): ReaderActionData => ({ intent: "favorite", error: error.message }),
    );
  }

  if (intent === "purchase") {
    try {
      const result = await purchaseWork(user.id, workId);
      if (enhanced) return data<ReaderActionData>({ intent: "purchase", ok: true, already: result.status === "already-purchased" });
      return redirect(`/works/${workId}`);
    } catch (error) {
      const { message, status } = domainErrorOf(error, LEDGER_MESSAGES.purchaseFailed);
      return data<ReaderActionData>({ intent: "purchase", error: message }, { status });
    }
  }

  // Paying by chapter: 购买本章 (also 自动订阅's purchase), 购买全部, and the 自动订阅 switch.
  // Each answers with a redirect back to the chapter (POST, redirect, GET), where it opens.
  if (intent === "buy-chapter" || intent === "buy-all" || intent === "auto-subscribe") {
    const { chapterId, auto, total, price } = submission.value;
    const order = parseChapterOrder(submission.value.order);
    const back = order === null ? `/works/${workId}` : `/works/${workId}?chapter=${order}`;
    try {
      if (intent === "auto-subscribe") {
        await setAutoSubscribe(user, workId, on);
        return redirectWithFlash(request, back, { kind: "success", text: on ? "已开启自动订阅" : "已关闭自动订阅" });
      }
      if (intent === "buy-all") {
        const result = await purchaseAllChapters(user.id, workId, total);
        const text = result.status === "purchased" ? `已购买全部 ${result.count} 章，花费 ${result.total} 积分` : "你已拥有全部VIP章节";
        return redirectWithFlash(request, back, { kind: "success", text });
      }
      const result = auto ? await autoBuyChapter(user.id, workId, chapterId) : await purchaseChapter(user.id, workId, chapterId);
      if (!result) return redirect(back);
      const target = `/works/${workId}?chapter=${result.order}`;
      const text = result.status === "purchased" ? `${auto ? "自动订阅：" : ""}已购买本章，花费 ${result.price} 积分` : "你已拥有本章";
      return redirectWithFlash(request, target, { kind: "success", text });
    } catch (error) {
      const { message, status } = domainErrorOf(error, LEDGER_MESSAGES.purchaseFailed);
      const missing = status === 402 && price !== undefined ? Math.max(0, price - (user.credits ?? 0)) : undefined;
      return data<ReaderActionData>({ intent, error: message, missing }, { status });
    }
  }

  // The owner's price, visibility and delete controls, answered on this page.
  if ((OWNER_INTENTS as readonly string[]).includes(intent)) {
    const outcome = await runMyWorksAction(user.id, form);
    if (outcome.ok) return redirect(outcome.redirectTo);
    return data<ReaderActionData>({ intent: "owner", error: outcome.message }, { status: outcome.status });
  }

  return data<ReaderActionData>({ intent: "favorite", error: "未知操作" }, { status: 400 });
}
