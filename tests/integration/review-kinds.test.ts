import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, chapterComments, chapters, commentReports, notifications, reviewItems, users } from "~/db/schema";
import { decideReportedComment } from "~/server/admin/report-queues.server";
import { REVIEW_MESSAGES } from "~/schemas/review";
import { claimItem, claimNext, decideItem, reviewItemView, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { createWork } from "~/server/catalog/works.server";
import { inboxLineText } from "~/components/notifications/inbox-line-text";
import { listComments, postComment, setHidden } from "~/server/community/comments.server";
import { listNotifications } from "~/server/community/notifications.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { insertChapter, renameChapter } from "~/server/studio/chapters.server";
import { appealReview, drawnForSample, reviewNotes } from "~/server/studio/review.server";
import { publishWork } from "~/server/studio/work-create.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { actorOf, createAdmin } from "./admin-fixtures";
import { bodyOf, callThroughRoutes, redirectOf, statusOf } from "./route-chain";

/**
 * The review queue's other kinds of item (docs/product.md#review, decision 206): 跟踪审读
 * samples of trusted authors' chapters, the author's appeal to the 总编辑, comments held by
 * a 审核 word; and the author's inbox line for each decision on their chapter.
 */

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };
const viewerOf = (id: string) => ({ id, showR18: false, showAi: true });

let chief: Awaited<ReturnType<typeof createAdmin>>;
let reviewer: Awaited<ReturnType<typeof createAdmin>>;

async function policy(samplePercent: number, newAuthors = false) {
  await saveReviewPolicy(actorOf(chief), { newAuthors, trustedAfter: 10, aiWorks: false, samplePercent, unsignedAuthors: false });
}
async function newSeries(userId: string) {
  const work = await createWork(userId, { ...base, title: "连载", type: "series", status: "ongoing" }, [{ title: "第一章", content: "开头。" }], null);
  return work.id;
}
async function items(chapterId: number) {
  return db.select().from(reviewItems).where(eq(reviewItems.chapterId, chapterId)).orderBy(reviewItems.id);
}
async function inbox(userId: string) {
  return (await db.select().from(notifications).where(and(eq(notifications.userId, userId), eq(notifications.kind, "review"))).orderBy(desc(notifications.id))).map((n) => n.body);
}
async function decide(admin: { id: string; email: string }, role: "reviewer" | "chief_editor", id: number, decision: "approve" | "return" | "reject", note = "") {
  if (role === "reviewer") await claimItem(actorOf(admin), role, id);
  return decideItem(actorOf(admin), role, id, decision, note);
}

beforeAll(async () => {
  chief = await createAdmin({ role: "chief_editor" });
  reviewer = await createAdmin({ role: "reviewer" });
  const operator = await createAdmin({ role: "operator" });
  await addScreeningWord(actorOf(operator), { word: "抽检替换词", category: "其他", level: "replace" });
  await addScreeningWord(actorOf(operator), { word: "评论待审词", category: "广告", level: "review" });
  await reloadScreening();
});

describe("跟踪审读", () => {
  it("draws trusted authors' released chapters by the policy's share, and every one holding a word of the list; they stay out", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await policy(0);
    const plain = await insertChapter(author.id, workId, { title: "平常章", content: "平常的正文。" }, "end");
    const hit = await insertChapter(author.id, workId, { title: "含词章", content: "这里有抽检替换词。" }, "end");
    expect(await items(plain)).toEqual([]);
    expect((await items(hit)).map((i) => [i.kind, i.status, i.reason])).toEqual([["sample", "pending", "跟踪审读（含词库词语）"]]);
    await policy(100);
    const drawn = await insertChapter(author.id, workId, { title: "抽中章", content: "被抽中的正文。" }, "end");
    expect((await items(drawn)).map((i) => [i.kind, i.reason])).toEqual([["sample", "跟踪审读（抽样）"]]);
    // Readers have all three at once: a sample is reviewed after release.
    expect((await getChapterByOrder(workId, 4))?.title).toBe("抽中章");
    // A new work's chapters by TXT are drawn alike, in one go (settleNewWork).
    const txt = Buffer.from("####第一章\n干净。\n####第二章\n又见抽检替换词。\n####第三章\n平常。\n");
    const created = await publishWork(author.id, { ...base, title: "新书", type: "multi_chapter", status: "completed" } as never, {
      cover: null,
      txt: { name: "新书.txt", type: "text/plain", size: txt.length, chunks: [txt] },
    });
    const sampledRows = await db
      .select({ title: chapters.title, state: chapters.state, kind: reviewItems.kind })
      .from(chapters)
      .leftJoin(reviewItems, eq(reviewItems.chapterId, chapters.id))
      .where(eq(chapters.workId, created.id))
      .orderBy(chapters.position);
    expect(sampledRows).toEqual(["第一章", "第二章", "第三章"].map((title) => ({ title, state: "published", kind: "sample" })));
    // The share: about 10% of chapter ids are drawn at 10 (the draw is a hash, so a thousand
    // ids are counted directly rather than released one by one).
    const drawnAt10 = Array.from({ length: 1000 }, (_, i) => drawnForSample(i + 1, 10, false)).filter(Boolean).length;
    expect(drawnAt10).toBeGreaterThan(60);
    expect(drawnAt10).toBeLessThan(140);
    expect(Array.from({ length: 1000 }, (_, i) => drawnForSample(i + 1, 0, false)).filter(Boolean)).toEqual([]);
    await policy(0);
  });

  it("无问题 or 要求作者修改 (the author is told, the chapter stays out); 拒绝 is not a sample's decision; an edit moves the version reviewed", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await policy(100);
    const chapterId = await insertChapter(author.id, workId, { title: "抽检章", content: "第一版。" }, "end");
    const [item] = await items(chapterId);
    const [chapter] = await db.select({ revision: chapters.revision }).from(chapters).where(eq(chapters.id, chapterId));
    await saveChapter(author.id, workId, chapterId, { kind: "save", title: "抽检章", content: "第二版。", baseRevision: chapter.revision });
    expect((await reviewItemView(actorOf(reviewer), item.id)).chapter?.content).toBe("第二版。");
    await renameChapter(author.id, workId, chapterId, "抽检章");
    const refused = await domainError(decide(reviewer, "reviewer", item.id, "reject", "不行"));
    expect(refused.message).toBe(REVIEW_MESSAGES.decisionNotFor("sample"));
    expect(await decide(reviewer, "reviewer", item.id, "return", "第二段有不妥描写")).toBe("sample-returned");
    expect((await db.select({ state: chapters.state }).from(chapters).where(eq(chapters.id, chapterId)))[0].state).toBe("published");
    expect(await inbox(author.id)).toEqual(["章节「抽检章」在跟踪审读中发现问题，请尽快修改。原因：第二段有不妥描写"]);
    const other = await insertChapter(author.id, workId, { title: "无问题章", content: "好。" }, "end");
    expect(await decide(reviewer, "reviewer", (await items(other))[0].id, "approve")).toBe("passed");
    expect((await inbox(author.id))[0]).toBe("章节「无问题章」跟踪审读无问题");
    // The line says 审核通知 and leads to the author's chapter list.
    const [line] = (await listNotifications(author.id, 1)).lines;
    expect([inboxLineText(line), line.href]).toEqual(["审核通知：章节「无问题章」跟踪审读无问题", `/works/${workId}/chapters`]);
    await policy(0);
  });
});

describe("appeals", () => {
  async function returned(decision: "return" | "reject" = "return") {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    const chapterId = await insertChapter(author.id, workId, { title: "申诉章", content: "申诉章的正文。" }, "end");
    const [item] = await items(chapterId);
    await decide(reviewer, "reviewer", item.id, decision, "情节不妥");
    return { author, workId, chapterId, itemId: item.id };
  }

  it("go once to a 总编辑: a 审核员 cannot take one; granted, the chapter goes out and the author is told", async () => {
    const r = await returned();
    expect(await inbox(r.author.id)).toEqual(["章节「申诉章」被退回修改，请修改后重新发布。原因：情节不妥"]);
    expect((await reviewNotes(db, r.workId, [r.chapterId])).get(r.chapterId)).toMatchObject({ status: "returned", appeal: "open" });
    await appealReview(r.author.id, r.workId, r.chapterId, "  这段是全书的伏笔，并无不妥  ");
    // The same appeal sent again (a double click) answers alike and makes no second item.
    await appealReview(r.author.id, r.workId, r.chapterId, "这段是全书的伏笔，并无不妥");
    const appeal = (await items(r.chapterId)).filter((i) => i.kind === "appeal");
    expect(appeal.map((a) => [a.status, a.appealOf, a.authorNote])).toEqual([["pending", r.itemId, "这段是全书的伏笔，并无不妥"]]);
    expect((await reviewNotes(db, r.workId, [r.chapterId])).get(r.chapterId)?.appeal).toBe("pending");

    const other = await createAdmin({ role: "reviewer" });
    expect(await claimNext(actorOf(other), "reviewer")).not.toBe(appeal[0].id);
    expect((await domainError(claimItem(actorOf(other), "reviewer", appeal[0].id))).message).toBe(REVIEW_MESSAGES.appealForChief);
    expect((await domainError(decideItem(actorOf(other), "reviewer", appeal[0].id, "approve", ""))).status).toBe(403);

    const view = await reviewItemView(actorOf(chief), appeal[0].id);
    expect(view.appeal).toMatchObject({ authorNote: "这段是全书的伏笔，并无不妥", status: "已退回修改", note: "情节不妥" });
    expect(await decide(chief, "chief_editor", appeal[0].id, "approve")).toBe("published");
    expect((await getChapterByOrder(r.workId, 2))?.title).toBe("申诉章");
    expect((await inbox(r.author.id))[0]).toBe("章节「申诉章」已通过审核并发布（申诉成立）");
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.approve"), eq(adminAuditLog.targetId, String(r.chapterId))));
    expect(audit.after).toMatchObject({ item: appeal[0].id, kind: "appeal", status: "approved" });
  });

  it("refused: the decision stands, shown beside the chapter, and cannot be appealed again", async () => {
    const r = await returned("reject");
    await appealReview(r.author.id, r.workId, r.chapterId, "请再看看");
    const [appeal] = (await items(r.chapterId)).filter((i) => i.kind === "appeal");
    expect(await decide(chief, "chief_editor", appeal.id, "reject", "维持")).toBe("upheld");
    expect((await inbox(r.author.id))[0]).toBe("章节「申诉章」的申诉已被驳回，维持原审核结果。原因：维持");
    expect((await reviewNotes(db, r.workId, [r.chapterId])).get(r.chapterId)).toMatchObject({ status: "rejected", note: "维持", onAppeal: true, appeal: "closed" });
    expect((await domainError(appealReview(r.author.id, r.workId, r.chapterId, "再申诉一次"))).message).toBe(REVIEW_MESSAGES.appealTwice);
    expect((await db.select({ state: chapters.state }).from(chapters).where(eq(chapters.id, r.chapterId)))[0].state).toBe("draft");
  });

  it("refuses bad appeals with a message, changing nothing; a change of the chapter withdraws a pending one", async () => {
    const r = await returned();
    const stranger = await createUser();
    expect((await domainError(appealReview(r.author.id, r.workId, r.chapterId, "   "))).message).toBe(REVIEW_MESSAGES.appealNote);
    expect((await domainError(appealReview(r.author.id, r.workId, r.chapterId, "长".repeat(501)))).message).toBe(REVIEW_MESSAGES.appealTooLong);
    expect((await domainError(appealReview(stranger.id, r.workId, r.chapterId, "别人的"))).status).toBe(404);
    const [other] = await db.select({ id: chapters.id }).from(chapters).where(and(eq(chapters.workId, r.workId), eq(chapters.title, "第一章")));
    expect((await domainError(appealReview(r.author.id, r.workId, other.id, "没被退回"))).message).toBe(REVIEW_MESSAGES.appealNotAllowed);
    expect((await items(r.chapterId)).filter((i) => i.kind === "appeal")).toEqual([]);

    await appealReview(r.author.id, r.workId, r.chapterId, "请复核");
    const [chapter] = await db.select({ revision: chapters.revision }).from(chapters).where(eq(chapters.id, r.chapterId));
    await saveChapter(r.author.id, r.workId, r.chapterId, { kind: "autosave", content: "改过的正文。", baseRevision: chapter.revision });
    expect((await items(r.chapterId)).filter((i) => i.kind === "appeal").map((i) => i.status)).toEqual(["withdrawn"]);
    // Changed since the decision: nothing left to appeal.
    expect((await reviewNotes(db, r.workId, [r.chapterId])).get(r.chapterId)?.appeal).toBe("closed");
    expect((await domainError(appealReview(r.author.id, r.workId, r.chapterId, "再来"))).message).toBe(REVIEW_MESSAGES.appealNotAllowed);
  });

  it("a rename withdraws a pending appeal; one whose text changed by any other way is withdrawn when a 总编辑 opens it", async () => {
    const r = await returned();
    await appealReview(r.author.id, r.workId, r.chapterId, "请复核");
    await renameChapter(r.author.id, r.workId, r.chapterId, "改名章");
    expect((await items(r.chapterId)).filter((i) => i.kind === "appeal").map((i) => i.status)).toEqual(["withdrawn"]);

    const s = await returned();
    await appealReview(s.author.id, s.workId, s.chapterId, "请复核");
    const [appeal] = (await items(s.chapterId)).filter((i) => i.kind === "appeal");
    await db.update(chapters).set({ content: "别处改动的正文。" }).where(eq(chapters.id, s.chapterId));
    expect(await decide(chief, "chief_editor", appeal.id, "approve")).toBe("appeal-withdrawn");
    expect((await items(s.chapterId)).find((i) => i.id === appeal.id)?.status).toBe("withdrawn");
    expect((await db.select({ state: chapters.state }).from(chapters).where(eq(chapters.id, s.chapterId)))[0].state).toBe("draft");
  });

  it("the appeal page: posts an appeal without JavaScript, and answers bad input with a message", async () => {
    const { action, loader } = await import("~/routes/shell/studio/chapter-appeal");
    const r = await returned();
    const cookie = await sessionCookieFor(r.author.id);
    const path = `/works/${r.workId}/chapters/${r.chapterId}/appeal`;
    const params = { id: String(r.workId), chapterId: String(r.chapterId) };
    const post = async (who: string, note: string) => callThroughRoutes(action as never, { request: userRequest(who, path, { note }), params });
    const empty = await post(cookie, "");
    expect(statusOf(empty)).toBe(400);
    expect(JSON.stringify(bodyOf(empty))).toContain(REVIEW_MESSAGES.appealNote);
    const ok = await post(cookie, "请复核这一章");
    expect(redirectOf(ok)).toBe(`302 /works/${r.workId}/chapters/${r.chapterId}`);
    expect((await items(r.chapterId)).filter((i) => i.kind === "appeal").map((i) => i.authorNote)).toEqual(["请复核这一章"]);
    const page = (await callThroughRoutes(loader as never, { request: userRequest(cookie, path), params })) as { review: { appeal: string } };
    expect(page.review.appeal).toBe("pending");
    const stranger = await sessionCookieFor((await createUser()).id);
    expect(statusOf(await post(stranger, "x"))).toBe(404);
  });
});

describe("comments held by a 审核 word", () => {
  it("wait for a reviewer, seen only by their writer; 通过 shows them to everyone, a reply counts and tells its parent's writer then", async () => {
    const [author, writer, reader] = [await createUser(), await createUser(), await createUser()];
    const workId = await newSeries(author.id);
    const top = await postComment(viewerOf(reader.id), { workId, order: 1, paragraph: null, parentId: null, body: "好看" });
    const held = await postComment(viewerOf(writer.id), { workId, order: 1, paragraph: null, parentId: top.id, body: "来看评论待审词" });
    expect(held.held).toBe(true);
    const bodies = async (who: string) => (await listComments(viewerOf(who), workId, 1, { paragraph: null, sort: "new", page: 1 })).comments.flatMap((c) => [c, ...c.replies]).map((c) => [c.body, c.held]);
    expect(await bodies(writer.id)).toEqual([["好看", null], ["来看评论待审词", "pending"]]);
    expect(await bodies(reader.id)).toEqual([["好看", null]]);
    // The work's author sees what they hid, not what waits for a reviewer, and cannot show it.
    expect(await bodies(author.id)).toEqual([["好看", null]]);
    expect((await domainError(setHidden(viewerOf(author.id), held.id, false))).status).toBe(404);
    const parentCount = async () => (await db.select({ n: chapterComments.replyCount }).from(chapterComments).where(eq(chapterComments.id, top.id)))[0].n;
    expect(await parentCount()).toBe(0);
    const [item] = await db.select().from(reviewItems).where(eq(reviewItems.commentId, held.id));
    expect(item).toMatchObject({ kind: "comment", status: "pending", reason: "评论含待审词语" });
    expect((await reviewItemView(actorOf(reviewer), item.id)).comment).toBe("来看评论待审词");
    expect((await domainError(decide(reviewer, "reviewer", item.id, "return", "改"))).message).toBe(REVIEW_MESSAGES.decisionNotFor("comment"));

    expect(await decideItem(actorOf(reviewer), "reviewer", item.id, "approve", "")).toBe("comment-shown");
    expect(await bodies(reader.id)).toEqual([["好看", null], ["来看评论待审词", null]]);
    expect(await parentCount()).toBe(1);
    const told = await db.select().from(notifications).where(and(eq(notifications.userId, reader.id), eq(notifications.kind, "reply")));
    expect(told).toHaveLength(1);
  });

  it("拒绝 keeps a comment from everyone but its writer, marked; the queue item is audited on the comment", async () => {
    const [author, writer, reader] = [await createUser(), await createUser(), await createUser()];
    const workId = await newSeries(author.id);
    const held = await postComment(viewerOf(writer.id), { workId, order: 1, paragraph: null, parentId: null, body: "评论待审词在此" });
    const [item] = await db.select().from(reviewItems).where(eq(reviewItems.commentId, held.id));
    expect(await decide(reviewer, "reviewer", item.id, "reject", "广告")).toBe("comment-refused");
    const thread = async (who: string) => (await listComments(viewerOf(who), workId, 1, { paragraph: null, sort: "new", page: 1 })).comments.map((c) => [c.body, c.held]);
    expect(await thread(writer.id)).toEqual([["评论待审词在此", "rejected"]]);
    expect(await thread(reader.id)).toEqual([]);
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.reject"), eq(adminAuditLog.targetType, "comment")));
    expect(audit).toMatchObject({ targetId: String(held.id), reason: "广告" });
    // The work's author's inbox has no line about a reader's comment.
    expect(await inbox(author.id)).toEqual([]);
    // Nor does an operator's 恢复显示 on the reports page show it (reported by its writer's friend, say).
    await db.insert(commentReports).values({ commentId: held.id, userId: reader.id, reason: "看看" });
    const refused = await domainError(decideReportedComment(actorOf(chief), held.id, "restore"));
    expect([refused.status, refused.message]).toEqual([409, "该评论含待审词语，只能在审核队列中通过后显示，本次操作未做任何更改"]);
    expect(await thread(reader.id)).toEqual([]);
  });
});
