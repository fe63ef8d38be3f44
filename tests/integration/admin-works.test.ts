import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, chapterComments, commentReports, works } from "~/db/schema";
import { listComments, postComment, reportComment } from "~/server/community/comments.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { searchWorks } from "~/server/catalog/search.server";
import { getWorkForViewer, listMyWorks, updateListing } from "~/server/catalog/works.server";
import { workFeed } from "~/server/catalog/feeds.server";
import { createUser } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { addChapter, insertWorks } from "../fixtures/works";
import { adminCookieFor, callAction, callLoader, createAdmin, request } from "./admin-fixtures";

/**
 * The back office's works and comment reports (decision 138): filters, any work opened by an
 * administrator, take-down (hidden from everyone but the owner, who sees why), restore,
 * R-18, delete, and the report queue, each audited.
 */

let admin: Awaited<ReturnType<typeof createAdmin>>;
let cookie: string;
const viewer = (id: string) => ({ id, showR18: true, showAi: true });

beforeAll(async () => {
  admin = await createAdmin();
  cookie = await adminCookieFor(admin.id);
});

const post = (path: string, fields: Record<string, string>) => request(path, { cookie }, fields);
const get = (path: string) => request(path, { cookie });

async function workAction(id: number, fields: Record<string, string>) {
  return callAction(await import("~/routes/admin/work"), post(`/admin/works/${id}`, fields), { id: String(id) });
}

async function auditOf(type: string, id: number) {
  const rows = await db.select().from(adminAuditLog).where(eq(adminAuditLog.targetId, String(id))).orderBy(adminAuditLog.id);
  return rows.filter((r) => r.targetType === type);
}

describe(`works: filters and opening any work (${databaseKind})`, () => {
  it("filters by visibility, rating, AI level, reports and search; opens a private work with its chapter text", async () => {
    const author = await createUser();
    const tag = `筛选${Date.now().toString(36)}`;
    const [pub, vip, priv] = await insertWorks([
      { userId: author.id, title: `${tag}甲` },
      { userId: author.id, title: `${tag}乙`, visibility: "public-vip", price: 5, rating: "r18" },
      { userId: author.id, title: `${tag}丙`, visibility: "private" },
    ]);
    await db.update(works).set({ aiLevel: "generated" }).where(eq(works.id, vip));
    const list = await import("~/routes/admin/works");
    const titles = async (q: string) =>
      (await callLoader(list, get(`/admin/works?q=${encodeURIComponent(tag)}&${q}`))).data.works.map((w: { title: string }) => w.title).sort();
    expect(await titles("")).toEqual([`${tag}丙`, `${tag}乙`, `${tag}甲`].sort());
    expect(await titles("visibility=private")).toEqual([`${tag}丙`]);
    expect(await titles("rating=r18")).toEqual([`${tag}乙`]);
    expect(await titles("ai=generated")).toEqual([`${tag}乙`]);
    expect(await titles("reported=1")).toEqual([]);
    expect(await titles("visibility=bogus&type=nonsense")).toHaveLength(3);

    // Reported: a comment on the public work with an open report.
    const chapterId = await addChapter(pub);
    expect(chapterId).toBeGreaterThan(0);
    const [reader, commenter] = [await createUser(), await createUser()];
    const c = await postComment(viewer(commenter.id), { workId: pub, order: 1, paragraph: null, parentId: null, body: "广告" });
    await reportComment(viewer(reader.id), c.id, "垃圾广告");
    expect(await titles("reported=1")).toEqual([`${tag}甲`]);

    await addChapter(priv, "私密的第一段。");
    const page = await import("~/routes/admin/work");
    const r = await callLoader(page, get(`/admin/works/${priv}?chapter=1`), { id: String(priv) });
    expect(r.data.work.title).toBe(`${tag}丙`);
    expect(r.data.chapter.content).toBe("私密的第一段。");
    expect((await callLoader(page, get("/admin/works/999999999"), { id: "999999999" })).status).toBe(404);
    expect((await callLoader(page, get("/admin/works/abc"), { id: "abc" })).status).toBe(404);
    expect((await callLoader(page, request(`/admin/works/${priv}`), { id: String(priv) })).status).toBe(302);
  });
});

describe(`take-down and restore (${databaseKind})`, () => {
  it("hides a work from everyone but its owner, buyers included; the owner sees why and cannot re-list it; restore puts it back", async () => {
    const [author, buyer, stranger] = [await createUser(), await createUser(), await createUser()];
    const title = `下架测试${Date.now().toString(36)}`;
    const [id] = await insertWorks([{ userId: author.id, title, visibility: "public-vip", price: 8 }]);
    await addChapter(id);
    await db.transaction((tx) => credit(tx, buyer.id, 20, "测试充值"));
    await purchaseWork(buyer.id, id);
    const found = async () => (await searchWorks({ query: title, page: 1, viewer: null })).works.map((w) => w.id);
    expect(await found()).toEqual([id]);

    for (const reason of ["", "   "]) {
      const bad = await workAction(id, { intent: "take-down", reason });
      expect(bad.status).toBe(400);
      expect(bad.data.error).toBe("请填写下架原因");
    }
    expect(await auditOf("work", id)).toEqual([]);

    const r = await workAction(id, { intent: "take-down", reason: "涉嫌抄袭" });
    expect(r.location).toBe(`/admin/works/${id}?notice=work-taken-down`);
    expect(await found()).toEqual([]);
    expect(await domainError(getWorkForViewer(id, viewer(buyer.id)))).toMatchObject({ status: 404 });
    expect(await domainError(getWorkForViewer(id, viewer(stranger.id)))).toMatchObject({ status: 404 });
    expect(await domainError(getWorkForViewer(id, null))).toMatchObject({ status: 404 });
    expect(await domainError(workFeed(id, "http://localhost"))).toMatchObject({ status: 404 });
    expect((await getWorkForViewer(id, viewer(author.id))).isOwner).toBe(true);
    const mine = await listMyWorks(author.id, { tab: "private", sort: "newest", query: "", page: 1 });
    expect(mine.works.find((w) => w.id === id)?.takedownReason).toBe("涉嫌抄袭");
    const relist = await domainError(updateListing(author.id, id, { intent: "put-on-shelf" }));
    expect(relist).toMatchObject({ status: 409, message: "该作品已被管理员下架，原因：涉嫌抄袭。如有疑问请联系管理员" });
    const twice = await workAction(id, { intent: "take-down", reason: "再下架" });
    expect(twice.status).toBe(409);

    expect((await workAction(id, { intent: "restore" })).location).toBe(`/admin/works/${id}?notice=work-restored`);
    const [row] = await db.select().from(works).where(eq(works.id, id));
    expect(row).toMatchObject({ visibility: "public-vip", price: 8, takenDownAt: null, takedownReason: null });
    expect(await found()).toEqual([id]);
    expect(await workFeed(id, "http://localhost")).toContain(title);
    expect((await getWorkForViewer(id, viewer(buyer.id))).purchased).toBe(true);
    expect((await workAction(id, { intent: "restore" })).status).toBe(409);

    const audit = await auditOf("work", id);
    expect(audit.map((a) => [a.action, a.reason])).toEqual([
      ["work.take-down", "涉嫌抄袭"],
      ["work.restore", null],
    ]);
    expect(audit[0]).toMatchObject({ adminId: admin.id, before: { visibility: "public-vip", price: 8 } });
  });

  it("marks R-18 and back; deletes with a reason, but not a sold work", async () => {
    const [author, buyer] = [await createUser(), await createUser()];
    const [free, sold] = await insertWorks([
      { userId: author.id, title: "可删" },
      { userId: author.id, title: "已售", visibility: "public-vip", price: 3 },
    ]);
    await addChapter(sold);
    await db.transaction((tx) => credit(tx, buyer.id, 10, "测试充值"));
    await purchaseWork(buyer.id, sold);

    expect((await workAction(free, { intent: "r18" })).location).toContain("notice=work-rating");
    expect((await db.select({ rating: works.rating }).from(works).where(eq(works.id, free)))[0].rating).toBe("r18");
    await workAction(free, { intent: "all-ages" });
    expect((await db.select({ rating: works.rating }).from(works).where(eq(works.id, free)))[0].rating).toBe("all_ages");

    const noReason = await workAction(free, { intent: "delete", reason: "" });
    expect(noReason.status).toBe(400);
    expect(noReason.data.error).toBe("请填写删除原因");
    const refused = await workAction(sold, { intent: "delete", reason: "违规" });
    expect(refused.status).toBe(409);
    expect(refused.data.error).toBe("已有读者购买的作品不能删除，请改为下架");
    expect(await db.select().from(works).where(eq(works.id, sold))).toHaveLength(1);
    expect((await workAction(free, { intent: "delete", reason: "违规内容" })).location).toBe("/admin/works?notice=deleted");
    expect(await db.select().from(works).where(eq(works.id, free))).toEqual([]);
    expect((await auditOf("work", free)).map((a) => [a.action, a.reason])).toEqual([
      ["work.rating", null],
      ["work.rating", null],
      ["work.delete", "违规内容"],
    ]);
    expect((await workAction(free, { intent: "r18" })).status).toBe(404);
    expect((await workAction(sold, { intent: "nonsense" })).status).toBe(400);
  });
});

describe(`the comment report queue (${databaseKind})`, () => {
  it("shows reporters and reasons; hide, restore, dismiss and delete resolve the reports and are audited", async () => {
    const [author, spammer, r1, r2] = [await createUser(), await createUser(), await createUser(), await createUser()];
    const [workId] = await insertWorks([{ userId: author.id, title: "举报队列" }]);
    await addChapter(workId);
    const bad = await postComment(viewer(spammer.id), { workId, order: 1, paragraph: null, parentId: null, body: "加群领福利" });
    const fine = await postComment(viewer(r1.id), { workId, order: 1, paragraph: null, parentId: null, body: "好看" });
    const reply = await postComment(viewer(spammer.id), { workId, order: 1, paragraph: null, parentId: fine.id, body: "私信我" });
    await reportComment(viewer(r1.id), bad.id, "广告");
    await reportComment(viewer(r2.id), bad.id, "骚扰");
    await reportComment(viewer(r2.id), reply.id, "广告");

    const queue = await import("~/routes/admin/comment-reports");
    let list = (await callLoader(queue, get("/admin/comment-reports"))).data;
    const entry = list.items.find((c: { id: number }) => c.id === bad.id);
    expect(entry.body).toBe("加群领福利");
    expect(entry.reports.map((r: { reason: string; reporterEmail: string }) => [r.reason, r.reporterEmail])).toEqual([
      ["广告", r1.email],
      ["骚扰", r2.email],
    ]);
    const decide = (commentId: number, decision: string) =>
      callAction(queue, post("/admin/comment-reports", { commentId: String(commentId), decision }), {});

    expect((await decide(bad.id, "hide")).location).toContain("notice=comment-hidden");
    const visible = async () => (await listComments(null, workId, 1, { paragraph: null, sort: "new", page: 1 })).comments.map((c) => c.body);
    expect(await visible()).toEqual(["好看"]);
    // Other tests' reports share the queue: look at this work's only.
    const ours = (data: { items: { id: number; workId: number }[] }) => data.items.filter((c) => c.workId === workId).map((c) => c.id);
    list = (await callLoader(queue, get("/admin/comment-reports"))).data;
    expect(ours(list)).toEqual([reply.id]);
    expect((await decide(bad.id, "restore")).location).toContain("notice=comment-restored");
    expect(await visible()).toEqual(["好看", "加群领福利"]);
    expect((await decide(bad.id, "dismiss")).location).toContain("notice=reports-dismissed");

    expect((await decide(reply.id, "delete")).location).toContain("notice=deleted");
    expect(await db.select().from(chapterComments).where(eq(chapterComments.id, reply.id))).toEqual([]);
    const [parent] = await db.select({ replyCount: chapterComments.replyCount }).from(chapterComments).where(eq(chapterComments.id, fine.id));
    expect(parent.replyCount).toBe(0);
    expect(await db.select().from(commentReports).where(eq(commentReports.commentId, reply.id))).toEqual([]);

    list = (await callLoader(queue, get("/admin/comment-reports"))).data;
    expect(ours(list)).toEqual([]);
    const all = (await callLoader(queue, get("/admin/comment-reports?show=all"))).data;
    expect(ours(all)).toEqual([bad.id]);

    expect((await decide(reply.id, "hide")).status).toBe(404);
    expect((await decide(bad.id, "explode")).status).toBe(400);
    expect((await decide(Number.NaN, "hide")).status).toBe(404);
    expect((await auditOf("comment", bad.id)).map((a) => a.action)).toEqual(["comment.hide", "comment.restore", "comment.dismiss"]);
    expect((await auditOf("comment", reply.id)).map((a) => a.action)).toEqual(["comment.delete"]);
  });
});
