import JSZip from "jszip";
import { beforeAll, describe, expect, it } from "vitest";
import { loader as bookLoader } from "~/routes/shell/reader/book-epub";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { purchaseChapter, setWorkPricing } from "~/server/economy/chapter-sales.server";
import { db } from "~/db/client.server";
import { createWork, updateListing } from "~/server/catalog/works.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { setViewerPrefs } from "../fixtures/works";
import { epubcheck } from "../fixtures/epubcheck";
import { callThroughRoutes } from "./route-chain";

const base = { description: "简介 & <说明>", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let author: { id: string };
let reader: { id: string };
let readerCookie: string;

beforeAll(async () => {
  author = await createUser();
  reader = await createUser();
  readerCookie = await sessionCookieFor(reader.id);
});

/** GET /works/:id/book.epub as the framework would, as `cookie`'s user (or a visitor). */
async function download(workId: number | string, cookie: string | null): Promise<Response> {
  const pathname = `/works/${workId}/book.epub`;
  const req = cookie ? userRequest(cookie, pathname) : new Request(`http://localhost${pathname}`);
  try {
    return (await callThroughRoutes(bookLoader, { request: req, params: { id: String(workId) } })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

async function bytesOf(r: Response): Promise<Uint8Array> {
  return new Uint8Array(await r.arrayBuffer());
}

describe("a reader's EPUB", () => {
  it("gives a free work's published chapters as valid EPUB 3 with the reader's id in the metadata", async () => {
    const work = await createWork(author.id, { ...base, title: "免费 <书> & 集", type: "series", status: "ongoing" }, [
      { title: "第一章 开始", content: "　　第一段 <b>不是标签</b>\n\n　　第二段 & 引号 \"x\"" },
      { title: "第二章", content: "　　第二章的正文" },
    ], null);
    await insertChapter(author.id, work.id, { title: "存稿章", content: "不应出现的存稿", release: { mode: "draft" } }, "end");

    const r = await download(work.id, readerCookie);
    expect(r.status).toBe(200);
    expect(r.headers.get("Content-Type")).toBe("application/epub+zip");
    expect(r.headers.get("Content-Disposition")).toContain("attachment;");
    const bytes = await bytesOf(r);
    expect(Buffer.from(bytes.subarray(30, 58)).toString("latin1")).toBe("mimetypeapplication/epub+zip");

    const check = await epubcheck(bytes);
    expect(check.output).not.toMatch(/^(ERROR|FATAL)/m);
    expect(check.code, check.output).toBe(0);

    const zip = await JSZip.loadAsync(bytes);
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    expect(opf).toContain(`<meta property="inkstone:reader">${reader.id}</meta>`);
    expect(opf).toContain(`读者 ${reader.id}`);
    expect(opf).toContain("<dc:title>免费 &lt;书&gt; &amp; 集</dc:title>");
    const chapterFiles = Object.keys(zip.files).filter((n) => /^OEBPS\/text\/c\d+\.xhtml$/.test(n));
    expect(chapterFiles).toHaveLength(2);
    const all = (await Promise.all(chapterFiles.map((n) => zip.file(n)!.async("string")))).join("");
    expect(all).toContain("&lt;b&gt;不是标签&lt;/b&gt;");
    expect(all).not.toContain("不应出现的存稿");
  }, 120_000); // epubcheck starts a JVM

  it("masks 替换 words in the reader's copy, as the reader page does; the author's own export keeps them", async () => {
    const { createAdmin, actorOf } = await import("./admin-fixtures");
    const { addScreeningWord } = await import("~/server/screening/words.server");
    const { reloadScreening } = await import("~/server/screening/screening.server");
    await addScreeningWord(actorOf(await createAdmin({ role: "operator" })), { word: "书中替换词", category: "广告", level: "replace" });
    await reloadScreening();
    const work = await createWork(author.id, { ...base, title: "有替换词的书", type: "series", status: "ongoing" }, [
      { title: "第一章 书中替换词", content: "　　这里写着书中替换词。" },
    ], null);
    const zip = await JSZip.loadAsync(await bytesOf(await download(work.id, readerCookie)));
    const text = await zip.file("OEBPS/text/c1.xhtml")!.async("string");
    expect(text).toContain("第一章 ＊＊＊＊＊");
    expect(text).toContain("这里写着＊＊＊＊＊。");
    expect(text).not.toContain("书中替换词");
    const { exportOwnWorkEpub } = await import("~/server/studio/work-epub.server");
    const own = await JSZip.loadAsync(await new Response((await exportOwnWorkEpub(author.id, work.id, { drafts: false })).body).arrayBuffer());
    expect(await own.file("OEBPS/text/c1.xhtml")!.async("string")).toContain("这里写着书中替换词。");
  });

  it("gives a paid work only to its buyers; others get 403 and no book", async () => {
    const work = await createWork(author.id, { ...base, title: "付费书", type: "single_chapter", status: "completed" }, [{ title: "正文", content: "付费内容" }], null);
    await updateListing(author.id, work.id, { intent: "set-price", price: 20 });

    const refused = await download(work.id, readerCookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe("购买后才能阅读该作品");

    await db.transaction((tx) => credit(tx, reader.id, 50, "测试充值"));
    await purchaseWork(reader.id, work.id);
    const bought = await download(work.id, readerCookie);
    expect(bought.status).toBe(200);
    const zip = await JSZip.loadAsync(await bytesOf(bought));
    expect(await zip.file("OEBPS/text/c1.xhtml")!.async("string")).toContain("付费内容");
    // A buyer keeps what they paid for, also after the work is taken down.
    await updateListing(author.id, work.id, { intent: "take-down" });
    expect((await download(work.id, readerCookie)).status).toBe(200);
    // Someone else does not get it: private is a 404.
    expect((await download(work.id, await sessionCookieFor((await createUser()).id))).status).toBe(404);
  });

  it("of a work sold by chapter gives the free chapters and the bought ones, in order, and nothing else", async () => {
    const work = await createWork(author.id, { ...base, title: "按章书", type: "series", status: "ongoing" }, [
      { title: "第一章", content: "　　免费一" },
      { title: "第二章", content: "　　免费二" },
      { title: "第三章", content: "　　收费三".repeat(300) },
      { title: "第四章", content: "　　收费四".repeat(300) },
      { title: "第五章", content: "　　收费五".repeat(300) },
    ], null);
    await setWorkPricing(author.id, work.id, { mode: "chapter", vipFrom: "3", pricePerThousand: "5" });
    const buyer = await createUser();
    const buyerCookie = await sessionCookieFor(buyer.id);
    const chapterFiles = async (r: Response) => {
      const zip = await JSZip.loadAsync(await bytesOf(r));
      const names = Object.keys(zip.files).filter((n) => /^OEBPS\/text\/c\d+\.xhtml$/.test(n)).sort();
      return Promise.all(names.map((n) => zip.file(n)!.async("string")));
    };

    // Nothing bought yet: the two free chapters.
    const free = await download(work.id, buyerCookie);
    expect(free.status).toBe(200);
    const freeText = (await chapterFiles(free)).join("");
    expect(freeText).toContain("免费一");
    expect(freeText).toContain("免费二");
    expect(freeText).not.toMatch(/收费/);

    await db.transaction((tx) => credit(tx, buyer.id, 100, "测试充值"));
    const [, , , fourth] = await db.query.chapters.findMany({ where: (c, { eq }) => eq(c.workId, work.id), orderBy: (c, { asc }) => [asc(c.position)] });
    expect((await purchaseChapter(buyer.id, work.id, fourth.id)).status).toBe("purchased");
    const files = await chapterFiles(await download(work.id, buyerCookie));
    expect(files).toHaveLength(3);
    expect(files[2]).toContain("收费四");
    expect(files.join("")).not.toMatch(/收费三|收费五/);
  });

  it("sends visitors to sign in, keeps R-18 behind the reader's setting, and answers bad ids with 404", async () => {
    const work = await createWork(author.id, { ...base, title: "成人书", rating: "r18", type: "single_chapter", status: "completed" }, [{ title: "正文", content: "内容" }], null);
    const visitor = await download(work.id, null);
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("Location")).toContain("auth=login");

    const r18 = await download(work.id, readerCookie);
    expect(r18.status).toBe(403);
    expect(await r18.text()).toBe("当前显示设置下无法阅读该作品");
    await setViewerPrefs(reader.id, { showR18: true });
    expect((await download(work.id, await sessionCookieFor(reader.id))).status).toBe(200);

    expect((await download("999999999", readerCookie)).status).toBe(404);
    expect((await download("abc", readerCookie)).status).toBe(404);
  });
});
