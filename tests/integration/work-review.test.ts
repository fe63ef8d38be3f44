import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { users, works } from "~/db/schema";
import { REVIEW_MESSAGES } from "~/schemas/review";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { WORK_MESSAGES } from "~/schemas/work";
import { claimItem, decideItem, reviewItemView, reviewQueue, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { getWorkForViewer, updateListing } from "~/server/catalog/works.server";
import { setWorkPricing } from "~/server/economy/chapter-sales.server";
import { reloadScreening } from "~/server/screening/screening.server";
import { addScreeningWord } from "~/server/screening/words.server";
import { updateWorkSettings } from "~/server/studio/settings.server";
import { publishWork } from "~/server/studio/work-create.server";
import { workReviewFacts } from "~/server/studio/work-review.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { domainError } from "../fixtures/domain-error";
import { decideAs, found, heldAuthor, lastLine, row, settingsOf, single, workItems } from "./work-review-fixtures";
import { actorOf, callAction, callLoader, createAdmin } from "./admin-fixtures";

/**
 * A work's title, description, cover and tags under review (docs/product.md#review,
 * decision 214): a held author's new work is private until approved, then goes on the
 * listing they chose; a held change of an approved work waits while readers keep the
 * approved metadata; a 审核 word holds even a trusted author's.
 */

let chief: Awaited<ReturnType<typeof createAdmin>>;
let reviewer: Awaited<ReturnType<typeof createAdmin>>;
const WORD = "书名待审词";

async function pendingWorkItem(workId: number) {
  const [item] = (await workItems(workId)).filter((i) => i.status === "pending");
  return item;
}
const decide = (id: number, decision: "approve" | "return" | "reject", note = "") => decideAs(reviewer, id, decision, note);

beforeAll(async () => {
  chief = await createAdmin({ role: "chief_editor" });
  reviewer = await createAdmin({ role: "reviewer" });
  await saveReviewPolicy(actorOf(chief), { newAuthors: false, trustedAfter: 10, aiWorks: false, samplePercent: 0, unsignedAuthors: false });
  await addScreeningWord(actorOf(chief), { word: WORD, category: "其他", level: "review" });
  await reloadScreening();
});

describe(`a new work by an author whose releases are reviewed (${databaseKind})`, () => {
  it("is private with its chosen listing kept, in the queue as 作品信息, and goes on that listing when approved", async () => {
    const author = await heldAuthor();
    const title = `待审新书${Date.now().toString(36)}`;
    const work = await publishWork(author.id, single(title), { cover: null, txt: null });
    const stored = await row(work.id);
    expect([stored.visibility, stored.reviewListing]).toEqual(["private", { visibility: "public", price: 0 }]);
    // Readers find nothing of it: not in search, its page a 404.
    expect(await found(title)).toEqual([]);
    const reader = await createUser();
    await expect(getWorkForViewer(work.id, { id: reader.id, showR18: false, showAi: true })).rejects.toMatchObject({ status: 404 });
    // The owner is told, and cannot put it on the shelf or price it before the decision.
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)).toEqual({ newWork: true, pending: true, sentBack: null });
    expect(await domainError(updateListing(author.id, work.id, { intent: "put-on-shelf" }))).toMatchObject({ message: WORK_MESSAGES.underReview, status: 409 });
    expect(await domainError(setWorkPricing(author.id, work.id, { mode: "free" } as never))).toMatchObject({ message: WORK_MESSAGES.underReview, status: 409 });

    const item = await pendingWorkItem(work.id);
    expect([item.kind, item.reason, item.editMeta]).toEqual(["work", "先审名单", { title, description: "一段简介", coverUrl: null, tags: [] }]);
    const queued = (await reviewQueue()).rows.find((r) => r.id === item.id);
    expect([queued?.workTitle, queued?.chapterTitle, queued?.wordCount]).toEqual([title, null, null]);
    const view = await reviewItemView(actorOf(reviewer), item.id);
    expect([view.chapter, view.meta]).toEqual([null, { submitted: item.editMeta, approved: null }]);

    // 退回修改: still private; the author reads the reason and resubmits from the settings.
    expect(await decide(item.id, "return", "书名不当")).toBe("work-returned");
    expect((await row(work.id)).visibility).toBe("private");
    expect(await lastLine(author.id)).toBe(`作品《${title}》的书名、简介、封面或标签被退回修改，请在作品设置中修改后保存。原因：书名不当`);
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)).toEqual({ newWork: true, pending: false, sentBack: { status: "returned", note: "书名不当", onAppeal: false, appeal: "open" } });
    const renamed = `${title}改`;
    await updateWorkSettings(author.id, work.id, settingsOf(stored, { title: renamed }), null);
    expect([(await row(work.id)).title, (await row(work.id)).visibility]).toEqual([renamed, "private"]);
    const again = await pendingWorkItem(work.id);
    expect(again.editMeta?.title).toBe(renamed);

    expect(await decide(again.id, "approve")).toBe("work-approved");
    const out = await row(work.id);
    expect([out.visibility, out.price, out.reviewListing, out.title]).toEqual(["public", 0, null, renamed]);
    expect(await found(renamed)).toEqual([renamed]);
    expect(await lastLine(author.id)).toBe(`作品《${renamed}》的书名、简介、封面和标签已通过审核，读者现在看到它们`);
    expect((await workReviewFacts(author.id, [work.id])).size).toBe(0);
  });

  it("a new work its author keeps private stays private when approved", async () => {
    const author = await heldAuthor();
    const hidden = await publishWork(author.id, single(`私密待审${Date.now().toString(36)}`, { visibility: "private" }), { cover: null, txt: null });
    expect((await row(hidden.id)).reviewListing).toEqual({ visibility: "private", price: 0 });
    expect(await decide((await pendingWorkItem(hidden.id)).id, "approve")).toBe("work-approved");
    expect([(await row(hidden.id)).visibility, (await row(hidden.id)).reviewListing]).toEqual(["private", null]);
  });

  it("a trusted author's new work goes out at once, unless its title, description or tags hold a 审核 word", async () => {
    const author = await createUser();
    const clean = await publishWork(author.id, single(`可信新书${Date.now().toString(36)}`), { cover: null, txt: null });
    expect([(await row(clean.id)).visibility, await workItems(clean.id)]).toEqual(["public", []]);
    const held = await publishWork(author.id, single(`可信新书二${Date.now().toString(36)}`, { description: `简介里有${WORD}` }), { cover: null, txt: null });
    expect((await row(held.id)).visibility).toBe("private");
    expect((await pendingWorkItem(held.id)).reason).toBe("含待审词语");
    // Taking the word out goes on the listing at once: nothing holds it any more.
    await updateWorkSettings(author.id, held.id, settingsOf(await row(held.id), { description: "干净的简介" }), null);
    const out = await row(held.id);
    expect([out.visibility, out.reviewListing, out.description]).toEqual(["public", null, "干净的简介"]);
    expect((await workItems(held.id)).map((i) => i.status)).toEqual(["withdrawn"]);
  });
});

describe(`a change of an approved work's metadata (${databaseKind})`, () => {
  async function approvedWork() {
    const author = await createUser();
    const title = `已发布${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const work = await publishWork(author.id, single(title), { cover: null, txt: null });
    await db.update(works).set({ tags: ["都市"] }).where(eq(works.id, work.id));
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    return { author, work: await row(work.id) };
  }

  it("waits while readers keep the approved title, description and tags; the reviewer sees what changed; 通过 applies it", async () => {
    const { author, work } = await approvedWork();
    const cookie = await sessionCookieFor(author.id);
    // The settings form as a browser without JavaScript sends it.
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: `${work.title}新`, description: "新的简介", rating: "all_ages", tags: "都市，重生", cover: "keep" })) form.set(k, v);
    const settings = await import("~/routes/shell/studio/settings");
    const response = await callAction(settings as never, userRequest(cookie, `/works/${work.id}/settings`, form), { id: String(work.id) });
    expect(response.status).toBe(302);

    const live = await row(work.id);
    expect([live.title, live.description, live.tags]).toEqual([work.title, work.description, ["都市"]]);
    expect(live.pendingMeta).toEqual({ title: `${work.title}新`, description: "新的简介", coverUrl: null, tags: ["都市", "重生"] });
    expect(await found(work.title)).toEqual([work.title]);
    // The author's form shows what they saved, with the notice.
    const page = (await callLoader(settings as never, userRequest(cookie, `/works/${work.id}/settings`), { id: String(work.id) })).data as {
      work: { title: string; tags: string[] };
      review: unknown;
    };
    expect([page.work.title, page.work.tags, page.review]).toEqual([`${work.title}新`, ["都市", "重生"], { newWork: false, pending: true, sentBack: null }]);

    const item = await pendingWorkItem(work.id);
    const view = await reviewItemView(actorOf(reviewer), item.id);
    expect(view.meta?.approved).toEqual({ title: work.title, description: work.description, coverUrl: null, tags: ["都市"] });
    const reviewPage = await import("~/routes/admin/review-item");
    const { adminCookieFor, request } = await import("./admin-fixtures");
    const shown = (await callLoader(reviewPage as never, request(`/admin/review/${item.id}`, { cookie: await adminCookieFor(reviewer.id) }), { id: String(item.id) })).data as {
      workMeta: { changes: { title: string | null; tagsAdded: string[]; tagsRemoved: string[]; cover: boolean } };
    };
    expect(shown.workMeta.changes).toMatchObject({ title: work.title, tagsAdded: ["重生"], tagsRemoved: [], cover: false });

    expect(await decide(item.id, "approve")).toBe("work-approved");
    const after = await row(work.id);
    expect([after.title, after.description, after.tags, after.pendingMeta]).toEqual([`${work.title}新`, "新的简介", ["都市", "重生"], null]);
  });

  it("a later save withdraws the version waiting (deciding it then changes nothing); saving the approved values back clears it", async () => {
    const { author, work } = await approvedWork();
    await updateWorkSettings(author.id, work.id, settingsOf(work, { description: "第一版" }), null);
    const first = await pendingWorkItem(work.id);
    await claimItem(actorOf(reviewer), "reviewer", first.id);
    await updateWorkSettings(author.id, work.id, settingsOf(work, { description: "第二版" }), null);
    expect(await domainError(decideItem(actorOf(reviewer), "reviewer", first.id, "approve", ""))).toMatchObject({
      message: REVIEW_MESSAGES.alreadyDecided("withdrawn"),
      status: 409,
    });
    expect((await row(work.id)).description).toBe(work.description);
    expect((await pendingWorkItem(work.id)).editMeta?.description).toBe("第二版");
    // Saving the same version again keeps its place in the queue.
    const waiting = await pendingWorkItem(work.id);
    await updateWorkSettings(author.id, work.id, settingsOf(work, { description: "第二版" }), null);
    expect((await pendingWorkItem(work.id)).id).toBe(waiting.id);
    // Back to what readers have: nothing waits.
    await updateWorkSettings(author.id, work.id, settingsOf(work), null);
    expect([(await row(work.id)).pendingMeta, await pendingWorkItem(work.id)]).toEqual([null, undefined]);
    // Rating and category are not held: they change at once.
    await updateWorkSettings(author.id, work.id, { ...settingsOf(work, { title: `${work.title}改` }), rating: "r18" }, null);
    const r = await row(work.id);
    expect([r.rating, r.title, r.pendingMeta?.title]).toEqual(["r18", work.title, `${work.title}改`]);
  });

  it("a new cover waits beside the approved one; 拒绝 keeps readers on the approved cover", async () => {
    const { author, work } = await approvedWork();
    const png = new Uint8Array(await sharp({ create: { width: 40, height: 55, channels: 3, background: "#884422" } }).png().toBuffer());
    await updateWorkSettings(author.id, work.id, { ...settingsOf(work), cover: "replace" }, png);
    const held = await row(work.id);
    expect(held.coverUrl).toBeNull();
    expect(held.pendingMeta?.coverUrl).toMatch(/^\/|^https?:/);
    const item = await pendingWorkItem(work.id);
    const view = await reviewItemView(actorOf(reviewer), item.id);
    expect([view.meta?.approved?.coverUrl, view.meta?.submitted.coverUrl]).toEqual([null, held.pendingMeta?.coverUrl]);
    expect(await decide(item.id, "reject", "封面不当")).toBe("work-rejected");
    expect((await row(work.id)).coverUrl).toBeNull();
    expect(await lastLine(author.id)).toBe(`作品《${work.title}》的书名、简介、封面或标签未通过审核，请在作品设置中修改后保存。原因：封面不当`);
    expect((await workReviewFacts(author.id, [work.id])).get(work.id)?.sentBack).toEqual({ status: "rejected", note: "封面不当", onAppeal: false, appeal: "open" });
  });

  it("a 审核 word holds a trusted author's change; a 禁止 word refuses it, changing nothing", async () => {
    const author = await createUser();
    const work = await row((await publishWork(author.id, single(`可信作品${Date.now().toString(36)}`), { cover: null, txt: null })).id);
    await updateWorkSettings(author.id, work.id, settingsOf(work, { tags: [WORD] }), null);
    expect([(await row(work.id)).tags, (await row(work.id)).pendingMeta?.tags]).toEqual([[], [WORD]]);
    expect((await pendingWorkItem(work.id)).reason).toBe("含待审词语");
    await addScreeningWord(actorOf(chief), { word: "书名禁止词", category: "其他", level: "forbid" });
    await reloadScreening();
    expect(await domainError(updateWorkSettings(author.id, work.id, settingsOf(work, { title: "书名禁止词" }), null))).toMatchObject({ status: 400 });
    expect((await row(work.id)).pendingMeta?.tags).toEqual([WORD]);
    expect(STUDIO_MESSAGES.savedForReview).toContain("审核");
  });
});
