import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { chapters, works } from "~/db/schema";
import { rowsOf } from "~/server/platform/db-utils.server";
import { insertChapter } from "~/server/studio/chapters.server";
import { createUser } from "../fixtures/accounts";
import { insertWorks, serialByChapter } from "../fixtures/works";
import { callThroughRoutes } from "./route-chain";

/**
 * robots.txt, the sitemap index and its pages (docs/decisions/200): only what a visitor
 * may read is listed, the addresses come from SITE_URL alone, and every file validates
 * against the sitemaps.org schema with xmllint.
 */
const SITE = "https://inkstone.example";
const SCHEMAS = path.resolve("tests/fixtures/sitemaps");

async function get(pathname: string, host = "localhost"): Promise<Response> {
  const url = `http://${host}${pathname}`;
  const route =
    pathname === "/robots.txt" ? await import("~/routes/public/robots")
    : pathname === "/sitemap.xml" ? await import("~/routes/public/sitemap-index")
    : await import("~/routes/public/sitemap-page");
  const file = pathname.startsWith("/sitemaps/") ? { file: pathname.slice("/sitemaps/".length) } : undefined;
  return (await callThroughRoutes(route.loader as never, { request: new Request(url), ...(file ? { params: file } : {}) })) as Response;
}

/** xmllint's verdict on `xml` against one of the schemas ("" when it validates). */
function invalidity(xml: string, schema: "sitemap.xsd" | "siteindex.xsd"): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sitemap-")), "doc.xml");
  fs.writeFileSync(file, xml);
  try {
    execFileSync("xmllint", ["--noout", "--nonet", "--schema", path.join(SCHEMAS, schema), file], { stdio: "pipe" });
    return "";
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1].replace(/&amp;/g, "&"));

let free: number, byChapter: number, wholePaid: number, privateWork: number, r18: number, takenDown: number;

beforeAll(async () => {
  const author = await createUser();
  [free, wholePaid, privateWork, r18, takenDown] = await insertWorks([
    { userId: author.id, title: "免费连载" },
    { userId: author.id, title: "整本付费", visibility: "public-vip", price: 30 },
    { userId: author.id, title: "私密作品", visibility: "private" },
    { userId: author.id, title: "成人作品", rating: "r18" },
    { userId: author.id, title: "已下架" },
  ]);
  // The free work, a series: two published chapters around a 存稿 (not listed).
  await db.update(works).set({ type: "series", status: "ongoing" }).where(eq(works.id, free));
  for (const [title, release] of [["第一章", "now"], ["第二章 存稿", "draft"], ["第三章", "now"]] as const) {
    await insertChapter(author.id, free, { title, content: `${title}的正文。`, release: { mode: release } }, "end");
  }
  for (const id of [wholePaid, privateWork, r18, takenDown]) {
    await db.insert(chapters).values({ workId: id, title: "唯一一章", content: "正文。", position: 1024, wordCount: 3 });
  }
  // Taken down as the back office does it: private, with the time and reason.
  await db.update(works).set({ visibility: "private", takenDownAt: new Date(), takedownReason: "测试", takedownPrevious: { visibility: "public", price: 0 } }).where(eq(works.id, takenDown));
  // Sold by chapter from chapter 3: chapters 1 and 2 are free 试读.
  ({ workId: byChapter } = await serialByChapter(author.id, { count: 4, vipFrom: 3, title: "按章付费" }));
});

afterEach(() => {
  delete process.env.SITE_URL;
});

describe("robots.txt", () => {
  it("keeps crawlers out of the back office and accounts, and names the sitemap from SITE_URL only", async () => {
    process.env.SITE_URL = SITE;
    const response = await get("/robots.txt", "evil.example");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    const text = await response.text();
    expect(text).toMatch(/^User-agent: \*$/m);
    for (const path of ["/admin", "/xbbadmin", "/api/", "/settings", "/credits"]) expect(text).toContain(`Disallow: ${path}\n`);
    expect(text).toContain(`Sitemap: ${SITE}/sitemap.xml`);
    expect(text).not.toContain("evil.example");
  });

  it("has no Sitemap line without SITE_URL (never one naming the request's Host)", async () => {
    const text = await (await get("/robots.txt", "evil.example")).text();
    expect(text).toContain("Disallow: /admin");
    expect(text).not.toContain("Sitemap:");
  });
});

describe("the sitemap index and its pages", () => {
  it("lists the works a visitor may open and the free chapters, and every file validates", async () => {
    process.env.SITE_URL = SITE;
    const index = await get("/sitemap.xml", "evil.example");
    expect([index.status, index.headers.get("Content-Type")]).toEqual([200, "application/xml; charset=utf-8"]);
    const indexXml = await index.text();
    expect(invalidity(indexXml, "siteindex.xsd")).toBe("");
    expect(locs(indexXml)).toEqual([`${SITE}/sitemaps/works-1.xml`, `${SITE}/sitemaps/chapters-1.xml`]);
    expect(indexXml).not.toContain("evil.example");

    const worksXml = await (await get("/sitemaps/works-1.xml")).text();
    expect(invalidity(worksXml, "sitemap.xsd")).toBe("");
    expect(locs(worksXml)).toEqual([free, wholePaid, byChapter].sort((a, b) => a - b).map((id) => `${SITE}/works/${id}`));

    const chaptersXml = await (await get("/sitemaps/chapters-1.xml")).text();
    expect(invalidity(chaptersXml, "sitemap.xsd")).toBe("");
    // The free work's published chapters by their number (the 存稿 is not counted), and the
    // by-chapter work's two 试读 chapters; nothing of the paid, private, R-18 or taken-down works.
    expect(locs(chaptersXml)).toEqual([`${SITE}/works/${free}?chapter=1`, `${SITE}/works/${free}?chapter=2`, `${SITE}/works/${byChapter}?chapter=1`, `${SITE}/works/${byChapter}?chapter=2`]);
    expect(chaptersXml).toMatch(/<lastmod>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z<\/lastmod>/);
  });

  it("pages by blocks of 50,000 ids: a work in the third block is on works-3.xml, and the empty second block is not listed", async () => {
    process.env.SITE_URL = SITE;
    const author = await createUser();
    const [{ id }] = rowsOf<{ id: number }>(await db.execute(sql`
      insert into ${works} (id, user_id, title, description, type, status, visibility)
      overriding system value
      values (120001, ${author.id}, '远处的作品', '简介', 'single_chapter', 'completed', 'public')
      returning id`));
    try {
      expect(Number(id)).toBe(120001);
      const indexXml = await (await get("/sitemap.xml")).text();
      expect(invalidity(indexXml, "siteindex.xsd")).toBe("");
      expect(locs(indexXml).filter((loc) => loc.includes("/works-"))).toEqual([`${SITE}/sitemaps/works-1.xml`, `${SITE}/sitemaps/works-3.xml`]);
      const third = await (await get("/sitemaps/works-3.xml")).text();
      expect(locs(third)).toEqual([`${SITE}/works/120001`]);
      expect((await get("/sitemaps/works-2.xml")).status).toBe(404);
    } finally {
      await db.delete(works).where(eq(works.id, 120001));
    }
  });

  it("answers 404 with a Chinese message for a page beyond the last, a malformed name, and without SITE_URL", async () => {
    const withoutSite = await get("/sitemap.xml");
    expect([withoutSite.status, await withoutSite.text()]).toEqual([404, "站点地址（SITE_URL）未设置，没有站点地图"]);
    process.env.SITE_URL = SITE;
    for (const file of ["works-99.xml", "chapters-0.xml", "works-1.txt", "books-1.xml", "works-01.xml", "works-99999999.xml"]) {
      const response = await get(`/sitemaps/${file}`);
      expect([response.status, await response.text()], file).toEqual([404, "没有这一页站点地图"]);
    }
  });

  it("takes a 存稿 that is published later into the count, and a chapter moved before the VIP line with it", async () => {
    process.env.SITE_URL = SITE;
    const before = locs(await (await get("/sitemaps/chapters-1.xml")).text());
    await db.update(chapters).set({ state: "published" }).where(eq(chapters.workId, free));
    const after = locs(await (await get("/sitemaps/chapters-1.xml")).text());
    expect(after.filter((loc) => loc.includes(`/works/${free}?`))).toEqual([1, 2, 3].map((n) => `${SITE}/works/${free}?chapter=${n}`));
    expect(after.length).toBe(before.length + 1);
  });
});
