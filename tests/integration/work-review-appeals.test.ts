import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { adminAuditLog, reviewItems, users, works } from "~/db/schema";
import { REVIEW_MESSAGES } from "~/schemas/review";
import { WORK_MESSAGES } from "~/schemas/work";
import { claimItem, claimNext, decideItem, reviewItemView, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { storedCoverJpeg } from "~/server/platform/images.server";
import { appealReview } from "~/server/studio/review.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { publishWork } from "~/server/studio/work-create.server";
import { workReviewFacts } from "~/server/studio/work-review.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { decideAs, found, heldAuthor, lastLine, row, settingsOf, single, workItems } from "./work-review-fixtures";
import { actorOf, callAction, callLoader, createAdmin, firstError } from "./admin-fixtures";

/**
 * Decision 239: the author appeals a 退回修改 or 拒绝 of their work's title, description,
 * cover and tags once, to a 总编辑, as for a chapter; a 总编辑 (or 超级管理员) takes back an
 * approval of a work's information while readers still have it: readers get the metadata they
 * had before (a new work goes private again, its listing kept); covers no version uses any
 * more are removed after the decision.
 */

let chief: Awaited<ReturnType<typeof createAdmin>>;
let reviewer: Awaited<ReturnType<typeof createAdmin>>;

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function pendingItem(workId: number) {
  return (await workItems(workId)).find((i) => i.status === "pending")!;
}
const decide = (id: number, decision: "approve" | "return" | "reject", note = "") => decideAs(reviewer, id, decision, note);
const png = async (background: string) => new Uint8Array(await sharp({ create: { width: 40, height: 55, channels: 3, background } }).png().toBuffer());
const stored = async (url: string | null | undefined) => (await storedCoverJpeg(url)) !== null;

/** A new work of a held author, its information sent back by a 审核员. */
async function sentBackNewWork(decision: "return" | "reject" = "return") {
  const author = await heldAuthor();
  const title = `申诉新书${unique()}`;
  const work = await publishWork(author.id, single(title), { cover: null, txt: null });
  const item = await pendingItem(work.id);
  await decide(item.id, decision, "书名不当");
  return { author, workId: work.id, title, itemId: item.id };
}

/** A trusted author's work, then held: its changes wait. */
async function approvedWork() {
  const author = await createUser();
  const work = await publishWork(author.id, single(`已上架${unique()}`), { cover: null, txt: null });
  await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
  return { author, work: await row(work.id) };
}

beforeAll(async () => {
  chief = await createAdmin({ role: "chief_editor" });
  reviewer = await createAdmin({ role: "reviewer" });
  await saveReviewPolicy(actorOf(chief), { newAuthors: false, trustedAfter: 10, aiWorks: false, samplePercent: 0, unsignedAuthors: false });
});

describe(`appeals of a work's information (${databaseKind})`, () => {
  it("go once to a 总编辑: a 审核员 cannot take one; granted, the new work goes on its listing and the author is told", async () => {
    const r = await sentBackNewWork();
    expect((await workReviewFacts(r.author.id, [r.workId])).get(r.workId)?.sentBack).toEqual({ status: "returned", note: "书名不当", onAppeal: false, appeal: "open" });
    await appealReview(r.author.id, r.workId, null, "  书名取自古诗，并无不妥  ");
    // The same appeal sent again (a double click) answers alike and makes no second item.
    await appealReview(r.author.id, r.workId, null, "书名取自古诗，并无不妥");
    const appeals = (await workItems(r.workId)).filter((i) => i.kind === "appeal");
    expect(appeals.map((a) => [a.status, a.appealOf, a.authorNote, a.editMeta?.title])).toEqual([["pending", r.itemId, "书名取自古诗，并无不妥", r.title]]);
    expect((await workReviewFacts(r.author.id, [r.workId])).get(r.workId)?.sentBack?.appeal).toBe("pending");
    // Another note is a second appeal: refused, nothing changes.
    expect(await domainError(appealReview(r.author.id, r.workId, null, "再申诉一次"))).toMatchObject({ message: REVIEW_MESSAGES.appealTwice, status: 409 });
    expect((await workItems(r.workId)).length).toBe(2);

    const other = await createAdmin({ role: "reviewer" });
    expect(await claimNext(actorOf(other), "reviewer")).not.toBe(appeals[0].id);
    expect(await domainError(claimItem(actorOf(other), "reviewer", appeals[0].id))).toMatchObject({ message: REVIEW_MESSAGES.appealForChief, status: 403 });
    expect((await domainError(decideItem(actorOf(other), "reviewer", appeals[0].id, "approve", ""))).status).toBe(403);

    const view = await reviewItemView(actorOf(chief), appeals[0].id);
    expect([view.kind, view.meta?.submitted.title, view.appeal]).toEqual(["appeal", r.title, { authorNote: "书名取自古诗，并无不妥", status: "已退回修改", note: "书名不当", decidedBy: reviewer.email }]);
    expect(await decideItem(actorOf(chief), "chief_editor", appeals[0].id, "approve", "")).toBe("work-approved");
    const out = await row(r.workId);
    expect([out.visibility, out.reviewListing]).toEqual(["public", null]);
    expect(await found(r.title)).toEqual([r.title]);
    expect(await lastLine(r.author.id)).toBe(`作品《${r.title}》的书名、简介、封面和标签已通过审核，读者现在看到它们（申诉成立）`);
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.approve"), eq(adminAuditLog.targetType, "work"), eq(adminAuditLog.targetId, String(r.workId))));
    expect(audit.after).toMatchObject({ item: appeals[0].id, kind: "appeal", status: "approved", contentHash: appeals[0].contentHash });
  });

  it("refused: the decision stands, shown beside the work, and cannot be appealed again", async () => {
    const { author, work } = await approvedWork();
    await updateWorkSettings(author.id, work.id, settingsOf(work, { description: "改过的简介" }), null);
    const item = await pendingItem(work.id);
    await decide(item.id, "reject", "简介不当");
    await appealReview(author.id, work.id, null, "简介并无不妥");
    const appeal = await pendingItem(work.id);
    expect(await decideItem(actorOf(chief), "chief_editor", appeal.id, "reject", "维持")).toBe("upheld");
    expect([(await row(work.id)).description, (await row(work.id)).pendingMeta?.description]).toEqual([work.description, "改过的简介"]);
    expect(await lastLine(author.id)).toBe(`作品《${work.title}》的申诉已被驳回，维持原审核结果。原因：维持`);
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)?.sentBack).toEqual({ status: "rejected", note: "维持", onAppeal: true, appeal: "closed" });
    expect(await domainError(appealReview(author.id, work.id, null, "还是不服"))).toMatchObject({ message: REVIEW_MESSAGES.appealTwice, status: 409 });
  });

  it("only of the version sent back, unchanged, by its author; a save withdraws a pending appeal", async () => {
    const r = await sentBackNewWork("reject");
    // Someone else's work: not found, nothing made.
    const stranger = await createUser();
    expect(await domainError(appealReview(stranger.id, r.workId, null, "申诉"))).toMatchObject({ message: WORK_MESSAGES.notFound, status: 404 });
    expect(await domainError(appealReview(r.author.id, r.workId, null, "   "))).toMatchObject({ message: REVIEW_MESSAGES.appealNote, status: 400 });
    await appealReview(r.author.id, r.workId, null, "请再看看");
    // The author saves a new version: the appeal is withdrawn, the new version waits instead.
    await updateWorkSettings(r.author.id, r.workId, settingsOf(await row(r.workId), { title: `${r.title}改` }), null);
    expect((await workItems(r.workId)).map((i) => [i.kind, i.status])).toEqual([
      ["work", "rejected"],
      ["appeal", "withdrawn"],
      ["work", "pending"],
    ]);
    // Nothing sent back now: nothing to appeal.
    expect(await domainError(appealReview(r.author.id, r.workId, null, "申诉"))).toMatchObject({ message: REVIEW_MESSAGES.appealWorkNotAllowed, status: 409 });
    // A trusted author's work never sent back: likewise.
    const { author, work } = await approvedWork();
    expect(await domainError(appealReview(author.id, work.id, null, "申诉"))).toMatchObject({ message: REVIEW_MESSAGES.appealWorkNotAllowed, status: 409 });
  });

  it("a 总编辑 reversing the 退回修改 itself while an appeal waits: the version goes out, the appeal is withdrawn", async () => {
    const r = await sentBackNewWork();
    await appealReview(r.author.id, r.workId, null, "请复核");
    expect(await decideItem(actorOf(chief), "chief_editor", r.itemId, "approve", "")).toBe("work-approved");
    expect((await row(r.workId)).visibility).toBe("public");
    expect((await workItems(r.workId)).map((i) => [i.kind, i.status])).toEqual([
      ["work", "approved"],
      ["appeal", "withdrawn"],
    ]);
  });

  it("the appeal page works as a plain form: the note, then a second try answered with the message", async () => {
    const r = await sentBackNewWork();
    const cookie = await sessionCookieFor(r.author.id);
    const page = await import("~/routes/shell/studio/work-appeal");
    const shown = await callLoader(page as never, userRequest(cookie, `/works/${r.workId}/appeal`), { id: String(r.workId) });
    expect(shown.data.review).toMatchObject({ status: "returned", note: "书名不当", appeal: "open" });
    const form = (note: string) => {
      const f = new FormData();
      f.set("note", note);
      return f;
    };
    const sent = await callAction(page as never, userRequest(cookie, `/works/${r.workId}/appeal`, form("请总编辑复核")), { id: String(r.workId) });
    expect([sent.status, sent.location]).toEqual([302, `/works/${r.workId}/settings`]);
    const again = await callAction(page as never, userRequest(cookie, `/works/${r.workId}/appeal`, form("第二次")), { id: String(r.workId) });
    expect(firstError(again.data)).toBe(REVIEW_MESSAGES.appealTwice);
    expect((await workItems(r.workId)).filter((i) => i.kind === "appeal").length).toBe(1);
    // Another author's work: 404.
    const stranger = await createUser();
    const foreign = await callLoader(page as never, userRequest(await sessionCookieFor(stranger.id), `/works/${r.workId}/appeal`), { id: String(r.workId) });
    expect(foreign.status).toBe(404);
  });
});

describe(`a 总编辑 taking back a work's approval (${databaseKind})`, () => {
  it("a change: readers have the previous metadata again, the version taken back waits for its author; 通过 again applies it", async () => {
    const { author, work } = await approvedWork();
    const changed = settingsOf(work, { title: `${work.title}新`, description: "新的简介", tags: ["重生"] });
    await updateWorkSettings(author.id, work.id, changed, null);
    const item = await pendingItem(work.id);
    expect(await decide(item.id, "approve")).toBe("work-approved");
    expect((await row(work.id)).title).toBe(`${work.title}新`);

    // The 总编辑's page shows what taking it back gives readers again.
    expect((await reviewItemView(actorOf(chief), item.id)).meta?.approved).toEqual({ title: work.title, description: work.description, coverUrl: null, tags: [] });
    // A 审核员 cannot take it back.
    expect(await domainError(decideItem(actorOf(reviewer), "reviewer", item.id, "return", "撤回"))).toMatchObject({ message: REVIEW_MESSAGES.alreadyDecided("approved"), status: 409 });
    expect(await decideItem(actorOf(chief), "chief_editor", item.id, "return", "复查发现简介不妥")).toBe("work-approval-returned");
    const back = await row(work.id);
    expect([back.title, back.description, back.tags, back.coverUrl]).toEqual([work.title, work.description, work.tags, null]);
    expect(back.pendingMeta).toEqual({ title: `${work.title}新`, description: "新的简介", coverUrl: null, tags: ["重生"] });
    expect(await found(work.title)).toEqual([work.title]);
    expect(await lastLine(author.id)).toBe(
      `作品《${work.title}新》的书名、简介、封面和标签此前的审核通过已被总编辑撤销，读者暂时看不到这些信息，请在作品设置中修改后保存。原因：复查发现简介不妥`,
    );
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)?.sentBack).toEqual({ status: "returned", note: "复查发现简介不妥", onAppeal: false, appeal: "open" });
    const [audit] = await db
      .select()
      .from(adminAuditLog)
      .where(and(eq(adminAuditLog.action, "review.return"), eq(adminAuditLog.targetType, "work"), eq(adminAuditLog.targetId, String(work.id))));
    expect([audit.before, audit.after]).toMatchObject([{ status: "approved" }, { item: item.id, kind: "work", status: "returned", contentHash: item.contentHash, overrule: true }]);

    // Reversed again (通过): readers have the version once more.
    expect(await decideItem(actorOf(chief), "chief_editor", item.id, "approve", "")).toBe("work-approved");
    expect([(await row(work.id)).title, (await row(work.id)).pendingMeta]).toEqual([`${work.title}新`, null]);
  });

  it("a new work: private again, its listing kept as while it waited; readers find nothing", async () => {
    const author = await heldAuthor();
    const title = `撤销新书${unique()}`;
    const work = await publishWork(author.id, single(title), { cover: null, txt: null });
    const item = await pendingItem(work.id);
    expect(await decide(item.id, "approve")).toBe("work-approved");
    expect(await found(title)).toEqual([title]);
    expect(await decideItem(actorOf(chief), "chief_editor", item.id, "reject", "复查不妥")).toBe("work-approval-rejected");
    const out = await row(work.id);
    expect([out.visibility, out.reviewListing, out.title]).toEqual(["private", { visibility: "public", price: 0 }, title]);
    expect(await found(title)).toEqual([]);
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)).toEqual({
      newWork: true,
      pending: false,
      sentBack: { status: "rejected", note: "复查不妥", onAppeal: false, appeal: "open" },
    });
    // Once readers no longer have that version (a trusted save of a new one), it cannot be taken back.
    expect(await decideItem(actorOf(chief), "chief_editor", item.id, "approve", "")).toBe("work-approved");
    await db.update(users).set({ reviewRequired: false }).where(eq(users.id, author.id));
    await updateWorkSettings(author.id, work.id, settingsOf(await row(work.id), { title: `${title}二` }), null);
    expect(await domainError(decideItem(actorOf(chief), "chief_editor", item.id, "return", "再撤"))).toMatchObject({ message: REVIEW_MESSAGES.workChanged, status: 409 });
    expect((await row(work.id)).title).toBe(`${title}二`);
  });

  it("an approval made before what readers had was kept: refused with a message, nothing changes", async () => {
    const { author, work } = await approvedWork();
    await updateWorkSettings(author.id, work.id, settingsOf(work, { description: "旧时通过" }), null);
    const item = await pendingItem(work.id);
    await decide(item.id, "approve");
    await db.update(reviewItems).set({ approvedOver: null }).where(eq(reviewItems.id, item.id));
    expect(await domainError(decideItem(actorOf(chief), "chief_editor", item.id, "return", "撤销"))).toMatchObject({ message: REVIEW_MESSAGES.takeBackUnkept, status: 409 });
    expect([(await row(work.id)).description, (await workItems(work.id)).map((i) => i.status)]).toEqual(["旧时通过", ["approved"]]);
  });

  it("covers: the one taken back waits with its version; a cover no version uses any more is removed", async () => {
    const { author, work } = await approvedWork();
    await updateWorkSettings(author.id, work.id, { ...settingsOf(work), cover: "replace" }, await png("#884422"));
    const first = await pendingItem(work.id);
    await decide(first.id, "approve");
    const approvedCover = (await row(work.id)).coverUrl;
    expect(await stored(approvedCover)).toBe(true);
    // A newer cover waits; the approval of the first is taken back: readers have no cover again
    // (the one before), the newer version still waits, and the cover taken back is used by none.
    await updateWorkSettings(author.id, work.id, { ...settingsOf(work), cover: "replace" }, await png("#224488"));
    const newer = (await row(work.id)).pendingMeta?.coverUrl;
    expect(await decideItem(actorOf(chief), "chief_editor", first.id, "return", "封面不妥")).toBe("work-approval-returned");
    const out = await row(work.id);
    expect([out.coverUrl, out.pendingMeta?.coverUrl]).toEqual([null, newer]);
    expect([await stored(approvedCover), await stored(newer)]).toEqual([false, true]);
  });

  it("a new work's cover taken back while a newer one waits: the newer is its version waiting, the old file removed", async () => {
    const author = await heldAuthor();
    const title = `封面新书${unique()}`;
    const work = await publishWork(author.id, single(title), { cover: null, txt: null });
    // A cover chosen while it waits: resubmitted with it.
    await updateWorkSettings(author.id, work.id, { ...settingsOf(await row(work.id)), cover: "replace" }, await png("#446622"));
    const item = await pendingItem(work.id);
    await decide(item.id, "approve");
    const listed = (await row(work.id)).coverUrl;
    await updateWorkSettings(author.id, work.id, { ...settingsOf(await row(work.id), { title: `${title}二` }), cover: "replace" }, await png("#662244"));
    const waiting = await pendingItem(work.id);
    expect(await decideItem(actorOf(chief), "chief_editor", item.id, "return", "复查")).toBe("work-approval-returned");
    const out = await row(work.id);
    expect([out.visibility, out.title, out.coverUrl, out.pendingMeta]).toEqual(["private", `${title}二`, waiting.editMeta?.coverUrl, null]);
    // The newer version still waits in its item, now as the new work's version.
    expect((await pendingItem(work.id)).id).toBe(waiting.id);
    expect([await stored(listed), await stored(out.coverUrl)]).toEqual([false, true]);
  });
});
