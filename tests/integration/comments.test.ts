import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapterComments, commentAnchors, commentReports, rateLimits } from "~/db/schema";
import {
  COMMENT_MESSAGES,
  COMMENT_RATE,
  commentCounts,
  listComments,
  postComment,
  reportComment,
  setHidden,
  setLike,
  setMuted,
  settleReanchors,
} from "~/server/community/comments.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { createUser } from "../fixtures/accounts";
import { addChapter, insertWorks } from "../fixtures/works";
import { domainError } from "../fixtures/domain-error";

type U = { id: string; showR18: boolean; showAi: boolean };
const viewer = (id: string): U => ({ id, showR18: false, showAi: true });

const P = [
  "夜色渐深，城南的老茶馆里只剩下最后一盏灯。",
  "掌柜的把算盘推到一边，抬头看着门口那个浑身湿透的年轻人。",
  "“客官，打烊了。”他说，声音里却没有赶人的意思。",
  "年轻人没有说话，只是从怀里摸出一块沾着泥的玉佩，轻轻放在柜台上。",
  "掌柜的脸色变了。",
];

const f = {} as { owner: U; reader: U; other: U; buyer: U; free: number; paid: number; freeChapter: number };


beforeAll(async () => {
  const [owner, reader, other, buyer] = [await createUser(), await createUser(), await createUser(), await createUser()];
  Object.assign(f, { owner: viewer(owner.id), reader: viewer(reader.id), other: viewer(other.id), buyer: viewer(buyer.id) });
  [f.free, f.paid] = await insertWorks([
    { userId: owner.id, title: "茶馆" },
    { userId: owner.id, title: "付费茶馆", visibility: "public-vip", price: 10 },
  ]);
  f.freeChapter = await addChapter(f.free, P.join("\n\n"));
  await addChapter(f.paid, P.join("\n"));
  await db.transaction((tx) => credit(tx, buyer.id, 100, "测试充值"));
  await purchaseWork(buyer.id, f.paid);
});

describe("posting and listing", () => {
  it("posts 本章说, 段评 and replies; lists them by 热门 and 最新 with the author marked", async () => {
    const chapterTalk = await postComment(f.reader, { workId: f.free, order: 1, paragraph: null, parentId: null, body: " 好看！ " });
    const onP1 = await postComment(f.reader, { workId: f.free, order: 1, paragraph: 1, parentId: null, body: "掌柜的有故事" });
    const onP1b = await postComment(f.other, { workId: f.free, order: 1, paragraph: 1, parentId: null, body: "年轻人是谁" });
    const reply = await postComment(f.owner, { workId: f.free, order: 1, paragraph: null, parentId: onP1.id, body: "下一章揭晓" });
    expect(reply.paragraph).toBe(1);
    await setLike(f.other, onP1.id, true);
    await setLike(f.other, onP1.id, true); // twice counts once

    const hot = await listComments(f.other, f.free, 1, { paragraph: 1, sort: "hot", page: 1 });
    expect(hot.paragraph).toEqual({ index: 1, text: P[1] });
    expect(hot.comments.map((c) => c.id)).toEqual([onP1.id, onP1b.id]);
    expect(hot.comments[0]).toMatchObject({ likeCount: 1, liked: true, replyCount: 1 });
    expect(hot.comments[0].replies).toMatchObject([{ id: reply.id, body: "下一章揭晓", byWorkAuthor: true }]);
    const newest = await listComments(null, f.free, 1, { paragraph: 1, sort: "new", page: 1 });
    expect(newest.comments.map((c) => c.id)).toEqual([onP1b.id, onP1.id]);
    expect(newest.comments[1].liked).toBe(false);

    const talk = await listComments(null, f.free, 1, { paragraph: null, sort: "new", page: 1 });
    expect(talk.comments.map((c) => [c.id, c.body])).toEqual([[chapterTalk.id, "好看！"]]);

    const counts = await commentCounts(f.freeChapter);
    expect(counts).toEqual({ paragraphs: { 1: 2 }, chapter: 1 });

    await setLike(f.other, onP1.id, false);
    const after = await listComments(f.other, f.free, 1, { paragraph: 1, sort: "hot", page: 1 });
    expect(after.comments.find((c) => c.id === onP1.id)).toMatchObject({ likeCount: 0, liked: false });
  });

  it("refuses bad input with clear messages and changes nothing", async () => {
    const before = await db.$count(chapterComments);
    const base = { workId: f.free, order: 1, paragraph: null, parentId: null };
    expect((await domainError(postComment(f.reader, { ...base, body: "   " }))).message).toBe(COMMENT_MESSAGES.empty);
    expect((await domainError(postComment(f.reader, { ...base, body: "字".repeat(501) }))).message).toBe(COMMENT_MESSAGES.tooLong);
    expect((await domainError(postComment(f.reader, { ...base, paragraph: 99, body: "哪一段" }))).status).toBe(404);
    expect((await domainError(postComment(f.reader, { ...base, order: 9, body: "哪一章" }))).status).toBe(404);
    expect((await domainError(postComment(f.reader, { ...base, parentId: 987654321, body: "回复" }))).status).toBe(404);
    const top = await postComment(f.reader, { ...base, body: "楼主" });
    const reply = await postComment(f.other, { ...base, parentId: top.id, body: "二楼" });
    expect((await domainError(postComment(f.reader, { ...base, parentId: reply.id, body: "三楼" }))).message).toBe(COMMENT_MESSAGES.replyToReply);
    await setHidden(f.owner, top.id, true);
    expect((await domainError(postComment(f.other, { ...base, parentId: top.id, body: "还能回吗" }))).message).toBe(COMMENT_MESSAGES.replyToHidden);
    expect(await db.$count(chapterComments)).toBe(before + 2);
  });

  it("keeps a paid chapter's comments to those who can read it", async () => {
    const base = { workId: f.paid, order: 1, paragraph: 0, parentId: null };
    const posted = await postComment(f.buyer, { ...base, body: "买了不亏" });
    await postComment(f.owner, { ...base, body: "谢谢支持" });
    expect((await domainError(postComment(f.other, { ...base, body: "白嫖" }))).status).toBe(403);
    expect((await domainError(listComments(f.other, f.paid, 1, { paragraph: 0, sort: "hot", page: 1 }))).status).toBe(403);
    expect((await domainError(listComments(null, f.paid, 1, { paragraph: 0, sort: "hot", page: 1 }))).message).toBe(COMMENT_MESSAGES.locked);
    expect((await domainError(setLike(f.other, posted.id, true))).status).toBe(403);
    expect((await domainError(reportComment(f.other, posted.id, "广告"))).status).toBe(403);
    const list = await listComments(f.buyer, f.paid, 1, { paragraph: 0, sort: "new", page: 1 });
    expect(list.comments.map((c) => c.byWorkAuthor)).toEqual([true, false]);
  });

  it("hides for the author only; a hidden comment stays visible to its writer", async () => {
    const mine = await postComment(f.reader, { workId: f.free, order: 1, paragraph: 3, parentId: null, body: "玉佩！" });
    expect((await domainError(setHidden(f.other, mine.id, true))).status).toBe(404);
    await setHidden(f.owner, mine.id, true);
    const ids = async (who: U | null) =>
      (await listComments(who, f.free, 1, { paragraph: 3, sort: "new", page: 1 })).comments.map((c) => [c.id, c.hidden]);
    expect(await ids(f.other)).toEqual([]);
    expect(await ids(null)).toEqual([]);
    expect(await ids(f.reader)).toEqual([[mine.id, true]]);
    expect(await ids(f.owner)).toEqual([[mine.id, true]]);
    expect((await commentCounts(f.freeChapter)).paragraphs[3]).toBeUndefined();
    expect((await domainError(setLike(f.other, mine.id, true))).status).toBe(404);
    await setHidden(f.owner, mine.id, false);
    expect(await ids(f.other)).toEqual([[mine.id, false]]);
  });

  it("stores reports with their reason, once per reader", async () => {
    const c = await postComment(f.other, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "加群看全文" });
    expect((await domainError(reportComment(f.reader, c.id, ""))).message).toBe(COMMENT_MESSAGES.reasonEmpty);
    await reportComment(f.reader, c.id, "广告");
    await reportComment(f.reader, c.id, "广告引流");
    const rows = await db.select().from(commentReports).where(eq(commentReports.commentId, c.id));
    expect(rows).toMatchObject([{ userId: f.reader.id, reason: "广告引流" }]);
  });

  it("lets the author mute a commenter on their work", async () => {
    const user = viewer((await createUser()).id);
    const c = await postComment(user, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "第一条" });
    expect((await domainError(setMuted(f.reader, c.id, true))).status).toBe(404);
    await setMuted(f.owner, c.id, true);
    expect((await domainError(postComment(user, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "第二条" }))).message).toBe(
      COMMENT_MESSAGES.muted,
    );
    await setMuted(f.owner, c.id, false);
    await postComment(user, { workId: f.free, order: 1, paragraph: null, parentId: null, body: "第三条" });
  });

  it("limits a user to 10 comments a minute, counted in the database", async () => {
    const user = viewer((await createUser()).id);
    const post = (n: number) => postComment(user, { workId: f.free, order: 1, paragraph: null, parentId: null, body: `刷屏${n}` });
    for (let i = 0; i < COMMENT_RATE.limit; i++) await post(i);
    const refused = await domainError(post(99));
    expect([refused.status, refused.message]).toEqual([429, COMMENT_MESSAGES.rateLimited]);
    const [row] = await db.select().from(rateLimits).where(eq(rateLimits.key, `comments:${user.id}`));
    expect(row.count).toBeGreaterThan(COMMENT_RATE.limit);
  });
});

describe("re-anchoring after the author edits the chapter", () => {
  async function anchored(chapterId: number) {
    const rows = await db
      .select({ body: chapterComments.body, index: commentAnchors.paragraphIndex, text: commentAnchors.paragraphText })
      .from(chapterComments)
      .innerJoin(commentAnchors, eq(commentAnchors.id, chapterComments.anchorId))
      .where(eq(chapterComments.chapterId, chapterId));
    return Object.fromEntries(rows.map((r) => [r.body, { ...r, detached: r.index === null }]));
  }

  it("leaves 段评 where readers see them through an autosave of the published chapter, and moves them on 保存", async () => {
    const [work] = await insertWorks([{ userId: f.owner.id, title: "自动保存" }]);
    const chapterId = await addChapter(work, P.join("\n"));
    await postComment(f.reader, { workId: work, order: 1, paragraph: 0, parentId: null, body: "评开头" });
    const moved = ["楔子。", ...P].join("\n\n");
    // The autosave is a working copy (decision 095): readers' paragraphs, and the comments, stay.
    const draft = await saveChapter(f.owner.id, work, chapterId, { kind: "autosave", content: moved, baseRevision: 0 });
    await settleReanchors();
    expect((await anchored(chapterId))["评开头"].index).toBe(0);
    await saveChapter(f.owner.id, work, chapterId, { kind: "save", content: moved, baseRevision: draft.revision });
    await settleReanchors();
    expect((await anchored(chapterId))["评开头"].index).toBe(1);
  });

  it("keeps every 段评 beside its words through real edits", async () => {
    const [work] = await insertWorks([{ userId: f.owner.id, title: "改稿" }]);
    const chapterId = await addChapter(work, P.join("\n"));
    for (let i = 0; i < P.length; i++) {
      await postComment(f.reader, { workId: work, order: 1, paragraph: i, parentId: null, body: `评第${i}段` });
    }
    const edit = async (paragraphs: string[]) => {
      await saveChapter(f.owner.id, work, chapterId, { kind: "save", content: paragraphs.join("\n\n") });
      await settleReanchors();
      return anchored(chapterId);
    };

    // Two paragraphs inserted above.
    let now = await edit(["楔子。", "第二段楔子。", ...P]);
    expect([0, 1, 2, 3, 4].map((i) => now[`评第${i}段`].index)).toEqual([2, 3, 4, 5, 6]);

    // Paragraph 1 split in two: its comments go to the larger half.
    const split = ["楔子。", "第二段楔子。", P[0], "掌柜的把算盘推到一边，", "抬头看着门口那个浑身湿透的年轻人。", P[2], P[3], P[4]];
    now = await edit(split);
    expect(now["评第1段"]).toMatchObject({ index: 4, text: "抬头看着门口那个浑身湿透的年轻人。" });
    expect(now["评第2段"].index).toBe(5);

    // Paragraph 3 rewritten slightly.
    const rewritten = "年轻人一言不发，只是从怀里摸出一块沾着泥的玉佩，轻轻放在了柜台上。";
    now = await edit([...split.slice(0, 6), rewritten, P[4]]);
    expect(now["评第3段"]).toMatchObject({ index: 6, text: rewritten, detached: false });

    // Paragraph 2 deleted: its comment moves to 本章说 with its quote.
    now = await edit([...split.slice(0, 5), rewritten, P[4]]);
    expect(now["评第2段"]).toMatchObject({ index: null, detached: true, text: P[2] });
    const talk = await listComments(f.reader, work, 1, { paragraph: null, sort: "new", page: 1 });
    expect(talk.comments.find((c) => c.body === "评第2段")?.quote).toBe(P[2]);

    // The last two swapped.
    now = await edit([...split.slice(0, 5), P[4], rewritten]);
    expect(now["评第4段"].index).toBe(5);
    expect(now["评第3段"].index).toBe(6);
    expect(now["评第0段"].index).toBe(2);

    const counts = await commentCounts(chapterId);
    expect(counts).toEqual({ paragraphs: { 2: 1, 4: 1, 5: 1, 6: 1 }, chapter: 1 });
  });
});
