import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, bookReviews, users } from "~/db/schema";
import { REVIEW_MIN_RATINGS } from "~/schemas/book-review-rules";
import { decideReportedReview, listReportedReviews } from "~/server/admin/report-queues.server";
import {
  deleteReview,
  editReview,
  listReviews,
  postReview,
  ratingSummary,
  replyToReview,
  reportReview,
  REVIEW_MESSAGES,
  setFeatured,
  setPinned,
  setReviewLike,
} from "~/server/community/book-reviews.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { addChapter, insertWorks, serialByChapter, setViewerPrefs } from "../fixtures/works";
import { actorOf, adminCookieFor, callAction, createAdmin, request } from "./admin-fixtures";
import { bodyOf, callThroughRoutes, redirectOf, statusOf } from "./route-chain";

/**
 * 书评区 (docs/product.md#book-reviews, decision 211): one review per reader per work with a
 * 1-10 rating, the author's 精华 / 置顶 / 回复, the average shown from REVIEW_MIN_RATINGS on,
 * who may write one, screening, and reports decided in the back office.
 */

type U = { id: string; showR18: boolean; showAi: boolean };
const viewer = (id: string): U => ({ id, showR18: false, showAi: true });
const text = (s: string) => `${s}，这部作品的人物和故事都让我印象深刻。`;
const reader = async () => viewer((await createUser()).id);
const rowsOf = (workId: number) => db.select().from(bookReviews).where(eq(bookReviews.workId, workId));

let operator: Awaited<ReturnType<typeof createAdmin>>;

beforeAll(async () => {
  operator = await createAdmin({ role: "operator" });
  await addScreeningWord(actorOf(operator), { word: "书评禁止词", category: "其他", level: "forbid" });
  await addScreeningWord(actorOf(operator), { word: "书评待审词", category: "广告", level: "review" });
  await addScreeningWord(actorOf(operator), { word: "书评替换词", category: "其他", level: "replace" });
  await reloadScreening();
});

async function freeWork() {
  const owner = viewer((await createUser()).id);
  const [workId] = await insertWorks([{ userId: owner.id, title: `书评作品${Math.random().toString(36).slice(2, 6)}` }]);
  await addChapter(workId, "第一段。\n\n第二段。");
  return { owner, workId };
}

describe("writing, editing and deleting a review", () => {
  it("posts one review per reader, lists it, edits it and deletes it; a second is refused with the way to edit", async () => {
    const { owner, workId } = await freeWork();
    const me = await reader();
    const { id } = await postReview(me, workId, { rating: "8", body: `  ${text("很好看")}  ` });
    const second = await domainError(postReview(me, workId, { rating: "3", body: text("再写一条") }));
    expect([second.status, second.message]).toEqual([409, REVIEW_MESSAGES.already]);

    const page = await listReviews(me, workId, { sort: "hot", page: 1 });
    expect(page.mine).toMatchObject({ id, rating: 8, body: text("很好看"), mine: true });
    expect(page.reviews.map((r) => [r.id, r.rating])).toEqual([[id, 8]]);
    expect(page.cannotReview).toBeNull();

    await editReview(me, workId, { rating: "6", body: text("改一改") });
    const [row] = await rowsOf(workId);
    expect([row.id, row.rating, row.body]).toEqual([id, 6, text("改一改")]);

    // The author's page says why they cannot write one; a visitor sees the list.
    expect((await listReviews(owner, workId, { sort: "new", page: 1 })).cannotReview).toBe(REVIEW_MESSAGES.own);
    expect((await listReviews(null, workId, { sort: "new", page: 1 })).reviews).toHaveLength(1);

    await deleteReview(me, workId);
    expect(await rowsOf(workId)).toEqual([]);
    expect((await domainError(deleteReview(me, workId))).status).toBe(404);
    // After deleting, a new one may be written.
    await postReview(me, workId, { rating: "10", body: text("重新写") });
    expect(await rowsOf(workId)).toHaveLength(1);
  });

  it(`keeps one review per reader per work under 12 parallel posts (${databaseKind})`, async () => {
    const { workId } = await freeWork();
    const me = await reader();
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => postReview(me, workId, { rating: String((i % 10) + 1), body: text(`并发${i}`) })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused.map((r) => (r.reason as { message: string }).message)).toEqual(Array(11).fill(REVIEW_MESSAGES.already));
    expect(await rowsOf(workId)).toHaveLength(1);
    expect(await ratingSummary(workId)).toMatchObject({ count: 1 });
  });

  it("refuses ratings outside 1-10 and empty, short or long texts with clear messages, writing nothing", async () => {
    const { workId } = await freeWork();
    const me = await reader();
    for (const rating of ["0", "11", "-1", "7.5", "abc", "", undefined]) {
      const e = await domainError(postReview(me, workId, { rating, body: text("评分") }));
      expect([e.status, e.message, e.field]).toEqual([400, REVIEW_MESSAGES.ratingInvalid, "rating"]);
    }
    expect((await domainError(postReview(me, workId, { rating: "5", body: "   " }))).message).toBe(REVIEW_MESSAGES.empty);
    expect((await domainError(postReview(me, workId, { rating: "5", body: "\u200b\u200b" }))).message).toBe(REVIEW_MESSAGES.empty);
    expect((await domainError(postReview(me, workId, { rating: "5", body: "太短了" }))).message).toBe(REVIEW_MESSAGES.tooShort);
    expect((await domainError(postReview(me, workId, { rating: "5", body: "长".repeat(5001) }))).message).toBe(REVIEW_MESSAGES.tooLong);
    await postReview(me, workId, { rating: "5", body: "长".repeat(5000) });
    // A bad edit leaves the review as it was.
    expect((await domainError(editReview(me, workId, { rating: "12", body: text("改") }))).status).toBe(400);
    const [row] = await rowsOf(workId);
    expect([row.rating, Array.from(row.body).length]).toEqual([5, 5000]);
    expect((await domainError(editReview(await reader(), workId, { rating: "5", body: text("没写过") }))).message).toBe(REVIEW_MESSAGES.noneOfMine);
  });
});

describe("who may write a review", () => {
  it("refuses the author, works the reader cannot read, and banned accounts", async () => {
    const { owner, workId } = await freeWork();
    expect(await domainError(postReview(owner, workId, { rating: "10", body: text("自己的") }))).toMatchObject({ status: 403, message: REVIEW_MESSAGES.own });

    const [privateId, r18Id, paidId] = await insertWorks([
      { userId: owner.id, title: "私密", visibility: "private" },
      { userId: owner.id, title: "成人", rating: "r18" },
      { userId: owner.id, title: "付费", visibility: "public-vip", price: 10 },
    ]);
    await addChapter(paidId);
    const me = await reader();
    expect((await domainError(postReview(me, privateId, { rating: "5", body: text("私密") }))).status).toBe(404);
    expect((await domainError(listReviews(me, privateId, { sort: "hot", page: 1 }))).status).toBe(404);
    expect(await domainError(postReview(me, r18Id, { rating: "5", body: text("成人") }))).toMatchObject({ status: 403, message: REVIEW_MESSAGES.hidden });
    expect((await domainError(listReviews(null, r18Id, { sort: "hot", page: 1 }))).status).toBe(403);
    await setViewerPrefs(me.id, { showR18: true });
    await postReview({ ...me, showR18: true }, r18Id, { rating: "5", body: text("成人") });

    // A paid work sold whole: after buying it. Its 书评区 is open to read before.
    expect(await domainError(postReview(me, paidId, { rating: "5", body: text("付费") }))).toMatchObject({ status: 403, message: REVIEW_MESSAGES.locked });
    expect((await listReviews(me, paidId, { sort: "hot", page: 1 })).cannotReview).toBe(REVIEW_MESSAGES.locked);
    await db.transaction((tx) => credit(tx, me.id, 100, "测试充值"));
    await purchaseWork(me.id, paidId);
    await postReview(me, paidId, { rating: "9", body: text("付费") });

    // A work sold by chapter: its free chapters are readable, so a review may be written.
    const serial = await serialByChapter(owner.id, { count: 3, vipFrom: 2 });
    await postReview(me, serial.workId, { rating: "7", body: text("按章") });

    const banned = await reader();
    await db.update(users).set({ bannedAt: new Date(), banReason: "测试封禁" }).where(eq(users.id, banned.id));
    expect(await domainError(postReview(banned, workId, { rating: "5", body: text("封禁") }))).toMatchObject({ status: 403, message: REVIEW_MESSAGES.banned });
    expect(await rowsOf(workId)).toEqual([]);
  });
});

describe("the rating", () => {
  it(`shows the average only from ${REVIEW_MIN_RATINGS} ratings; hidden reviews and banned writers leave it`, async () => {
    const { workId } = await freeWork();
    const raters = await Promise.all(Array.from({ length: REVIEW_MIN_RATINGS + 1 }, () => reader()));
    const ratings = [10, 9, 8, 7, 4, 1];
    for (let i = 0; i < REVIEW_MIN_RATINGS - 1; i++) await postReview(raters[i], workId, { rating: String(ratings[i]), body: text(`第${i}位`) });
    expect(await ratingSummary(workId)).toEqual({ count: REVIEW_MIN_RATINGS - 1, average: null, min: REVIEW_MIN_RATINGS });

    const fifth = await postReview(raters[4], workId, { rating: "4", body: text("第五位") });
    expect(await ratingSummary(workId)).toEqual({ count: 5, average: 7.6, min: REVIEW_MIN_RATINGS });
    await postReview(raters[5], workId, { rating: "1", body: text("第六位") });
    expect(await ratingSummary(workId)).toMatchObject({ count: 6, average: 6.5 });

    // An operator hides the 4: out of the count and the average; its writer still sees it, marked.
    await reportReview(raters[0], workId, fifth.id, "广告");
    await decideReportedReview(actorOf(operator), fifth.id, "hide");
    expect(await ratingSummary(workId)).toMatchObject({ count: 5, average: 7 });
    const own = await listReviews(raters[4], workId, { sort: "new", page: 1 });
    expect(own.mine).toMatchObject({ id: fifth.id, hidden: true });
    expect(own.reviews.map((r) => r.id)).not.toContain(fifth.id);

    // A banned writer's review leaves too, and is back when the ban is lifted.
    await db.update(users).set({ bannedAt: new Date(), banReason: "测试封禁" }).where(eq(users.id, raters[5].id));
    expect(await ratingSummary(workId)).toEqual({ count: 4, average: null, min: REVIEW_MIN_RATINGS });
    await db.update(users).set({ bannedAt: null, banReason: null }).where(eq(users.id, raters[5].id));
    expect(await ratingSummary(workId)).toMatchObject({ count: 5, average: 7 });
  });
});

describe("the author's 精华, 置顶 and reply; 热门 and 最新", () => {
  it("orders 置顶 first, then 精华, then likes; only the author may mark or reply, once, editable", async () => {
    const { owner, workId } = await freeWork();
    const [a, b, c, d] = await Promise.all([reader(), reader(), reader(), reader()]);
    const ra = await postReview(a, workId, { rating: "9", body: text("甲") });
    const rb = await postReview(b, workId, { rating: "8", body: text("乙") });
    const rc = await postReview(c, workId, { rating: "7", body: text("丙") });
    await setReviewLike(d, workId, rb.id, true);
    await setReviewLike(d, workId, rb.id, true); // twice counts once
    await setReviewLike(a, workId, rb.id, true);
    await setFeatured(owner, workId, rc.id, true);
    await setPinned(owner, workId, ra.id, true);

    const hot = await listReviews(d, workId, { sort: "hot", page: 1 });
    expect(hot.reviews.map((r) => [r.id, r.pinned, r.featured, r.likeCount])).toEqual([
      [ra.id, true, false, 0],
      [rc.id, false, true, 0],
      [rb.id, false, false, 2],
    ]);
    expect(hot.reviews[2].liked).toBe(true);
    const newest = await listReviews(null, workId, { sort: "new", page: 1 });
    expect(newest.reviews.map((r) => r.id)).toEqual([ra.id, rc.id, rb.id]);

    await replyToReview(owner, workId, rb.id, "谢谢你的喜欢");
    await replyToReview(owner, workId, rb.id, "谢谢，下一卷更精彩");
    const replied = (await listReviews(null, workId, { sort: "hot", page: 1 })).reviews.find((r) => r.id === rb.id);
    expect(replied?.authorReply?.body).toBe("谢谢，下一卷更精彩");

    // One at a time: a refusal made before it is awaited would be an unhandled rejection.
    for (const attempt of [() => setFeatured(a, workId, rb.id, true), () => setPinned(a, workId, rb.id, true), () => replyToReview(a, workId, rb.id, "冒充作者")]) {
      expect(await domainError(attempt())).toMatchObject({ status: 403, message: REVIEW_MESSAGES.notAuthor });
    }
    expect((await domainError(replyToReview(owner, workId, rb.id, " "))).message).toBe(REVIEW_MESSAGES.replyEmpty);
    expect((await domainError(setFeatured(owner, workId, 999_999_999, true))).status).toBe(404);
    // A review addressed through another work is not found there.
    const other = await freeWork();
    expect((await domainError(setFeatured(other.owner, other.workId, ra.id, true))).status).toBe(404);
    await setPinned(owner, workId, ra.id, false);
    expect((await listReviews(null, workId, { sort: "new", page: 1 })).reviews.map((r) => r.id)).toEqual([rc.id, rb.id, ra.id]);
  });
});

describe("screening and reports", () => {
  it("refuses 禁止 words naming them, refuses 审核 words, masks 替换 words for readers but not in the writer's edit box", async () => {
    const { workId } = await freeWork();
    const me = await reader();
    const forbidden = await domainError(postReview(me, workId, { rating: "5", body: text("里面有书评禁止词") }));
    expect([forbidden.status, forbidden.message.includes("书评禁止词")]).toEqual([400, true]);
    expect(await domainError(postReview(me, workId, { rating: "5", body: text("里面有书评待审词") }))).toMatchObject({ status: 400, message: REVIEW_MESSAGES.held });
    expect(await rowsOf(workId)).toEqual([]);

    await postReview(me, workId, { rating: "5", body: text("里面有书评替换词") });
    const shown = await listReviews(null, workId, { sort: "hot", page: 1 });
    expect(shown.reviews[0].body).not.toContain("书评替换词");
    expect(shown.reviews[0].body).toContain("＊");
    expect((await listReviews(me, workId, { sort: "hot", page: 1 })).mine?.editBody).toContain("书评替换词");
  });

  it("reports reach the back office's 书评举报; an operator deletes one, with its audit row", async () => {
    const { workId } = await freeWork();
    const [me, you] = await Promise.all([reader(), reader()]);
    const { id } = await postReview(me, workId, { rating: "2", body: text("广告链接") });
    expect((await domainError(reportReview(you, workId, id, ""))).message).toBe(REVIEW_MESSAGES.reasonEmpty);
    await reportReview(you, workId, id, "广告");
    await reportReview(you, workId, id, "广告，还有人身攻击"); // again: the reason is updated

    const queue = await listReportedReviews({ open: true, page: 1 });
    const listed = queue.items.find((r) => r.id === id);
    expect(listed?.reports.map((r) => r.reason)).toEqual(["广告，还有人身攻击"]);

    // 驳回举报 on the page resolves the reports: the review leaves the open queue and stays in
    // 显示全部, marked. A decision the page does not offer is a 400, an id that is none a 404.
    const page = await import("~/routes/admin/book-review-reports");
    const cookie = await adminCookieFor(operator.id);
    const decide = (reviewId: string, decision: string) =>
      callAction(page, request("/admin/book-review-reports?show=all", { cookie }, { reviewId, decision }));
    expect((await decide(String(id), "explode")).status).toBe(400);
    expect((await decide("abc", "dismiss")).status).toBe(404);
    expect((await decide(String(id), "dismiss")).location).toBe("/admin/book-review-reports?show=all&notice=reports-dismissed");
    expect((await listReportedReviews({ open: true, page: 1 })).items.map((r) => r.id)).not.toContain(id);
    const all = await listReportedReviews({ open: false, page: 1 });
    expect(all.items.find((r) => r.id === id)?.reports.map((r) => r.resolvedAt instanceof Date)).toEqual([true]);

    await decideReportedReview(actorOf(operator), id, "delete");
    expect(await rowsOf(workId)).toEqual([]);
    const [audit] = await db
      .select()
      .from(adminAuditLog)
      .where(and(eq(adminAuditLog.targetType, "book_review"), eq(adminAuditLog.targetId, String(id))))
      .orderBy(desc(adminAuditLog.id));
    expect(audit.action).toBe("book-review.delete");
    expect((await domainError(decideReportedReview(actorOf(operator), id, "hide"))).status).toBe(404);
  });
});

describe("the 书评区 page", () => {
  it("answers bad input with a 4xx and a Chinese message, a visitor's post with the login redirect, a good post with a redirect", async () => {
    const { workId } = await freeWork();
    const me = await reader();
    const cookie = await sessionCookieFor(me.id);
    const { action, loader } = await import("~/routes/shell/reader/reviews");
    const path = `/works/${workId}/reviews`;
    const post = (fields: Record<string, string>, who = cookie) => callThroughRoutes(action as never, { request: userRequest(who, path, fields) });

    const bad = await post({ intent: "post", rating: "11", body: text("页面") });
    expect([statusOf(bad), bodyOf<{ error: string }>(bad).error]).toEqual([400, REVIEW_MESSAGES.ratingInvalid]);
    expect(redirectOf(await post({ intent: "post", rating: "9", body: text("页面") }))).toMatch(new RegExp(`^302 ${path}\\?done=post#r-\\d+$`));
    const again = await post({ intent: "post", rating: "9", body: text("页面") });
    expect([statusOf(again), bodyOf<{ error: string }>(again).error]).toEqual([409, REVIEW_MESSAGES.already]);
    expect(redirectOf(await post({ intent: "post", rating: "9", body: text("访客") }, "").catch((thrown: unknown) => thrown))).toMatch(/^302 \/\?auth=login/);

    const page = (await callThroughRoutes(loader as never, { request: userRequest("", path) })) as { summary: { count: number; average: null }; reviews: unknown[] };
    expect(page.summary).toMatchObject({ count: 1, average: null });
    expect(page.reviews).toHaveLength(1);
    const missing = await callThroughRoutes(loader as never, { request: userRequest("", "/works/999999999/reviews") }).catch((e: unknown) => e);
    expect(statusOf(missing)).toBe(404);
  });
});
