import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, readingProgress, works } from "~/db/schema";
import { credit } from "~/server/economy/ledger.server";
import { purchaseChapter } from "~/server/economy/chapter-sales.server";
import { saveReaderSettings } from "~/server/reading/reader-settings.server";
import { OFFLINE_MESSAGES } from "~/server/reading/offline.server";
import { DEFAULT_READER_SETTINGS } from "~/schemas/reader-settings-rules";
import { createUser, postRequest, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { insertWorks, serialByChapter } from "../fixtures/works";
import { runRoute } from "./route-chain";

/**
 * 离线阅读 on the server (decision 244): GET /works/:id/offline lists what a reader may keep
 * on their device (free or owned chapters, never a paid one they do not own), a page fetched
 * for keeping records no reading position, and a position sent later loses to a newer one.
 */

type Plan = { key: string; chapters: { order: number; title: string }[]; urls: string[]; locked: number; error?: string };

const offline = () => import("~/routes/shell/reader/offline");
const workPage = () => import("~/routes/shell/reader/work");
const progressRoute = () => import("~/routes/shell/reader/progress");

async function plan(workId: number, cookie: string | null, query = ""): Promise<{ status: number; body: Plan }> {
  const path = `/works/${workId}/offline${query}`;
  const request = cookie ? userRequest(cookie, path) : new Request(`http://localhost${path}`);
  const response = (await runRoute("loader", await offline(), request)) as Response;
  return { status: response.status, body: (await response.json()) as Plan };
}

let author: { id: string };
let reader: { id: string };
let readerCookie: string;
let serial: { workId: number; chapterIds: number[] };

beforeAll(async () => {
  author = await createUser();
  reader = await createUser();
  readerCookie = await sessionCookieFor(reader.id);
  // Six chapters, VIP from the third; the reader buys the fourth.
  serial = await serialByChapter(author.id, { count: 6, vipFrom: 3, perThousand: 5 });
  await db.transaction((tx) => credit(tx, reader.id, 1000, "测试充值"));
  await purchaseChapter(reader.id, serial.workId, serial.chapterIds[3]);
});

describe("which chapters a reader may keep", () => {
  it("lists the free and owned chapters of the next N, never a paid one the reader does not own", async () => {
    const { status, body } = await plan(serial.workId, readerCookie, "?from=1");
    expect(status).toBe(200);
    expect(body.chapters.map((c) => c.order)).toEqual([1, 2, 4]);
    expect(body.locked).toBe(3);
    expect(body.urls).toEqual([`/works/${serial.workId}?chapter=1`, `/works/${serial.workId}?chapter=2`, `/works/${serial.workId}?chapter=4`]);
    expect(body.key).toMatch(/^[0-9a-f]{32}$/);
  });

  it("refuses a paid chapter the reader does not own, and says why", async () => {
    for (const from of [3, 5]) {
      const { status, body } = await plan(serial.workId, readerCookie, `?from=${from}`);
      expect(status).toBe(403);
      expect(body.error).toBe(OFFLINE_MESSAGES.locked);
    }
  });

  it("refuses visitors, hidden works, missing chapters and bad input with a 4xx, never a 500", async () => {
    expect(await plan(serial.workId, null, "?from=1")).toEqual({ status: 401, body: { error: OFFLINE_MESSAGES.signIn } });
    expect((await plan(serial.workId, readerCookie, "?from=abc")).status).toBe(400);
    expect((await plan(serial.workId, readerCookie, "?from=99")).status).toBe(404);
    const [hidden] = await insertWorks([{ userId: author.id, title: "未公开", visibility: "private" }]);
    expect((await plan(hidden, readerCookie)).status).toBe(404);
    expect((await plan(999_999_999, readerCookie)).status).toBe(404);
    // A work sold whole and not bought: nothing to keep, only the count of what is locked.
    const [paid] = await insertWorks([{ userId: author.id, title: "整本付费", visibility: "public-vip", price: 10 }]);
    await db.insert(chapters).values([{ workId: paid, title: "第一章", content: "付费正文", position: 1, wordCount: 4 }]);
    const whole = await plan(paid, readerCookie);
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ chapters: [], urls: [], locked: 1 });
    expect((await plan(paid, readerCookie, "?from=1")).status).toBe(403);
  });

  it("gives each person their own cache key, the same on every request", async () => {
    const other = await createUser();
    const otherCookie = await sessionCookieFor(other.id);
    const mine = (await plan(serial.workId, readerCookie, "?from=1")).body.key;
    expect((await plan(serial.workId, readerCookie, "?from=2")).body.key).toBe(mine);
    const theirs = (await plan(serial.workId, otherCookie, "?from=1")).body;
    expect(theirs.key).not.toBe(mine);
    // The other reader owns nothing: only the two free chapters.
    expect(theirs.chapters.map((c) => c.order)).toEqual([1, 2]);
  });

  it("starts where the reader is, keeps as many as their setting says, and lists a long chapter's later batches", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    const [id] = await insertWorks([{ userId: author.id, title: "长篇免费" }]);
    const long = Array.from({ length: 130 }, (_, i) => `第${i}段`).join("\n");
    await db.insert(chapters).values(Array.from({ length: 12 }, (_, i) => ({ workId: id, title: `第${i + 1}章`, content: i === 2 ? long : `第${i + 1}章正文`, position: i + 1, wordCount: 10 })));
    await db.update(works).set({ chapterCount: 12 }).where(eq(works.id, id));

    // No position yet: from the first chapter, ten by default.
    const first = await plan(id, cookie);
    expect(first.body.chapters.map((c) => c.order)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.body.urls).toContain(`/works/${id}/paragraphs?chapter=3&from=50`);
    expect(first.body.urls).toContain(`/works/${id}/paragraphs?chapter=3&from=100`);
    expect(first.body.urls.filter((u) => u.includes("/paragraphs"))).toHaveLength(2);

    // Having opened chapter 9: from there, to the last.
    await runRoute("loader", await workPage(), userRequest(cookie, `/works/${id}?chapter=9`));
    expect((await plan(id, cookie)).body.chapters.map((c) => c.order)).toEqual([9, 10, 11, 12]);

    // 离线阅读章数 5.
    await saveReaderSettings(new Request("http://localhost/"), someone.id, { ...DEFAULT_READER_SETTINGS, offlineChapters: "5" });
    expect((await plan(id, cookie, "?from=1")).body.chapters.map((c) => c.order)).toEqual([1, 2, 3, 4, 5]);
    await expect(saveReaderSettings(new Request("http://localhost/"), someone.id, { ...DEFAULT_READER_SETTINGS, offlineChapters: "7" })).rejects.toMatchObject({
      status: 400,
      message: "离线章数只能是 5、10 或 20 章",
    });
  });
});

describe("keeping a page and syncing a position later", () => {
  async function position(userId: string, workId: number) {
    const [row] = await db
      .select({ chapterId: readingProgress.chapterId, paragraph: readingProgress.paragraph })
      .from(readingProgress)
      .where(and(eq(readingProgress.userId, userId), eq(readingProgress.workId, workId)));
    return row ?? null;
  }

  it("a page fetched to be kept shows the chapter but records no reading position", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    const request = new Request(`http://localhost/works/${serial.workId}?chapter=2`, { headers: { Cookie: cookie, "X-Inkstone-Offline": "keep" } });
    const page = (await runRoute("loader", await workPage(), request)) as { mode: string; batch: { paragraphs: string[] } };
    expect(page.mode).toBe("chapter");
    expect(page.batch.paragraphs.join("")).toContain("第2章的正文");
    expect(await position(someone.id, serial.workId)).toBeNull();
  });

  it("a position saved offline is kept unless a newer one was saved since; a bad time is a 400", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    const save = async (fields: Record<string, string>) =>
      ((await runRoute("action", await progressRoute(), postRequest(`/works/${serial.workId}/progress`, fields, { Cookie: cookie }))) as Response).status;
    const [one, two] = serial.chapterIds;

    expect(await save({ chapterId: String(two), paragraph: "5" })).toBe(204);
    // Reached offline an hour ago: older than what the server has, so it loses.
    expect(await save({ chapterId: String(one), paragraph: "3", savedAt: String(Date.now() - 3600_000) })).toBe(204);
    expect(await position(someone.id, serial.workId)).toEqual({ chapterId: two, paragraph: 5 });
    // Reached offline after the last save (a clock ahead counts as now): it wins.
    expect(await save({ chapterId: String(one), paragraph: "7", savedAt: String(Date.now() + 3600_000) })).toBe(204);
    expect(await position(someone.id, serial.workId)).toEqual({ chapterId: one, paragraph: 7 });
    for (const savedAt of ["soon", "-1", "1.5"]) expect(await save({ chapterId: String(one), paragraph: "1", savedAt })).toBe(400);
    expect(await position(someone.id, serial.workId)).toEqual({ chapterId: one, paragraph: 7 });
  });
});
