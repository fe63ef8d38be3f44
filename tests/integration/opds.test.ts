import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { count, eq } from "drizzle-orm";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/db/client.server";
import { readerOpdsTokens } from "~/db/schema";
import * as settingsPage from "~/routes/shell/settings/opds";
import { SETTINGS_MESSAGES } from "~/schemas/settings";
import { createWork, updateListing } from "~/server/catalog/works.server";
import { purchaseChapter, setWorkPricing } from "~/server/economy/chapter-sales.server";
import { credit, purchaseWork } from "~/server/economy/ledger.server";
import { listOpdsTokens, verifyOpdsToken } from "~/server/identity/opds-tokens.server";
import { setFavorite } from "~/server/reading/favorites.server";
import { opdsBase, opdsLibraryFeed } from "~/server/reading/opds.server";
import { createUser, sessionCookieFor, userRequest } from "../fixtures/accounts";
import { settle } from "./admin-fixtures";
import { runRoute, routeTree, importRoute, type RouteNode } from "./route-chain";

/**
 * 阅读App（OPDS） (docs/product.md#reading-apps, decision 201): a reading app's requests, made
 * the way the app makes them (each address taken from the feed before), through the real
 * middleware chain of app/routes.ts; the settings page's forms with bad input.
 */
const SITE = "https://inkstone.example";
const base = { description: "简介 & <说明>", rating: "all_ages" as const, isAiGenerated: false, visibility: "public" as const };

let reader: { id: string };
let readerCookie: string;
let works: Record<"followedFree" | "boughtWhole" | "boughtChapter" | "unownedPaid" | "unfollowedFree", number>;

/** The route module an /opds address answers with (the three leaves under routes/opds/layout.ts). */
function opdsLeaf(pathname: string): RouteNode {
  const opds = (function find(node: RouteNode): RouteNode | undefined {
    if (node.file === "routes/opds/layout.ts") return node;
    for (const child of node.children) {
      const found = find(child);
      if (found) return found;
    }
  })(routeTree)!;
  const file = pathname.endsWith("/book.epub") ? "routes/opds/book-epub.ts" : pathname.endsWith("/library") ? "routes/opds/library.ts" : "routes/opds/catalog.ts";
  return opds.children.find((c) => c.file === file)!;
}

/** A reading app's GET of `address` (as found in a feed). The Host it sends is the client's, never what the links are made of. */
async function client(address: string): Promise<Response> {
  const url = new URL(address);
  expect(url.origin).toBe(SITE);
  const request = new Request(`http://evil.example${url.pathname}${url.search}`, { headers: { "User-Agent": "KOReader/2024.11" } });
  const mod = await importRoute(opdsLeaf(url.pathname));
  const result = await settle(() => runRoute("loader", mod, request));
  return result.response!;
}

/** xmllint's complaint about `xml` ("" when it is well-formed). */
function malformation(xml: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "opds-")), "feed.xml");
  fs.writeFileSync(file, xml);
  try {
    execFileSync("xmllint", ["--noout", "--nonet", file], { stdio: "pipe" });
    return "";
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

const unescape = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
/** The href of each `<link>` with this rel (and type, when given). */
function hrefs(xml: string, rel: string, type?: string): string[] {
  return [...xml.matchAll(/<link ([^>]*)\/>/g)]
    .map((m) => m[1])
    .filter((attrs) => attrs.includes(`rel="${rel}"`) && (!type || attrs.includes(`type="${type}"`)))
    .map((attrs) => unescape(/href="([^"]*)"/.exec(attrs)![1]));
}
const entries = (xml: string) => [...xml.matchAll(/<entry>([\s\S]*?)<\/entry>/g)].map((m) => m[1]);
const titleOf = (entry: string) => unescape(/<title>([^<]*)<\/title>/.exec(entry)![1]);

async function settingsPost(cookie: string, fields: Record<string, string>) {
  return settle(() => runRoute("action", settingsPage as never, userRequest(cookie, "/settings/opds", fields)));
}

/** Creates a token on the settings page as the reader does; returns the catalog's address shown once. */
async function createToken(cookie: string, label: string): Promise<string> {
  const page = await settle(() => runRoute("loader", settingsPage as never, userRequest(cookie, "/settings/opds")));
  const made = await settingsPost(cookie, { intent: "create", label, formToken: (page.data as { formToken: string }).formToken });
  expect(made.status).toBe(200);
  return (made.data as { created: { address: string } }).created.address;
}

const tokenCount = async (userId: string) => (await db.select({ n: count() }).from(readerOpdsTokens).where(eq(readerOpdsTokens.userId, userId)))[0].n;

beforeAll(async () => {
  process.env.SITE_URL = SITE;
  const author = await createUser();
  reader = await createUser();
  readerCookie = await sessionCookieFor(reader.id);
  const one = (title: string) => createWork(author.id, { ...base, title, type: "single_chapter", status: "completed" }, [{ title: "正文", content: `　　${title}的正文` }], null);
  const followedFree = await one("书架上的免费书 <&>");
  const unfollowedFree = await one("没关注的免费书");
  const boughtWhole = await one("买下的整本书");
  const unownedPaid = await one("没买的付费书");
  for (const w of [boughtWhole, unownedPaid]) await updateListing(author.id, w.id, { intent: "set-price", price: 20 });
  const boughtChapter = await createWork(author.id, { ...base, title: "按章买了一章", type: "series", status: "ongoing" }, [
    { title: "第一章", content: "　　免费一" },
    { title: "第二章", content: "　　收费二".repeat(300) },
  ], null);
  await setWorkPricing(author.id, boughtChapter.id, { mode: "chapter", vipFrom: "2", pricePerThousand: "5" });
  await db.transaction((tx) => credit(tx, reader.id, 500, "测试充值"));
  const viewer = { id: reader.id, showR18: false, showAi: true };
  await setFavorite(viewer, followedFree.id, true);
  // Followed but not bought: not the reader's to download, so not in the library.
  await setFavorite(viewer, unownedPaid.id, true);
  await purchaseWork(reader.id, boughtWhole.id);
  const [, second] = await db.query.chapters.findMany({ where: (c, { eq: is }) => is(c.workId, boughtChapter.id), orderBy: (c, { asc }) => [asc(c.position)] });
  await purchaseChapter(reader.id, boughtChapter.id, second.id);
  works = { followedFree: followedFree.id, boughtWhole: boughtWhole.id, boughtChapter: boughtChapter.id, unownedPaid: unownedPaid.id, unfollowedFree: unfollowedFree.id };
});

afterAll(() => {
  delete process.env.SITE_URL;
});

describe("a reading app on the OPDS catalog", () => {
  it("lists the reader's library from the root, downloads an owned EPUB, and gets 401 once the token is revoked mid-sync", async () => {
    const address = await createToken(readerCookie, "KOReader");
    expect(address).toMatch(new RegExp(`^${SITE}/opds/inkopds_[A-Za-z0-9_-]{32}$`));

    const root = await client(address);
    expect(root.status).toBe(200);
    expect(root.headers.get("Content-Type")).toBe("application/atom+xml;profile=opds-catalog;kind=navigation;charset=utf-8");
    expect(root.headers.get("Cache-Control")).toBe("private, no-store");
    expect(root.headers.get("Set-Cookie")).toBeNull();
    const rootXml = await root.text();
    expect(malformation(rootXml)).toBe("");
    const [libraryAddress] = hrefs(rootXml, "subsection", "application/atom+xml;profile=opds-catalog;kind=acquisition");
    expect(libraryAddress).toBe(`${address}/library`);

    const library = await client(libraryAddress);
    expect(library.status).toBe(200);
    expect(library.headers.get("Content-Type")).toBe("application/atom+xml;profile=opds-catalog;kind=acquisition;charset=utf-8");
    expect(library.headers.get("Set-Cookie")).toBeNull();
    const xml = await library.text();
    expect(malformation(xml), xml).toBe("");
    expect(xml).not.toContain("evil.example");
    // Newest first: the chapter bought last, the whole work, then the followed free work.
    expect(entries(xml).map(titleOf)).toEqual(["按章买了一章", "买下的整本书", "书架上的免费书 <&>"]);
    const bought = entries(xml).find((e) => titleOf(e) === "买下的整本书")!;
    expect(bought).toContain("<author><name>");
    expect(bought).toContain(`<summary type="text">简介 &amp; &lt;说明&gt;</summary>`);
    expect(hrefs(bought, "http://opds-spec.org/image")[0]).toMatch(new RegExp(`^${SITE}/covers/${works.boughtWhole}\\.webp\\?v=`));
    expect(hrefs(bought, "http://opds-spec.org/image/thumbnail")).toHaveLength(1);
    const [acquisition] = hrefs(bought, "http://opds-spec.org/acquisition", "application/epub+zip");
    expect(acquisition).toBe(`${address}/works/${works.boughtWhole}/book.epub`);

    const epub = await client(acquisition);
    expect(epub.status).toBe(200);
    expect(epub.headers.get("Content-Type")).toBe("application/epub+zip");
    expect(epub.headers.get("Cache-Control")).toBe("private, no-store");
    const bytes = new Uint8Array(await epub.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 2)).toString("latin1")).toBe("PK");
    expect(Buffer.from(bytes.subarray(30, 58)).toString("latin1")).toBe("mimetypeapplication/epub+zip");
    const zip = await JSZip.loadAsync(bytes);
    expect(await zip.file("OEBPS/text/c1.xhtml")!.async("string")).toContain("买下的整本书的正文");

    // The use is recorded (at most once a minute), in Beijing time on the settings page.
    const [listed] = await listOpdsTokens(reader.id);
    expect(listed.lastUsedAt).not.toBeNull();

    // The reader revokes the token while the app is half-way through its sync: its next
    // request, a download, gets 401 and no book; so does the feed.
    const revoked = await settingsPost(readerCookie, { intent: "revoke", id: String(listed.id) });
    expect(revoked.status).toBe(302);
    for (const next of [`${address}/works/${works.followedFree}/book.epub`, libraryAddress, address]) {
      const refused = await client(next);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
      expect(refused.headers.get("Cache-Control")).toBe("private, no-store");
      expect(await refused.text()).toBe(SETTINGS_MESSAGES.opdsUnauthorized);
    }
  }, 60_000);

  it("does not list or serve a paid work the reader has not bought, nor free works off their 书架", async () => {
    const address = await createToken(readerCookie, "静读天下");
    const xml = await (await client(`${address}/library`)).text();
    expect(xml).not.toContain("没买的付费书");
    expect(xml).not.toContain("没关注的免费书");
    const refused = await client(`${address}/works/${works.unownedPaid}/book.epub`);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe("购买后才能阅读该作品");
    expect((await client(`${address}/works/999999999/book.epub`)).status).toBe(404);
    expect((await client(`${address}/works/abc/book.epub`)).status).toBe(404);
  });

  it("answers an unknown or malformed token with 401 and no data", async () => {
    for (const token of ["inkopds_nope", "x", "inkopds_" + "a".repeat(200)]) {
      const r = await client(`${SITE}/opds/${token}/library`);
      expect(r.status).toBe(401);
      expect(await r.text()).toBe(SETTINGS_MESSAGES.opdsUnauthorized);
    }
  });

  it("pages a long library with rel=next, each address from SITE_URL", async () => {
    const other = await createUser();
    await db.transaction((tx) => credit(tx, other.id, 500, "测试充值"));
    const ids = [works.followedFree, works.unfollowedFree, works.boughtWhole];
    for (const id of [works.followedFree, works.unfollowedFree]) await setFavorite({ id: other.id, showR18: false, showAi: true }, id, true);
    await purchaseWork(other.id, works.boughtWhole);
    const origin = SITE;
    const opdsReader = { id: other.id, showR18: false, showAi: true, tokenId: 0 };
    const base = opdsBase(origin, "inkopds_t");
    const first = await opdsLibraryFeed(opdsReader, origin, base, 1, 2);
    expect(malformation(first)).toBe("");
    expect(entries(first)).toHaveLength(2);
    const [next] = hrefs(first, "next");
    expect(next).toBe(`${base}/library?page=2`);
    const second = await opdsLibraryFeed(opdsReader, origin, base, 2, 2);
    expect(entries(second)).toHaveLength(1);
    expect(hrefs(second, "next")).toEqual([]);
    expect(hrefs(second, "previous")).toEqual([`${base}/library`]);
    const listed = [...entries(first), ...entries(second)].map((e) => Number(/works\/(\d+)\/book\.epub/.exec(e)![1]));
    expect(new Set(listed)).toEqual(new Set(ids));
  });
});

describe("设置 → 阅读App（OPDS）", () => {
  it("refuses an empty or too long label, a sixth token, someone else's token and garbage, writing nothing", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    const empty = await settingsPost(cookie, { intent: "create", label: "   " });
    expect(empty.status).toBe(400);
    expect((empty.data as { result: { error: Record<string, string[]> } }).result.error.label).toEqual([SETTINGS_MESSAGES.opdsLabelRequired]);
    const long = await settingsPost(cookie, { intent: "create", label: "长".repeat(31) });
    expect(long.status).toBe(400);
    expect((long.data as { result: { error: Record<string, string[]> } }).result.error.label).toEqual([SETTINGS_MESSAGES.opdsLabelTooLong]);
    expect(await tokenCount(someone.id)).toBe(0);

    for (let i = 1; i <= 5; i++) await createToken(cookie, `设备${i}`);
    const sixth = await settingsPost(cookie, { intent: "create", label: "设备6" });
    expect(sixth.status).toBe(409);
    expect((sixth.data as { result: { error: Record<string, string[]> } }).result.error[""]).toEqual([SETTINGS_MESSAGES.opdsTooMany]);
    expect(await tokenCount(someone.id)).toBe(5);

    // The reader's token id, revoked by someone else: 不存在, and it still works.
    const readerAddress = await createToken(readerCookie, "Moon+");
    const readerToken = (await listOpdsTokens(reader.id)).find((t) => t.label === "Moon+")!;
    const foreign = await settingsPost(cookie, { intent: "revoke", id: String(readerToken.id) });
    expect(foreign.status).toBe(404);
    expect((foreign.data as { result: { error: Record<string, string[]> } }).result.error[""]).toEqual([SETTINGS_MESSAGES.opdsTokenMissing]);
    expect((await client(readerAddress)).status).toBe(200);

    for (const fields of [{ intent: "revoke", id: "abc" }, { intent: "revoke", id: "" }, { intent: "revoke", id: "-1" }, { intent: "revoke", id: "99999999999999999999" }]) {
      expect((await settingsPost(cookie, fields)).status).toBe(404);
    }
    const unknown = await settingsPost(cookie, { intent: "delete-all" });
    expect(unknown.status).toBe(400);
    expect((unknown.data as { result: { error: Record<string, string[]> } }).result.error[""]).toEqual(["未知操作"]);
    expect(await tokenCount(someone.id)).toBe(5);
    expect(await verifyOpdsToken(new URL(readerAddress).pathname.split("/")[2])).not.toBeNull();
  });

  it("never makes a sixth token, however many forms arrive at once (a race on PostgreSQL)", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    await createToken(cookie, "已有");
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => settingsPost(cookie, { intent: "create", label: `并发${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 409, 409, 409, 409]);
    expect(await tokenCount(someone.id)).toBe(5);
  });

  it("shows the catalog's address once: the same form sent again creates nothing more", async () => {
    const someone = await createUser();
    const cookie = await sessionCookieFor(someone.id);
    const page = await settle(() => runRoute("loader", settingsPage as never, userRequest(cookie, "/settings/opds")));
    const fields = { intent: "create", label: "KOReader", formToken: (page.data as { formToken: string }).formToken };
    const first = await settingsPost(cookie, fields);
    const second = await settingsPost(cookie, fields);
    expect((first.data as { created: { address: string | null } }).created.address).toMatch(/\/opds\/inkopds_/);
    expect((second.data as { created: unknown }).created).toEqual({ label: "KOReader", address: null });
    expect(await tokenCount(someone.id)).toBe(1);
    const listing = (await settle(() => runRoute("loader", settingsPage as never, userRequest(cookie, "/settings/opds")))).data as { tokens: { label: string }[] };
    expect(JSON.stringify(listing)).not.toContain("inkopds_");
    expect(listing.tokens.map((t) => t.label)).toEqual(["KOReader"]);
  });
});
