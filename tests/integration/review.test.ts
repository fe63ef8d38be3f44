import { and, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { adminAuditLog, chapters, notificationJobs, notifications, reviewItems, siteConfigs, users, works } from "~/db/schema";
import { claimItem, claimNext, decideItem, queueSummary, reviewQueue, saveReviewPolicy } from "~/server/admin/review-queue.server";
import { setReviewRequired } from "~/server/admin/users.server";
import { setContract } from "~/server/economy/attendance.server";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { workFeed } from "~/server/catalog/feeds.server";
import { createWork } from "~/server/catalog/works.server";
import { purchaseChapter } from "~/server/economy/chapter-sales.server";
import { tableOfContents } from "~/server/reading/reader.server";
import { saveChapter } from "~/server/studio/chapter-text.server";
import { insertChapter, managerPage, publishChapterNow } from "~/server/studio/chapters.server";
import { releaseDueChapters } from "~/server/studio/scheduled-release.server";
import { readReviewPolicy, reviewedVersionHash } from "~/server/studio/review.server";
import { publishWork } from "~/server/studio/work-create.server";
import { REVIEW_MESSAGES } from "~/schemas/review";
import { setFavorite } from "~/server/reading/favorites.server";
import { createUser } from "../fixtures/accounts";
import { serialByChapter } from "../fixtures/works";
import { domainError } from "../fixtures/domain-error";
import { actorOf, adminCookieFor, createAdmin, request, testActor } from "./admin-fixtures";
import { callThroughRoutes } from "./route-chain";
import { addScreeningWord } from "~/server/screening/words.server";
import { reloadScreening } from "~/server/screening/screening.server";

/**
 * 先审后发 (docs/product.md#review, decision 196): the policy, the chapter's states, every
 * reader path hiding a chapter under review, the queue's claims and decisions.
 */

const base = { description: "简介", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

async function policy(p: { newAuthors: boolean; trustedAfter: number; aiWorks: boolean; samplePercent?: number; unsignedAuthors?: boolean }) {
  await saveReviewPolicy({ admin: { id: chief.id, email: chief.email }, address: "127.0.0.1" }, { samplePercent: 0, unsignedAuthors: false, ...p });
}
async function newSeries(userId: string, extra: Partial<typeof base> = {}) {
  // Created while review is off, so the first chapter is out: the work is visible to readers.
  const work = await createWork(userId, { ...base, ...extra, title: "连载", type: "series", status: "ongoing" }, [{ title: "第一章", content: "开头。" }], null);
  return work.id;
}
async function chapterRow(id: number) {
  return (await db.select().from(chapters).where(eq(chapters.id, id)))[0];
}
async function openItem(chapterId: number) {
  return (await db.select().from(reviewItems).where(and(eq(reviewItems.chapterId, chapterId), eq(reviewItems.status, "pending"))))[0];
}
async function jobsFor(workId: number) {
  return db.select().from(notificationJobs).where(eq(notificationJobs.workId, workId));
}

let chief: Awaited<ReturnType<typeof createAdmin>>;
let reviewerA: Awaited<ReturnType<typeof createAdmin>>;
let reviewerB: Awaited<ReturnType<typeof createAdmin>>;

beforeAll(async () => {
  chief = await createAdmin({ role: "chief_editor" });
  reviewerA = await createAdmin({ role: "reviewer" });
  reviewerB = await createAdmin({ role: "reviewer" });
});

describe("the review policy", () => {
  it("starts on (10 chapters) on a new site; test sites start with new authors released at once", async () => {
    const { DEFAULT_SITE_CONFIGS } = await import("~/server/platform/defaults.server");
    expect(DEFAULT_SITE_CONFIGS.review_new_authors).toBe("on");
    expect(DEFAULT_SITE_CONFIGS.review_trusted_after).toBe("10");
    expect(DEFAULT_SITE_CONFIGS.review_sample_percent).toBe("10");
    expect(DEFAULT_SITE_CONFIGS.review_unsigned_authors).toBe("on");
    expect(await readReviewPolicy()).toEqual({ newAuthors: false, trustedAfter: 10, aiWorks: false, samplePercent: 0, unsignedAuthors: false });
  });

  it("holds a new author's chapter, releases a trusted author's at once, and counts up to N published chapters", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id); // 1 published chapter
    await policy({ newAuthors: true, trustedAfter: 3, aiWorks: false });
    const held = await insertChapter(author.id, workId, { title: "第二章", content: "待审。" }, "end");
    expect((await chapterRow(held)).state).toBe("review");
    expect((await openItem(held)).reason).toBe("新作者（已发布 1 章）");

    // Two more published chapters (released while the policy was off) make three: trusted.
    await policy({ newAuthors: false, trustedAfter: 3, aiWorks: false });
    await insertChapter(author.id, workId, { title: "第三章", content: "三。" }, "end");
    await insertChapter(author.id, workId, { title: "第四章", content: "四。" }, "end");
    await policy({ newAuthors: true, trustedAfter: 3, aiWorks: false });
    const out = await insertChapter(author.id, workId, { title: "第五章", content: "五。" }, "end");
    expect((await chapterRow(out)).state).toBe("published");
    expect(await openItem(out)).toBeUndefined();
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
  });

  it("holds every chapter of an author on the 先审名单, and of AI-labelled works when that switch is on", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await setReviewRequired(testActor, author.id, true);
    const listed = await insertChapter(author.id, workId, { title: "名单", content: "正文。" }, "end");
    expect((await openItem(listed)).reason).toBe("先审名单");
    await setReviewRequired(testActor, author.id, false);
    expect((await chapterRow(await insertChapter(author.id, workId, { title: "出", content: "正文。" }, "end"))).state).toBe("published");

    const aiAuthor = await createUser();
    const aiWork = await newSeries(aiAuthor.id, { isAiGenerated: true });
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: true });
    const ai = await insertChapter(aiAuthor.id, aiWork, { title: "AI", content: "正文。" }, "end");
    expect((await openItem(ai)).reason).toBe("AI 标注作品");
    // The same author's work without the label is not held.
    const plain = await newSeries(aiAuthor.id);
    expect((await chapterRow(await insertChapter(aiAuthor.id, plain, { title: "人写", content: "正文。" }, "end"))).state).toBe("published");
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
  });

  it("holds every chapter of an author not under contract when that switch is on, however many are out; 签约 or 买断 release as before", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id);
    for (let i = 0; i < 3; i++) await insertChapter(author.id, workId, { title: `存量${i}`, content: "正文。" }, "end");
    await policy({ newAuthors: true, trustedAfter: 3, aiWorks: false, unsignedAuthors: true });
    const held = await insertChapter(author.id, workId, { title: "未签约", content: "正文。" }, "end");
    expect((await chapterRow(held)).state).toBe("review");
    expect((await openItem(held)).reason).toBe("未签约作者");
    for (const contract of ["signed", "buyout"] as const) {
      await setContract(testActor, author.id, contract);
      expect((await chapterRow(await insertChapter(author.id, workId, { title: contract, content: "正文。" }, "end"))).state).toBe("published");
    }
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
  });

  it("holds a trusted author's chapter, and only those chapters of a new work, that hold a 审核 word; the reviewer sees it marked", async () => {
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
    const operator = await createAdmin({ role: "operator" });
    await addScreeningWord(actorOf(operator), { word: "待审暗号", category: "其他", level: "review" });
    await reloadScreening();
    const author = await createUser();
    const workId = await newSeries(author.id);
    const clean = await insertChapter(author.id, workId, { title: "第二章", content: "平常的一章。", release: { mode: "now" } }, "end");
    const held = await insertChapter(author.id, workId, { title: "第三章", content: "他说出了待 审 暗 号。", release: { mode: "now" } }, "end");
    expect([(await chapterRow(clean)).state, (await chapterRow(held)).state]).toEqual(["published", "review"]);
    expect((await openItem(held)).reason).toBe("含待审词语");

    // A new work by TXT: the clean chapter goes out, the one with the word waits.
    const txt = Buffer.from("####第一章\n干净。\n####第二章\n又见待审暗号。\n");
    const created = await publishWork(author.id, { ...base, title: "新书", type: "multi_chapter", status: "completed" } as never, {
      cover: null,
      txt: { name: "新书.txt", type: "text/plain", size: txt.length, chunks: [txt] },
    });
    const rows = await db.select({ title: chapters.title, state: chapters.state }).from(chapters).where(eq(chapters.workId, created.id)).orderBy(chapters.position);
    expect(rows.map((r) => r.state)).toEqual(["published", "review"]);

    // The item's page marks the word where it stands (spaced out as the author wrote it).
    const { loader } = await import("~/routes/admin/review-item");
    const page = await callThroughRoutes(loader as never, { request: request(`/admin/review/${(await openItem(held)).id}`, { cookie: await adminCookieFor(reviewerA.id) }), params: { id: String((await openItem(held)).id) } }) as { paragraphs: { text: string; hit?: { word: string; level: string } }[][] };
    expect(page.paragraphs).toEqual([[{ text: "他说出了" }, { text: "待 审 暗 号", hit: { word: "待审暗号", level: "review" } }, { text: "。" }]]);
  });

  it("refuses a bad policy form with a Chinese message and changes nothing", async () => {
    const page = await import("~/routes/admin/settings/review");
    const { adminCookieFor, callAction, request } = await import("./admin-fixtures");
    const cookie = await adminCookieFor(chief.id);
    const before = await db.select().from(siteConfigs).where(eq(siteConfigs.key, "review_trusted_after"));
    for (const trustedAfter of ["-1", "1.5", "abc", "100000", ""]) {
      const r = await callAction(page, request("/admin/settings/review", { cookie }, { newAuthors: "on", trustedAfter }));
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.trustedAfter);
    }
    for (const samplePercent of ["-1", "101", "5%", ""]) {
      const r = await callAction(page, request("/admin/settings/review", { cookie }, { trustedAfter: "5", samplePercent }));
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.samplePercent);
    }
    expect(await db.select().from(siteConfigs).where(eq(siteConfigs.key, "review_trusted_after"))).toEqual(before);
    const ok = await callAction(page, request("/admin/settings/review", { cookie }, { trustedAfter: "5", samplePercent: "25", unsignedAuthors: "on" }));
    expect(ok.location).toBe("/admin/settings/review?notice=saved");
    expect(await readReviewPolicy()).toEqual({ newAuthors: false, trustedAfter: 5, aiWorks: false, samplePercent: 25, unsignedAuthors: true });
    const [audit] = await db.select().from(adminAuditLog).where(eq(adminAuditLog.action, "settings.review")).orderBy(desc(adminAuditLog.id)).limit(1);
    expect(audit.adminEmail).toBe(chief.email);
    await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
  });
});

describe("a chapter under review", () => {
  let author: { id: string };
  let reader: { id: string };
  let workId: number;
  let held: number;

  beforeAll(async () => {
    author = await createUser();
    reader = await createUser();
    workId = await newSeries(author.id);
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    await setFavorite({ id: reader.id, showR18: false, showAi: true }, workId, true);
    held = await insertChapter(author.id, workId, { title: "第二章 审核中", content: "秘密的正文。" }, "end");
  });

  it("is 审核中 to its author in the studio's chapter list", async () => {
    const page = await managerPage(author.id, workId, 1);
    const row = page.rows.find((r) => r.kind === "chapter" && r.id === held);
    expect(row).toMatchObject({ state: "review", publishAt: null, review: null });
  });

  it("is nowhere for readers: contents, the chapter by number, counts, the feed, a purchase", async () => {
    const toc = await tableOfContents(workId, false);
    expect(JSON.stringify(toc)).not.toContain("第二章 审核中");
    expect(await getChapterByOrder(workId, 2)).toBeNull();
    const [work] = await db.select().from(works).where(eq(works.id, workId));
    expect(work.chapterCount).toBe(1);
    expect(await workFeed(workId, "http://localhost")).not.toContain("第二章 审核中");
    // Sold by chapter from the first: the chapter under review is not for sale.
    const serial = await serialByChapter(author.id, { count: 2, vipFrom: 1 });
    const vip = await insertChapter(author.id, serial.workId, { title: "VIP 审核中", content: "付费正文。" }, "end");
    expect((await chapterRow(vip)).state).toBe("review");
    const refused = await domainError(purchaseChapter(reader.id, serial.workId, vip));
    expect([refused.status, refused.message]).toEqual([404, "章节不存在"]);
  });

  it("tells no follower and starts no job until it is out", async () => {
    expect(await jobsFor(workId)).toEqual([]);
  });

  it("cannot be published around the review from the manager", async () => {
    const refused = await domainError(publishChapterNow(author.id, workId, held));
    expect([refused.status, refused.message]).toEqual([409, "该章节正在审核中，审核通过后发布"]);
    expect((await chapterRow(held)).state).toBe("review");
  });

  it("keeps the submitted text while the author autosaves; 保存 resubmits the new text", async () => {
    const row = await chapterRow(held);
    await saveChapter(author.id, workId, held, { kind: "autosave", content: "改过的正文。", baseRevision: row.revision });
    const first = await openItem(held);
    expect(first.contentHash).toBe(reviewedVersionHash("第二章 审核中", "秘密的正文。"));
    expect((await chapterRow(held)).content).toBe("秘密的正文。");
    const saved = await saveChapter(author.id, workId, held, { kind: "save", content: "改过的正文。", release: { mode: "now" } });
    expect(saved.released).toBe("review");
    const second = await openItem(held);
    expect(second.id).not.toBe(first.id);
    expect(second.contentHash).toBe(reviewedVersionHash("第二章 审核中", "改过的正文。"));
    const [old] = await db.select().from(reviewItems).where(eq(reviewItems.id, first.id));
    expect(old.status).toBe("withdrawn");
  });

  it("keeps its 定时 time and is not released by the poller before approval", async () => {
    const at = new Date(Date.now() + 3_600_000);
    const scheduled = await insertChapter(author.id, workId, { title: "定时章", content: "定时。" }, "end", {}).then(async (id) => {
      await saveChapter(author.id, workId, id, { kind: "save", content: "定时。", release: { mode: "at", at } });
      return id;
    });
    const row = await chapterRow(scheduled);
    expect(row.state).toBe("review");
    expect(row.publishAt?.getTime()).toBe(at.getTime());
    await db.execute(sql`update chapters set publish_at = now() - interval '1 second' where id = ${scheduled}`);
    await releaseDueChapters();
    expect((await chapterRow(scheduled)).state).toBe("review");
  });
});

describe("a 定时 chapter coming due (decision 214)", () => {
  async function scheduledChapter(authorId: string, workId: number, title: string, content: string) {
    const id = await insertChapter(authorId, workId, { title, content, release: { mode: "at", at: new Date(Date.now() + 3_600_000) } }, "end");
    expect((await chapterRow(id)).state).toBe("scheduled");
    await db.execute(sql`update chapters set publish_at = now() - interval '1 second' where id = ${id}`);
    return id;
  }

  it("is asked the policy and the word list again: an author put on the 先审名单, or a word added since, holds it; one approved goes out", async () => {
    const operator = await createAdmin({ role: "operator" });
    const author = await createUser();
    const workId = await newSeries(author.id);
    const word = `定时后加的词${Date.now().toString(36)}`;
    const worded = await scheduledChapter(author.id, workId, "第二章", `这里有${word}。`);
    const clean = await scheduledChapter(author.id, workId, "第三章", "干净的定时章。");
    await addScreeningWord(actorOf(operator), { word, category: "其他", level: "review" });
    await reloadScreening();
    await releaseDueChapters();
    expect([(await chapterRow(worded)).state, (await chapterRow(clean)).state]).toEqual(["review", "published"]);
    expect((await openItem(worded)).reason).toBe("含待审词语");
    // Approved after its time: out at once, and not held again by the same word.
    await claimItem(actorOf(reviewerA), "reviewer", (await openItem(worded)).id);
    expect(await decideItem(actorOf(reviewerA), "reviewer", (await openItem(worded)).id, "approve", "")).toBe("published");

    const later = await scheduledChapter(author.id, workId, "第四章", "作者上了先审名单之后到点。");
    await setReviewRequired(actorOf(operator), author.id, true);
    await releaseDueChapters();
    expect((await chapterRow(later)).state).toBe("review");
    expect((await openItem(later)).reason).toBe("先审名单");
    // Approved before its time: it waits for it, then goes out without another review.
    await db.execute(sql`update chapters set publish_at = now() + interval '1 hour' where id = ${later}`);
    await claimItem(actorOf(reviewerA), "reviewer", (await openItem(later)).id);
    expect(await decideItem(actorOf(reviewerA), "reviewer", (await openItem(later)).id, "approve", "")).toBe("scheduled");
    await db.execute(sql`update chapters set publish_at = now() - interval '1 second' where id = ${later}`);
    await releaseDueChapters();
    expect([(await chapterRow(later)).state, await openItem(later)]).toEqual(["published", undefined]);
    await setReviewRequired(actorOf(operator), author.id, false);
  });
});

describe("a new author's new work", () => {
  it("waits whole for review: its chapters 审核中, its counts zero", async () => {
    const author = await createUser();
    await policy({ newAuthors: true, trustedAfter: 10, aiWorks: false });
    try {
      const work = await publishWork(author.id, { ...base, title: "新书", type: "series", status: "ongoing", chapterTitle: "第一章", chapterContent: "新人的正文。" } as never, { cover: null, txt: null });
      const rows = await db.select().from(chapters).where(eq(chapters.workId, work.id));
      expect(rows.map((r) => r.state)).toEqual(["review"]);
      const [fresh] = await db.select().from(works).where(eq(works.id, work.id));
      expect(fresh.chapterCount).toBe(0);
      expect(await openItem(rows[0].id)).toMatchObject({ reason: "新作者（已发布 0 章）" });
    } finally {
      await policy({ newAuthors: false, trustedAfter: 10, aiWorks: false });
    }
  });
});

describe("the queue", () => {
  /** A fresh author on the 先审名单 with one chapter waiting; its ids. */
  async function waiting(title = "待审章") {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    const chapterId = await insertChapter(author.id, workId, { title, content: `${title}的正文。` }, "end");
    // A follower, to be told when the chapter is out (and only then).
    await setFavorite({ id: (await createUser()).id, showR18: false, showAi: true }, workId, true);
    return { author, workId, chapterId, itemId: (await openItem(chapterId)).id };
  }

  it("lists items oldest first, with the oldest's age, and claims the oldest nobody holds", async () => {
    const a = await waiting("最早");
    await db.update(reviewItems).set({ submittedAt: new Date(Date.now() - 3 * 3_600_000) }).where(eq(reviewItems.id, a.itemId));
    const b = await waiting("其次");
    await db.update(reviewItems).set({ submittedAt: new Date(Date.now() - 2 * 3_600_000) }).where(eq(reviewItems.id, b.itemId));
    const queue = await reviewQueue();
    const ids = queue.rows.map((r) => r.id);
    expect(ids.indexOf(a.itemId)).toBeLessThan(ids.indexOf(b.itemId));
    const summary = await queueSummary();
    expect(summary.pending).toBeGreaterThanOrEqual(2);
    expect(Date.now() - summary.oldest!.getTime()).toBeGreaterThanOrEqual(3 * 3_600_000 - 60_000);

    const first = await claimNext(actorOf(reviewerA), "reviewer");
    const second = await claimNext(actorOf(reviewerB), "reviewer");
    expect(first).toBe(queue.rows[0].id);
    expect(second).not.toBe(first);
    // A reviewer asking again gets the item they hold.
    expect(await claimNext(actorOf(reviewerA), "reviewer")).toBe(first);
  });

  it("never gives two reviewers claiming at once the same item", async () => {
    for (let i = 0; i < 4; i++) await waiting(`并发${i}`);
    const reviewers = await Promise.all(Array.from({ length: 6 }, () => createAdmin({ role: "reviewer" })));
    const claimed = await Promise.all(reviewers.map((r) => claimNext(actorOf(r), "reviewer")));
    const got = claimed.filter((id): id is number => id !== null);
    expect(new Set(got).size).toBe(got.length);
  });

  it("通过 releases the chapter as an unreviewed release would: readers see it, followers are told, audited with the version", async () => {
    const w = await waiting("通过章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    expect(await decideItem(actorOf(reviewerA), "reviewer", w.itemId, "approve", "")).toBe("published");
    expect((await chapterRow(w.chapterId)).state).toBe("published");
    expect((await getChapterByOrder(w.workId, 2))?.title).toBe("通过章");
    expect((await jobsFor(w.workId)).map((j) => j.chapterId)).toEqual([w.chapterId]);
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.approve"), eq(adminAuditLog.targetId, String(w.chapterId))));
    expect(audit.adminEmail).toBe(reviewerA.email);
    expect(audit.after).toMatchObject({ item: w.itemId, status: "approved", contentHash: reviewedVersionHash("通过章", "通过章的正文。") });
  });

  it("退回修改 sends it back with the reason beside the chapter; the revised chapter returns to the queue", async () => {
    const w = await waiting("退回章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    const noReason = await domainError(decideItem(actorOf(reviewerA), "reviewer", w.itemId, "return", "  "));
    expect([noReason.status, noReason.message]).toEqual([400, REVIEW_MESSAGES.noteRequired]);
    expect((await chapterRow(w.chapterId)).state).toBe("review");

    expect(await decideItem(actorOf(reviewerA), "reviewer", w.itemId, "return", "第三段有错别字")).toBe("returned");
    const row = await chapterRow(w.chapterId);
    expect(row.state).toBe("draft");
    const page = await managerPage(w.author.id, w.workId, 1);
    expect(page.rows.find((r) => r.kind === "chapter" && r.id === w.chapterId)).toMatchObject({ state: "draft", review: { status: "returned", note: "第三段有错别字" } });

    await saveChapter(w.author.id, w.workId, w.chapterId, { kind: "save", content: "改好的正文。", release: { mode: "now" } });
    const again = await openItem(w.chapterId);
    expect(again.id).not.toBe(w.itemId);
    expect((await chapterRow(w.chapterId)).state).toBe("review");
  });

  it("拒绝 keeps the chapter from readers as a draft with the reason", async () => {
    const w = await waiting("拒绝章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    expect(await decideItem(actorOf(reviewerA), "reviewer", w.itemId, "reject", "内容违规")).toBe("rejected");
    expect((await chapterRow(w.chapterId)).state).toBe("draft");
    expect(await getChapterByOrder(w.workId, 2)).toBeNull();
    expect(await jobsFor(w.workId)).toEqual([]);
  });

  it("refuses a decision on an item someone else holds, on one already decided, and unclaimed: a clear message, no change", async () => {
    const w = await waiting("争抢章");
    const unclaimed = await domainError(decideItem(actorOf(reviewerB), "reviewer", w.itemId, "approve", ""));
    expect([unclaimed.status, unclaimed.message]).toEqual([409, REVIEW_MESSAGES.notClaimed]);
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    const taken = await domainError(claimItem(actorOf(reviewerB), "reviewer", w.itemId));
    expect([taken.status, taken.message]).toEqual([409, REVIEW_MESSAGES.claimedByOther(reviewerA.email)]);
    const other = await domainError(decideItem(actorOf(reviewerB), "reviewer", w.itemId, "reject", "不行"));
    expect(other.message).toBe(REVIEW_MESSAGES.claimedByOther(reviewerA.email));
    expect((await chapterRow(w.chapterId)).state).toBe("review");

    await decideItem(actorOf(reviewerA), "reviewer", w.itemId, "approve", "");
    const twice = await domainError(decideItem(actorOf(reviewerA), "reviewer", w.itemId, "reject", "改主意"));
    expect([twice.status, twice.message]).toEqual([409, REVIEW_MESSAGES.alreadyDecided("approved")]);
    expect((await chapterRow(w.chapterId)).state).toBe("published");
    const missing = await domainError(decideItem(actorOf(reviewerA), "reviewer", 99_999_999, "approve", ""));
    expect([missing.status, missing.message]).toEqual([404, REVIEW_MESSAGES.notFound]);
  });

  it("lets a 总编辑 decide an item a reviewer holds (overrule), audited as such", async () => {
    const w = await waiting("总编章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    expect(await decideItem(actorOf(chief), "chief_editor", w.itemId, "reject", "总编辑否决")).toBe("rejected");
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.reject"), eq(adminAuditLog.targetId, String(w.chapterId))));
    expect(audit.after).toMatchObject({ overrule: true });
  });

  it("lets a 总编辑 reverse a 拒绝 or 退回修改 while the chapter is the unchanged draft, and an approval; a 审核员 cannot, nor anyone after the author changed it", async () => {
    const w = await waiting("复核章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    await decideItem(actorOf(reviewerA), "reviewer", w.itemId, "reject", "误判");
    const refused = await domainError(decideItem(actorOf(reviewerA), "reviewer", w.itemId, "approve", ""));
    expect(refused.message).toBe(REVIEW_MESSAGES.alreadyDecided("rejected"));
    const same = await domainError(decideItem(actorOf(chief), "chief_editor", w.itemId, "reject", "再拒一次"));
    expect(same.message).toBe(REVIEW_MESSAGES.alreadyDecided("rejected"));
    expect(await decideItem(actorOf(chief), "chief_editor", w.itemId, "approve", "")).toBe("published");
    expect((await chapterRow(w.chapterId)).state).toBe("published");
    expect((await jobsFor(w.workId)).map((j) => j.chapterId)).toEqual([w.chapterId]);
    const [audit] = await db.select().from(adminAuditLog).where(and(eq(adminAuditLog.action, "review.approve"), eq(adminAuditLog.targetId, String(w.chapterId))));
    expect([audit.adminEmail, audit.before, audit.after]).toEqual([chief.email, { status: "rejected" }, expect.objectContaining({ overrule: true, status: "approved" })]);
    // A 审核员 cannot take an approval back; a 总编辑 can (decision 214): readers lose the chapter.
    const notMine = await domainError(decideItem(actorOf(reviewerA), "reviewer", w.itemId, "reject", "撤回"));
    expect(notMine.message).toBe(REVIEW_MESSAGES.alreadyDecided("approved"));
    const before = await db.select({ chapterCount: works.chapterCount }).from(works).where(eq(works.id, w.workId));
    expect(await decideItem(actorOf(chief), "chief_editor", w.itemId, "reject", "复查发现问题")).toBe("approval-rejected");
    expect((await chapterRow(w.chapterId)).state).toBe("draft");
    const after = await db.select({ chapterCount: works.chapterCount }).from(works).where(eq(works.id, w.workId));
    expect(after[0].chapterCount).toBe(before[0].chapterCount - 1);
    const [taken] = await db
      .select()
      .from(adminAuditLog)
      .where(and(eq(adminAuditLog.action, "review.reject"), eq(adminAuditLog.targetId, String(w.chapterId))))
      .orderBy(desc(adminAuditLog.id))
      .limit(1);
    expect([taken.before, taken.reason]).toEqual([{ status: "approved" }, "复查发现问题"]);
    const [line] = await db.select().from(notifications).where(and(eq(notifications.userId, w.author.id), eq(notifications.kind, "review"))).orderBy(desc(notifications.id)).limit(1);
    expect(line.body).toBe("章节「复核章」此前的审核通过已被总编辑撤销，改为未通过审核，读者看不到该章节。原因：复查发现问题");
    // And back again: 通过 releases it once more.
    expect(await decideItem(actorOf(chief), "chief_editor", w.itemId, "approve", "")).toBe("published");
    expect((await chapterRow(w.chapterId)).state).toBe("published");

    const v = await waiting("已改章");
    await claimItem(actorOf(reviewerA), "reviewer", v.itemId);
    await decideItem(actorOf(reviewerA), "reviewer", v.itemId, "return", "改一改");
    await saveChapter(v.author.id, v.workId, v.chapterId, { kind: "save", content: "作者改过了。", release: { mode: "draft" } });
    const changed = await domainError(decideItem(actorOf(chief), "chief_editor", v.itemId, "approve", ""));
    expect([changed.status, changed.message]).toEqual([409, REVIEW_MESSAGES.changed]);
    expect((await chapterRow(v.chapterId)).state).toBe("draft");
  });

  it("withdraws the item when the author takes the chapter back to 存稿; the reviewer's decision then changes nothing", async () => {
    const w = await waiting("撤回章");
    await claimItem(actorOf(reviewerA), "reviewer", w.itemId);
    await saveChapter(w.author.id, w.workId, w.chapterId, { kind: "save", content: "撤回章的正文。", release: { mode: "draft" } });
    const late = await domainError(decideItem(actorOf(reviewerA), "reviewer", w.itemId, "approve", ""));
    expect([late.status, late.message]).toEqual([409, REVIEW_MESSAGES.alreadyDecided("withdrawn")]);
    expect((await chapterRow(w.chapterId)).state).toBe("draft");
  });

  it("releases a 定时 chapter approved before its time at that time, not at once", async () => {
    const author = await createUser();
    const workId = await newSeries(author.id);
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    const at = new Date(Date.now() + 3_600_000);
    const chapterId = await insertChapter(author.id, workId, { title: "定时", content: "定时正文。", release: { mode: "at", at } }, "end");
    const item = await openItem(chapterId);
    await claimItem(actorOf(reviewerA), "reviewer", item.id);
    expect(await decideItem(actorOf(reviewerA), "reviewer", item.id, "approve", "")).toBe("scheduled");
    const row = await chapterRow(chapterId);
    expect([row.state, row.publishAt?.getTime()]).toEqual(["scheduled", at.getTime()]);
    expect(await jobsFor(workId)).toEqual([]);
  });
});

describe("the policy on a site that ran before review existed", () => {
  it("starts with the count rule off there, and on for a new site", async () => {
    const { seedDefaults } = await import("~/server/platform/defaults.server");
    const stored = async () => (await db.select().from(siteConfigs).where(eq(siteConfigs.key, "review_new_authors")))[0]?.value;
    // A site with settings but no review key: one that ran before review existed.
    await db.delete(siteConfigs).where(eq(siteConfigs.key, "review_new_authors"));
    await seedDefaults(db);
    expect(await stored()).toBe("off");
    // A new site: no settings at all.
    await db.delete(siteConfigs);
    await seedDefaults(db);
    expect(await stored()).toBe("on");
    // An operator's choice survives restarts.
    await db.update(siteConfigs).set({ value: "off" }).where(eq(siteConfigs.key, "review_new_authors"));
    await seedDefaults(db);
    expect(await stored()).toBe("off");
  });
});

describe("the item page's forms", () => {
  it("answers bad input with a Chinese message and changes nothing", async () => {
    const { adminCookieFor, callAction, request } = await import("./admin-fixtures");
    const page = await import("~/routes/admin/review-item");
    const author = await createUser();
    const workId = await newSeries(author.id);
    await db.update(users).set({ reviewRequired: true }).where(eq(users.id, author.id));
    const chapterId = await insertChapter(author.id, workId, { title: "表单章", content: "表单章的正文。" }, "end");
    const item = await openItem(chapterId);
    const cookie = await adminCookieFor(reviewerA.id);
    const post = (id: string, fields: Record<string, string>) => callAction(page, request(`/admin/review/${id}`, { cookie }, fields), { id });

    await post(String(item.id), { intent: "claim" });
    let r = await post(String(item.id), { intent: "decide", decision: "publish-anyway" });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.decision);
    r = await post(String(item.id), { intent: "decide", decision: "return", note: "长".repeat(501) });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.noteTooLong);
    r = await post(String(item.id), { intent: "decide", decision: "reject", note: "" });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.noteRequired);
    r = await post("abc", { intent: "decide", decision: "approve" });
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.notFound);
    expect((await chapterRow(chapterId)).state).toBe("review");
    expect((await openItem(chapterId)).id).toBe(item.id);

    r = await post(String(item.id), { intent: "decide", decision: "approve" });
    expect(r.location).toBe("/admin/review?notice=review-approved");
    r = await post(String(item.id), { intent: "decide", decision: "approve" });
    expect(r.status).toBe(409);
    expect(JSON.stringify(r.data)).toContain(REVIEW_MESSAGES.alreadyDecided("approved"));
  });
});
