import { asc, eq } from "drizzle-orm";
import JSZip from "jszip";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { loader as adminTxtLoader } from "~/routes/exports/work-txt";
import { loader as exportLoader } from "~/routes/shell/studio/export";
import { action as submitAction } from "~/routes/shell/works/submit";
import { storeCover } from "~/server/platform/images.server";
import { createVolume, insertChapter } from "~/server/studio/chapters.server";
import { createWork } from "~/server/catalog/works.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { epubcheck } from "../fixtures/epubcheck";
import { adminCookieFor, createAdmin, request } from "./admin-fixtures";
import { callThroughRoutes } from "./route-chain";

const base = { description: "简介第一行\n#### 简介里的井号", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let owner: { id: string };
let ownerCookie: string;
let otherCookie: string;
beforeAll(async () => {
  owner = await createUser();
  ownerCookie = await sessionCookieFor(owner.id);
  otherCookie = await sessionCookieFor((await createUser()).id);
});

/** GET an export address as the framework would, as `cookie`'s user (or a visitor). */
async function download(pathname: string, cookie: string | null): Promise<Response> {
  const req = cookie ? userRequest(cookie, pathname) : new Request(`http://localhost${pathname}`);
  try {
    return (await callThroughRoutes(exportLoader, { request: req })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

async function publishedChapters(workId: number) {
  const rows = await db
    .select({ title: chapters.title, content: chapters.content, state: chapters.state })
    .from(chapters)
    .where(eq(chapters.workId, workId))
    .orderBy(asc(chapters.position), asc(chapters.id));
  return rows.filter((r) => r.state === "published").map((r) => [r.title, r.content]);
}

/** Imports a TXT through the publish wizard (the existing importer) and returns the new work's chapters. */
async function importTxt(text: string, title: string) {
  const form = new FormData();
  const fields = { status: "completed", type: "multi_chapter", title, description: "再导入", rating: "all_ages", visibility: "private", separator: "####" };
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set("txt", new File([text], "导出.txt", { type: "text/plain" }));
  const response = (await callThroughRoutes(submitAction, { request: userRequest(ownerCookie, "/submit", form) })) as Response;
  expect(response.status).toBe(302);
  const [work] = await db.select().from(works).where(eq(works.title, title));
  return publishedChapters(work.id);
}

/** A work with chapters before the first volume, two volumes (and an empty one), a draft and a scheduled chapter. */
async function workWithVolumes(title: string, list: { title: string; content: string }[]) {
  const work = await createWork(owner.id, { ...base, title, type: "series", status: "ongoing" }, list, null);
  const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));
  await createVolume(owner.id, work.id, "第一卷 & <起>", rows[1].id);
  await createVolume(owner.id, work.id, "空卷", rows[3].id);
  await createVolume(owner.id, work.id, "第二卷 终", rows[3].id);
  await insertChapter(owner.id, work.id, { title: "存稿一章", content: "还没写完的存稿。", release: { mode: "draft" } }, "end");
  await insertChapter(owner.id, work.id, { title: "空的存稿", content: "", release: { mode: "draft" } }, "end");
  await insertChapter(owner.id, work.id, { title: "定时一章", content: "明天见。", release: { mode: "at", at: new Date(Date.now() + 86_400_000) } }, "end");
  return work;
}

const LONG = Array.from({ length: 4000 }, (_, i) => `　　第${i}段：他说“A&B<C>”，然后笑了😀。`).join("\n");
const TRICKY = [
  { title: "序章 <开始> & \"引号\"", content: "　　雨落在青石板上。\n\n　　R&D <b>不是标签</b> 😀 'single'\n#### 行首的井号\n  #### 缩进的井号" },
  { title: "第一章 雨夜", content: "　　她撑着伞，慢慢走着。\n“你来了。”\u0007控制字符" },
  { title: "第二章 很长", content: LONG },
  { title: "第三章 重逢 🌧", content: "他没有回答。\n\n\n风从河面上吹来。" },
  { title: "第四章 终", content: "完。" },
];

describe("the owner's TXT export", () => {
  it("re-imports through the TXT importer into the same published chapters, volumes and drafts left out", async () => {
    const work = await workWithVolumes("往返/作品", TRICKY);
    const r = await download(`/works/${work.id}/export.txt`, ownerCookie);
    expect(r.status).toBe(200);
    expect(r.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(r.headers.get("Content-Disposition")).toBe(
      `attachment; filename="work-${work.id}.txt"; filename*=UTF-8''${encodeURIComponent("往返 作品.txt")}`,
    );
    const text = await r.text();
    // The volumes are visible to a person reading the file; the header names the work.
    expect(text.startsWith("《往返/作品》\n")).toBe(true);
    expect(text).toContain("\n#### 第一卷 & <起>\n");
    expect(text).not.toContain("存稿一章");
    expect(text).not.toContain("空卷");

    const back = await importTxt(text, "往返再导入");
    const expected = (await publishedChapters(work.id)).map(([t, c]) => [t, c.replace("\n#### 行首的井号", "\n\u3000#### 行首的井号")]);
    expect(back).toEqual(expected);
    expect(back).toHaveLength(5);
  });

  it("with 存稿 and 定时 chapters when asked (a draft without text is left out)", async () => {
    const work = await workWithVolumes("含存稿", TRICKY.slice(0, 4).map((c) => ({ ...c, content: c.content.slice(0, 200) })));
    const text = await (await download(`/works/${work.id}/export.txt?drafts=1`, ownerCookie)).text();
    const back = await importTxt(text, "含存稿再导入");
    expect(back.map(([t]) => t)).toEqual([...TRICKY.slice(0, 4).map((c) => c.title), "存稿一章", "定时一章"]);
  });
});

async function bytesOf(r: Response): Promise<{ bytes: Uint8Array; chunks: number; largest: number }> {
  const parts: Uint8Array[] = [];
  let largest = 0;
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    parts.push(chunk);
    largest = Math.max(largest, chunk.byteLength);
  }
  return { bytes: Buffer.concat(parts), chunks: parts.length, largest };
}

describe("the owner's EPUB export", () => {
  it("passes epubcheck with a cover, volumes in the table of contents and escaped text", async () => {
    const work = await workWithVolumes("雨夜 <EPUB> & 书", TRICKY);
    const png = await sharp({ create: { width: 300, height: 400, channels: 3, background: "#7a4" } }).png().toBuffer();
    await db.update(works).set({ coverUrl: await storeCover(owner.id, png) }).where(eq(works.id, work.id));

    const r = await download(`/works/${work.id}/export.epub`, ownerCookie);
    expect(r.status).toBe(200);
    expect(r.headers.get("Content-Type")).toBe("application/epub+zip");
    expect(r.headers.get("Content-Disposition")).toBe(
      `attachment; filename="work-${work.id}.epub"; filename*=UTF-8''${encodeURIComponent("雨夜  EPUB  & 书.epub")}`,
    );
    const { bytes } = await bytesOf(r);
    // OCF: the first entry is "mimetype", stored, without an extra field.
    expect(Buffer.from(bytes.subarray(30, 58)).toString("latin1")).toBe("mimetypeapplication/epub+zip");

    const check = await epubcheck(bytes);
    expect(check.output).not.toMatch(/^(ERROR|FATAL)/m);
    expect(check.code, check.output).toBe(0);

    const zip = await JSZip.loadAsync(bytes);
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    expect(opf).toContain("<dc:language>zh-CN</dc:language>");
    expect(opf).toContain("<dc:title>雨夜 &lt;EPUB&gt; &amp; 书</dc:title>");
    expect(opf).toContain('properties="cover-image"');
    expect(zip.file("OEBPS/images/cover.jpg")).not.toBeNull();
    const nav = await zip.file("OEBPS/nav.xhtml")!.async("string");
    // Chapter 1 before the volumes, then each volume with its chapters one level down; no
    // empty volume, no drafts.
    const toc = nav.slice(nav.indexOf('<nav epub:type="toc"'), nav.indexOf("</nav>"));
    expect(toc.replace(/\s+/g, "")).toBe(
      (
        '<navepub:type="toc"id="toc"><h1>目录</h1><ol>' +
        '<li><ahref="text/c1.xhtml">序章&lt;开始&gt;&amp;&quot;引号&quot;</a></li>' +
        '<li><ahref="text/v1.xhtml">第一卷&amp;&lt;起&gt;</a><ol><li><ahref="text/c2.xhtml">第一章雨夜</a></li><li><ahref="text/c3.xhtml">第二章很长</a></li></ol></li>' +
        '<li><ahref="text/v2.xhtml">第二卷终</a><ol><li><ahref="text/c4.xhtml">第三章重逢🌧</a></li><li><ahref="text/c5.xhtml">第四章终</a></li></ol></li>' +
        "</ol>"
      ),
    );
    // The same table of contents as an NCX for EPUB 2 readers: levels, reading order, the book's id.
    const ncx = await zip.file("OEBPS/toc.ncx")!.async("string");
    expect(opf).toContain('<spine toc="ncx">');
    expect(ncx).toContain(`<meta name="dtb:uid" content="${/<dc:identifier id="book-id">([^<]+)</.exec(opf)![1]}"/>`);
    expect(ncx).toContain('<meta name="dtb:depth" content="2"/>');
    const points = ncx.slice(ncx.indexOf("<navMap>"), ncx.indexOf("</navMap>")).replace(/<navLabel><text>[^<]*<\/text><\/navLabel>|\s+/g, "");
    expect(points).toBe(
      "<navMap>" +
        '<navPointid="np-c1"playOrder="1"><contentsrc="text/c1.xhtml"/></navPoint>' +
        '<navPointid="np-v1"playOrder="2"><contentsrc="text/v1.xhtml"/><navPointid="np-c2"playOrder="3"><contentsrc="text/c2.xhtml"/></navPoint><navPointid="np-c3"playOrder="4"><contentsrc="text/c3.xhtml"/></navPoint></navPoint>' +
        '<navPointid="np-v2"playOrder="5"><contentsrc="text/v2.xhtml"/><navPointid="np-c4"playOrder="6"><contentsrc="text/c4.xhtml"/></navPoint><navPointid="np-c5"playOrder="7"><contentsrc="text/c5.xhtml"/></navPoint></navPoint>',
    );
    expect(ncx).toContain("<text>序章 &lt;开始&gt; &amp; &quot;引号&quot;</text>");
    const first = await zip.file("OEBPS/text/c1.xhtml")!.async("string");
    expect(first).toContain('xml:lang="zh-CN"');
    expect(first).toContain("<p>　　R&amp;D &lt;b&gt;不是标签&lt;/b&gt; 😀 &#39;single&#39;</p>");
    const second = await zip.file("OEBPS/text/c2.xhtml")!.async("string");
    expect(second).toContain("<p>“你来了。”控制字符</p>");
    const long = await zip.file("OEBPS/text/c3.xhtml")!.async("string");
    expect(long.match(/<p>/g)).toHaveLength(4000);
    expect(Object.keys(zip.files).filter((n) => /^OEBPS\/text\/c\d+\.xhtml$/.test(n))).toHaveLength(5);
  }, 120_000); // epubcheck starts a JVM: 10-15 s on a busy 2-core machine

  // epubcheck reads a 3,000-chapter book for a minute: bench:author-export runs it on
  // the benchmark's book; here the pieces and the files are counted.
  it("streams a 3,000-chapter work in pieces, one file per chapter, and its TXT round-trips", async () => {
    const paragraph = "大圣在花果山上，与群猴操演武艺，又访得四海龙王，求取兵器。".repeat(12);
    const list = Array.from({ length: 3000 }, (_, i) => ({ title: `第${i + 1}章`, content: `${paragraph}\n${i}` }));
    const work = await createWork(owner.id, { ...base, title: "三千章", type: "multi_chapter", status: "completed" }, list, null);
    const rows = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.workId, work.id)).orderBy(asc(chapters.position));
    for (let v = 0; v < 30; v++) await createVolume(owner.id, work.id, `第${v + 1}卷`, rows[v * 100].id);

    const { bytes, chunks, largest } = await bytesOf(await download(`/works/${work.id}/export.epub`, ownerCookie));
    // Sent as it is written: many pieces, none near the size of the book.
    expect(bytes.byteLength).toBeGreaterThan(1_000_000);
    expect(chunks).toBeGreaterThan(100);
    expect(largest).toBeLessThan(300 * 1024);
    const zip = await JSZip.loadAsync(bytes);
    expect(Object.keys(zip.files).filter((n) => /^OEBPS\/text\/c\d+\.xhtml$/.test(n))).toHaveLength(3000);
    const opf = await zip.file("OEBPS/content.opf")!.async("string");
    // The cover drawn for a work without one, title page, 目录, volumes, chapters.
    expect(opf.match(/<itemref /g)).toHaveLength(3 + 30 + 3000);
    expect(opf).toContain('properties="cover-image"');
    const nav = await zip.file("OEBPS/nav.xhtml")!.async("string");
    expect(nav.match(/<li><a href="text\/v\d+\.xhtml">/g)).toHaveLength(30);
    const ncx = await zip.file("OEBPS/toc.ncx")!.async("string");
    expect(ncx.match(/<navPoint /g)).toHaveLength(30 + 3000);
    expect(ncx).toContain('playOrder="3030"');

    const txt = await bytesOf(await download(`/works/${work.id}/export.txt`, ownerCookie));
    expect(txt.chunks).toBeGreaterThan(10);
    const back = await importTxt(Buffer.from(txt.bytes).toString("utf8"), "三千章再导入");
    expect(back).toEqual(await publishedChapters(work.id));
  }, 120_000);
});

describe("who may download", () => {
  it("gives everyone but the owner a 404 and nothing, and bad ids a 404", async () => {
    const work = await createWork(owner.id, { ...base, title: "别人的作品", type: "multi_chapter", status: "completed" }, TRICKY.slice(0, 2), null);
    for (const ext of ["txt", "epub"]) {
      for (const cookie of [otherCookie, null]) {
        const r = await download(`/works/${work.id}/export.${ext}`, cookie);
        expect(r.status).toBe(404);
        expect(r.headers.get("Content-Disposition")).toBeNull();
        expect(await r.text()).toBe("作品不存在");
      }
      for (const id of ["abc", "0", "-1", "1.5", "99999999999999999999", "987654321"]) {
        const r = await download(`/works/${id}/export.${ext}`, ownerCookie);
        expect(r.status, id).toBe(404);
      }
    }
  });

  it("leaves the administrators' TXT export as it was: admins download, authors get 401", async () => {
    const work = await createWork(owner.id, { ...base, title: "管理员导出", type: "multi_chapter", status: "completed" }, TRICKY.slice(0, 2), null);
    const admin = await createAdmin();
    const asAdmin = (await callThroughRoutes(adminTxtLoader, { request: request(`/exports/works/${work.id}/txt`, { cookie: await adminCookieFor(admin.id) }) })) as Response;
    expect(asAdmin.status).toBe(200);
    expect(await asAdmin.text()).toContain("第一章 雨夜");
    let refused: unknown;
    try {
      refused = await callThroughRoutes(adminTxtLoader, { request: userRequest(ownerCookie, `/exports/works/${work.id}/txt`) });
    } catch (thrown) {
      refused = thrown;
    }
    expect((refused as Response).status).toBe(401);
  });
});
