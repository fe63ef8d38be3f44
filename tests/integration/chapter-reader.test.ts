import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { SALE_MESSAGES, setWorkPricing } from "~/server/economy/chapter-sales.server";
import { LEDGER_MESSAGES } from "~/server/economy/ledger.server";
import { checkLedger } from "../../scripts/check-ledger";
import { sessionCookieFor } from "../fixtures/accounts";
import { creditBalance, fund, quickUsers } from "../fixtures/ledger";
import { insertWorks } from "../fixtures/works";
import { runRoute } from "./route-chain";

/** The reader page of a work sold by chapter, through its loader and action (decision 110). */

const SECRET = "只有买了才看得到的句子";

async function serialWork(authorId: string, count = 14) {
  const [workId] = await insertWorks([{ userId: authorId, title: "按章连载" }]);
  await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, workId));
  await db.insert(chapters).values(
    Array.from({ length: count }, (_, i) => ({
      workId,
      title: `第${i + 1}章 标题`,
      content: `${"开头的文字，".repeat(30)}\n${"中间".repeat(200)}\n${SECRET}${i + 1}`,
      position: (i + 1) * 1024,
      wordCount: 2000,
    })),
  );
  await setWorkPricing(authorId, workId, { mode: "chapter", vipFrom: "11", pricePerThousand: "5" });
  const ids = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, workId)).orderBy(chapters.position);
  return { workId, chapterIds: ids.map((r) => r.id) };
}

function request(path: string, cookie: string | null, body?: Record<string, string>) {
  const headers: Record<string, string> = { Origin: "http://localhost" };
  if (cookie) headers.Cookie = cookie;
  if (!body) return new Request(`http://localhost${path}`, { headers });
  return new Request(`http://localhost${path}`, { method: "POST", headers, body: new URLSearchParams(body) });
}

/** What a loader or action answered: a redirect, or its data (unwrapped from data()). */
async function call(kind: "loader" | "action", path: string, cookie: string | null, body?: Record<string, string>) {
  const mod = path.includes("/paragraphs") ? await import("~/routes/shell/reader/paragraphs") : await import("~/routes/shell/reader/work");
  let result: unknown;
  try {
    result = await runRoute(kind, mod, request(path, cookie, body));
  } catch (thrown) {
    result = thrown;
  }
  if (result instanceof Response) {
    const text = result.status >= 300 && result.status < 400 ? "" : await result.text();
    return { status: result.status, location: result.headers.get("Location"), setCookie: result.headers.get("Set-Cookie"), data: text ? JSON.parse(text) : null };
  }
  const wrapped = result as { type?: string; data?: unknown; init?: ResponseInit | null };
  if (wrapped && wrapped.type === "DataWithResponseInit") {
    return { status: wrapped.init?.status ?? 200, location: null, setCookie: null, data: wrapped.data as Record<string, any> };
  }
  return { status: 200, location: null, setCookie: null, data: result as Record<string, any> };
}

describe("reading a work sold by chapter", () => {
  it("opens the free chapters to everyone and locks VIP ones behind a 200-字 preview and the price", async () => {
    const [author] = await quickUsers(1);
    const { workId } = await serialWork(author.id);

    const free = await call("loader", `/works/${workId}?chapter=10`, null);
    expect(free.data?.mode).toBe("chapter");
    expect(JSON.stringify(free.data)).toContain(`${SECRET}10`);

    const locked = await call("loader", `/works/${workId}?chapter=11`, null);
    expect(locked.data).toMatchObject({ mode: "locked", chapter: { title: "第11章 标题", order: 11, price: 10 } });
    const preview = (locked.data?.preview as string[]).join("");
    expect(Array.from(preview.replace(/……$/, "")).length).toBeLessThanOrEqual(200);
    expect(JSON.stringify(locked.data)).not.toContain(SECRET);
    // The next batch is refused as well: no text leaks through the reader's JSON route.
    expect((await call("loader", `/works/${workId}/paragraphs?chapter=11&from=0`, null)).status).toBe(403);
    expect((await call("loader", `/works/${workId}/paragraphs?chapter=3&from=0`, null)).status).toBe(200);

    const home = await call("loader", `/works/${workId}`, null);
    const marks = Object.values(home.data?.marks as Record<string, string>);
    expect(marks).toEqual([...Array(10).fill("free"), ...Array(4).fill("locked")]);
    expect(home.data?.quote).toEqual({ count: 4, sum: 40, total: 40, discountPercent: 0 });
  });

  it("A reader reads 10 free chapters, buys chapter 11, turns on 自动订阅 and buys the rest (no JavaScript)", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const { workId, chapterIds } = await serialWork(author.id);
    const cookie = await sessionCookieFor(reader.id);

    // 购买本章: a plain form post, then the chapter opens in place.
    const bought = await call("action", `/works/${workId}?chapter=11`, cookie, {
      intent: "buy-chapter",
      chapterId: String(chapterIds[10]),
      order: "11",
      price: "10",
    });
    expect(bought.status).toBe(302);
    expect(bought.location).toBe(`/works/${workId}?chapter=11`);
    const opened = await call("loader", `/works/${workId}?chapter=11`, cookie);
    expect(opened.data?.mode).toBe("chapter");
    expect(JSON.stringify(opened.data)).toContain(`${SECRET}11`);

    // 自动订阅 on; chapter 12's locked view says so, and its page posts the purchase.
    const on = await call("action", `/works/${workId}?chapter=12`, cookie, { intent: "auto-subscribe", on: "1", order: "12" });
    expect(on.status).toBe(302);
    const twelve = await call("loader", `/works/${workId}?chapter=12`, cookie);
    expect(twelve.data).toMatchObject({ mode: "locked", autoSubscribed: true });
    for (const order of [12, 13, 14]) {
      const auto = await call("action", `/works/${workId}?chapter=${order}`, cookie, {
        intent: "buy-chapter",
        chapterId: String(chapterIds[order - 1]),
        order: String(order),
        auto: "1",
      });
      expect(auto.location).toBe(`/works/${workId}?chapter=${order}`);
    }
    expect(await creditBalance(reader.id)).toBe(60);
    const home = await call("loader", `/works/${workId}`, cookie);
    expect(Object.values(home.data?.marks as Record<string, string>).slice(10)).toEqual(["owned", "owned", "owned", "owned"]);
    // The chapter drawer (章节列表) marks them the same way, from the same function.
    const drawer = (await call("loader", `/works/${workId}?chapter=1&toc=1`, cookie)).data?.drawer as { chapters: { id: number }[]; marks: Record<string, string> };
    expect(drawer.chapters.map((c) => drawer.marks[c.id])).toEqual([...Array(10).fill("free"), ...Array(4).fill("owned")]);
    const visitor = (await call("loader", `/works/${workId}?chapter=1&toc=1`, null)).data?.drawer as typeof drawer;
    expect(visitor.chapters.map((c) => visitor.marks[c.id])).toEqual([...Array(10).fill("free"), ...Array(4).fill("locked")]);
    expect(await checkLedger(db)).toEqual([]);
  });

  it("says how many credits are missing and offers 去充值 back to the chapter", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 3);
    const { workId, chapterIds } = await serialWork(author.id);
    const cookie = await sessionCookieFor(reader.id);
    const answer = await call("action", `/works/${workId}?chapter=11`, cookie, {
      intent: "buy-chapter",
      chapterId: String(chapterIds[10]),
      order: "11",
      price: "10",
    });
    expect(answer.status).toBe(402);
    expect(answer.data).toEqual({ intent: "buy-chapter", error: LEDGER_MESSAGES.insufficient, missing: 7 });
    expect(await creditBalance(reader.id)).toBe(3);
    const { chapterTopUpHref } = await import("~/components/reader/locked-chapter");
    expect(chapterTopUpHref(workId, 11)).toBe(`/credits?redirectTo=${encodeURIComponent(`/works/${workId}?chapter=11`)}`);
  });

  it("answers bad input with a clear message and changes nothing", async () => {
    const [author, reader] = await quickUsers(2);
    await fund(reader.id, 100);
    const { workId, chapterIds } = await serialWork(author.id);
    const other = await serialWork(author.id);
    const cookie = await sessionCookieFor(reader.id);
    const post = (body: Record<string, string>, who = cookie) => call("action", `/works/${workId}?chapter=11`, who, body);

    expect(await post({ intent: "buy-chapter", chapterId: "abc", order: "11" })).toMatchObject({
      status: 404,
      data: { error: SALE_MESSAGES.chapterMissing },
    });
    expect(await post({ intent: "buy-chapter", chapterId: String(other.chapterIds[11]), order: "11" })).toMatchObject({
      status: 404,
      data: { error: SALE_MESSAGES.chapterMissing },
    });
    expect(await post({ intent: "buy-chapter", chapterId: String(chapterIds[0]), order: "1" })).toMatchObject({
      status: 409,
      data: { error: SALE_MESSAGES.freeChapter },
    });
    expect(await post({ intent: "buy-all", total: "1", order: "11" })).toMatchObject({
      status: 409,
      data: { error: SALE_MESSAGES.priceChanged(40) },
    });
    const authorCookie = await sessionCookieFor(author.id);
    expect(await post({ intent: "buy-chapter", chapterId: String(chapterIds[12]), order: "13" }, authorCookie)).toMatchObject({
      status: 403,
      data: { error: LEDGER_MESSAGES.ownWork },
    });
    // 自动订阅's purchase does nothing while 自动订阅 is off.
    const off = await post({ intent: "buy-chapter", chapterId: String(chapterIds[10]), order: "11", auto: "1" });
    expect(off.status).toBe(302);
    expect(await creditBalance(reader.id)).toBe(100);
    // A visitor is sent to log in.
    const visitor = await post({ intent: "buy-chapter", chapterId: String(chapterIds[10]), order: "11" }, "");
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain("auth=login");
  });
});
