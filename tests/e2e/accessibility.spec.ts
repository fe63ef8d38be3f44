/**
 * axe-core over every page of the site (docs/decisions/071-accessibility.md), in the light
 * and dark themes, on a desktop and on a 390 px phone. The addresses come from
 * app/routes.ts (tests/e2e/fixtures/site-pages.ts, docs/decisions/157): a new page is
 * checked without being listed here. Any critical or serious violation fails, and so do
 * the moderate rules the site once broke (heading-order, region). While each page loads,
 * hydrates and is analysed, its console must stay clean: no error and no report of the
 * Content-Security-Policy (decision 156). Pages are checked in a few tests (a share of
 * the routes per test) so the server is asked for little; each page is reported on its
 * own (soft expectations).
 */
import type { Browser, BrowserContext, Page, PlaywrightWorkerArgs } from "@playwright/test";
import { expect, test, waitForHydration, type SeedFacts } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { expectNoSeriousViolations, seriousViolations } from "./fixtures/axe";
import { allPatterns, listenToConsole, NOT_VISITED, pageRoutes, siteVisits, type PageData, type Role, type Visit } from "./fixtures/site-pages";
import { E2E_CARD, marker, newAuthor, publishWork, setPrice, type Author } from "./reader-helpers";
import { publishWork as publishSeries } from "./studio-helpers";

type Background = "white" | "sepia" | "green" | "night";

interface Look {
  /** What E2E_LOOKS names it by. */
  key: string;
  name: string;
  viewport: { width: number; height: number };
  dark: boolean;
}

// Every page is checked in both themes and at both widths: all of them as a light desktop
// and as a dark phone. (The key pages were also checked as a dark desktop and a light
// phone; those two looks found nothing the other two did not and cost a tenth of the
// browser suite, docs/decisions/071.)
const ALL_LOOKS: Look[] = [
  { key: "desktop-light", name: "desktop, light", viewport: { width: 1280, height: 800 }, dark: false },
  { key: "phone-dark", name: "phone, dark", viewport: { width: 390, height: 844 }, dark: true },
];

/**
 * E2E_LOOKS (keys, comma-separated) narrows the looks; unset, every page is checked in both.
 * CI runs the browser suite on both backends and checks each in one look (.ci/run): every
 * page is still loaded, hydrated and heard on both, and axe, which sees the same HTML on
 * either, runs once per page and look (docs/decisions/272).
 */
const LOOKS = lookList(process.env.E2E_LOOKS);

function lookList(wanted: string | undefined): Look[] {
  if (!wanted?.trim()) return ALL_LOOKS;
  return wanted.split(",").map((key) => {
    const look = ALL_LOOKS.find((candidate) => candidate.key === key.trim());
    if (!look) throw new Error(`E2E_LOOKS: no look "${key}" (there are ${ALL_LOOKS.map((candidate) => candidate.key).join(", ")})`);
    return look;
  });
}

interface SiteData extends PageData {
  /** The author's session cookies: the signed-in pages are seen by someone with works. */
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>>;
  /** The worker's administrator session (a signed cookie value from the seed's pool). */
  adminSession: string;
}

const sameOrigin = (baseURL: string) => ({ Origin: new URL(baseURL).origin });

/**
 * The rows the pages show, made once per worker and shared by its tests: an author with a
 * free work (two chapters), a paid work sold once (so the author has income and a payout
 * request waits in the back office), a series, a story bible with a character, a fact and
 * a thread; the author follows a seeded work (a shelf card with its progress bar), bought
 * another and started a top-up (an order). docs/decisions/157.
 */
let siteData: Promise<SiteData> | undefined;
function theSite(playwright: PlaywrightWorkerArgs["playwright"], baseURL: string, facts: SeedFacts): Promise<SiteData> {
  siteData ??= (async () => {
    const author = await newAuthor(playwright, baseURL);
    const workId = await publishWork(author, {
      title: `无障碍 ${marker("a11y")}`,
      description: "给无障碍检查用的作品。",
      chapters: [
        { title: "第一章 起程", paragraphs: ["天刚亮，他就出发了。", "山路很长。"] },
        { title: "第二章 渡河", paragraphs: ["河水很急。"] },
      ],
    });
    const paidId = await publishWork(author, {
      title: `付费无障碍 ${marker("a11y")}`,
      chapters: [{ title: "第一章", paragraphs: ["要买了才能读。"] }],
    });
    await setPrice(author, paidId, 150);
    // 连载续写 takes a series (the free work has several chapters but is not one).
    const seriesId = await publishSeries(author, baseURL, { title: `连载 ${marker("a11y")}` });
    const manager = await (await author.request.get(`/works/${workId}/chapters`)).text();
    const chapterId = Number(new RegExp(`href="/works/${workId}/chapters/(\\d+)"`).exec(manager)?.[1]);
    expect(chapterId, "a chapter editor link in the chapter manager").toBeGreaterThan(0);

    // The back office gives a reader and the author credits; the reader buys the paid work.
    // One administrator session per worker, for the setup and every back-office visit:
    // they only read, so the worker's tests can share it.
    const adminCookie = await adminSession(baseURL);
    const admin = await playwright.request.newContext({
      baseURL,
      storageState: { cookies: [poolCookie(ADMIN_COOKIE, baseURL, adminCookie)], origins: [] },
    });
    const reader = await newAuthor(playwright, baseURL);
    const userIdOf = async (email: string) => {
      const list = await (await admin.get(`/admin/users?q=${encodeURIComponent(email)}`)).text();
      const id = /href="\/admin\/users\/([^"?]+)"/.exec(list)?.[1];
      expect(id, `${email} in /admin/users`).toBeTruthy();
      return id!;
    };
    const [readerId, authorId] = [await userIdOf(reader.credentials.email), await userIdOf(author.credentials.email)];
    for (const [id, change] of [[readerId, "200"], [authorId, "50"]]) {
      const adjusted = await admin.post(`/admin/users/${id}`, {
        form: { intent: "balance", change, reason: "无障碍检查" },
        headers: sameOrigin(baseURL),
        maxRedirects: 0,
      });
      expect(adjusted.status(), "balance change").toBeLessThan(400);
    }
    // A 编辑推荐 row with the free work: the home page shows it, its back-office page lists it.
    const row = await admin.post("/admin/front-page", { form: { intent: "create", name: "无障碍推荐" }, headers: sameOrigin(baseURL), maxRedirects: 0 });
    const curatedRowId = Number(/\/admin\/front-page\/(\d+)/.exec(row.headers()["location"] ?? "")?.[1]);
    expect(curatedRowId, "a new curated row").toBeGreaterThan(0);
    const added = await admin.post(`/admin/front-page/${curatedRowId}`, { form: { intent: "add", workId: String(workId) }, headers: sameOrigin(baseURL), maxRedirects: 0 });
    expect(added.status(), "a work added to the row").toBe(302);
    await admin.dispose();
    const posts = [
      [reader, `/works/${paidId}`, { intent: "purchase" }],
      [author, "/income/account", { intent: "account", kind: "bank", account: E2E_CARD, bankName: "无障碍银行", holderName: "测试作者" }],
      [author, "/income", { intent: "payout", amount: "100" }],
      [author, `/works/${await seededWork(author, facts.works.paid)}`, { intent: "purchase" }],
      [author, `/works/${await seededWork(author, facts.works.allAges)}`, { intent: "favorite", on: "1", back: "/following" }],
      // 书签 and 划线 (decision 241): drawn in the chapter, listed on the work page and /bookmarks.
      [author, `/works/${workId}/marks`, { intent: "bookmark", chapterId: String(chapterId), paragraph: "0", note: "无障碍书签", back: `/works/${workId}` }],
      [author, `/works/${workId}/marks`, { intent: "highlight", chapterId: String(chapterId), paragraph: "1", note: "", back: `/works/${workId}` }],
    ] as const;
    for (const [who, path, form] of posts) {
      const posted = await who.request.post(path, { form, headers: sameOrigin(baseURL), maxRedirects: 0 });
      expect(posted.status(), `${path} ${form.intent}`).toBeLessThan(400);
    }
    await reader.request.dispose();
    const topUp = await author.request.post("/credits?dialog=topup", {
      form: { intent: "topup", amount: "10" },
      headers: sameOrigin(baseURL),
      maxRedirects: 0,
    });
    const orderNo = new URL(topUp.headers()["location"] ?? "http://x/").searchParams.get("out_trade_no");
    expect(orderNo, "a top-up order").toBeTruthy();
    // The story bible: a character with a fact (its 编辑 link sits in the fact's text) and a thread.
    const bible = `/works/${workId}/bible`;
    const save = async (path: string, form: Record<string, string>) => {
      const saved = await author.request.post(path, { form, headers: sameOrigin(baseURL), maxRedirects: 0 });
      expect(saved.status(), `${path} ${form.intent}`).toBeLessThan(400);
    };
    await save(bible, { intent: "entity-save", kind: "character", name: "林晚", aliases: "", description: "倔强的姑娘。" });
    const entityId = /id="e-(\d+)"/.exec(await (await author.request.get(bible)).text())?.[1];
    expect(entityId, "the new character on the bible page").toBeTruthy();
    await save(bible, { intent: "fact-save", entityId: entityId!, content: "双目失明", fromChapter: "1", untilChapter: "" });
    await save(`${bible}?tab=threads`, { intent: "thread-save", title: "渡河的约定", note: "", plantedChapter: "1", dueChapter: "2" });
    // A 书单 of the author's with the free work (decision 232): its page, 管理书单, /booklists.
    const list = await author.request.post("/my-booklists", { form: { intent: "create", title: "无障碍书单", description: "给无障碍检查用的书单。" }, headers: sameOrigin(baseURL), maxRedirects: 0 });
    const booklistId = Number(/\/booklists\/(\d+)$/.exec(list.headers()["location"] ?? "")?.[1]);
    expect(booklistId, "a new 书单").toBeGreaterThan(0);
    await save(`/works/${workId}/booklist`, { list: String(booklistId), title: "", note: "一部适合检查的作品。" });
    const { cookies } = await author.request.storageState();
    return {
      workId,
      paidId,
      seriesId,
      chapterId,
      tag: facts.topics.shared,
      userId: readerId,
      authorId,
      orderNo: orderNo!,
      marker: facts.marker,
      curatedRowId,
      booklistId,
      cookies,
      adminSession: adminCookie,
    };
  })();
  return siteData;
}

/** A seeded work's id, by its title (the seed writes titles, not ids). */
async function seededWork(author: Author, title: string): Promise<number> {
  const list = await (await author.request.get(`/works?q=${encodeURIComponent(title)}`)).text();
  const id = Number(/href="\/works\/(\d+)"/.exec(list)?.[1]);
  expect(id, `the seeded work ${title}`).toBeGreaterThan(0);
  return id;
}

/**
 * The reader's background (夜间 is the dark theme) as the reader's settings save it
 * (decision 106): on the profile when the page's context is signed in, else in the
 * visitor's cookie. Call it after adding a session's cookies.
 */
async function useBackground(page: Page, background: Background, baseURL: string) {
  const saved = await page.request.post("/reader-settings", {
    form: { fontSize: "3", lineHeight: "normal", width: "normal", background },
    headers: { Accept: "application/json", Origin: new URL(baseURL).origin },
  });
  expect(saved.status(), await saved.text()).toBe(200);
}

/** The moderate rules held to as well: each was broken once (issue 28). */
const MODERATE_RULES = ["heading-order", "region"];

/**
 * A page for each role the visits need, in this look: the visitor's without cookies, the
 * author's, the administrator's (the back office keeps the light theme, decision 106).
 */
async function pagesFor(browser: Browser, look: Look, baseURL: string, site: SiteData, roles: Set<Role>) {
  const pages = new Map<Role, Page>();
  for (const role of roles) {
    const context = await browser.newContext({ viewport: look.viewport });
    if (role === "member") await context.addCookies(site.cookies);
    if (role === "admin") await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL, site.adminSession)]);
    const page = await context.newPage();
    // A visitor in the light look keeps the default background without a cookie: the pages a
    // CDN may keep are then checked as a CDN would serve them (decision 263).
    if (role !== "visitor" || look.dark) await useBackground(page, look.dark ? "night" : "white", baseURL);
    pages.set(role, page);
  }
  return pages;
}

/**
 * Opens each address, waits for hydration, runs axe on it, and checks that nothing was
 * said on the console meanwhile.
 */
async function checkVisits(pages: Map<Role, Page>, look: Look, visits: Visit[]) {
  const previous = new Map<Role, string>();
  for (const visit of visits) {
    const page = pages.get(visit.role)!;
    const label = `${visit.url} (${visit.role}, ${look.name})`;
    const before = previous.get(visit.role);
    previous.set(visit.role, visit.url);
    const heard = listenToConsole(page, { ignoreLoadsOf: before && before !== visit.url ? [before] : [] });
    const response = await page.goto(visit.url);
    // A not-found page is answered with its status, which Chromium logs as a failed load.
    const ownStatus = `Failed to load resource: the server responded with a status of ${response?.status()} (Not Found) (${new URL(visit.url, "http://x").pathname})`;
    checkCaching(label, visit.role, response?.headers() ?? {}, await response?.text());
    await waitForHydration(page);
    // The back office and its login keep the light theme.
    if (look.dark && !visit.url.startsWith("/admin") && !visit.url.startsWith("/xbbadmin")) {
      await expect.soft(page.locator("html"), label).toHaveAttribute("data-theme", "dark");
    }
    await expectNoSeriousViolations(page, label, MODERATE_RULES);
    expect.soft(heard.stop().filter((said) => said !== ownStatus), `console of ${label}`).toEqual([]);
  }
}

/**
 * A page a CDN may keep (decision 263) was asked for by a visitor without a cookie, sets none,
 * holds no one's e-mail, and names its scripts by hash; every other page has a nonce and is
 * kept by no shared cache.
 */
function checkCaching(label: string, role: Role, headers: Record<string, string>, html = "") {
  const policy = headers["content-security-policy"];
  if (/s-maxage/.test(headers["cache-control"] ?? "")) {
    expect.soft(role, `${label}: shared only with visitors`).toBe("visitor");
    expect.soft(headers["set-cookie"], `${label}: a shared page sets no cookie`).toBeUndefined();
    expect.soft(headers["vary"] ?? "", `${label}: Vary`).toMatch(/Cookie/);
    expect.soft(headers["etag"], `${label}: ETag`).toMatch(/^W\/"/);
    expect.soft(policy, `${label}: the policy`).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    // Every account of the tests has an @example.com address; the sign-in form's placeholder is no one's.
    const addresses = (html.match(/[\w.+-]+@example\.com/g) ?? []).filter((address) => address !== "you@example.com");
    expect.soft(addresses, `${label}: no e-mail address in a shared page`).toEqual([]);
  } else {
    expect.soft(headers["cache-control"] ?? "", `${label}: kept by no shared cache`).toMatch(/private|no-store/);
    expect.soft(policy, `${label}: the policy`).toMatch(/script-src 'self' 'nonce-/);
  }
}

// The routes split into tests of about a dozen pages, so that the workers share them.
const ROUTES = pageRoutes();
const SHARE = 12;
const shares = Array.from({ length: Math.ceil(ROUTES.length / SHARE) }, (_, i) => ROUTES.slice(i * SHARE, (i + 1) * SHARE));

for (const look of LOOKS) {
  test.describe(`accessibility and console, ${look.name}`, () => {
    // Up to about 20 pages a test, each loaded, hydrated and analysed.
    test.describe.configure({ timeout: 240_000 });

    for (const [i, routes] of shares.entries()) {
      const name = `pages ${routes[0].pattern} to ${routes.at(-1)!.pattern} (${i + 1} of ${shares.length})`;
      test(name, async ({ browser, playwright, baseURL, facts }) => {
        const site = await theSite(playwright, baseURL!, facts);
        const visits = siteVisits(site, routes);
        const pages = await pagesFor(browser, look, baseURL!, site, new Set(visits.map((visit) => visit.role)));
        try {
          await checkVisits(pages, look, visits);
        } finally {
          for (const page of pages.values()) await page.context().close();
        }
      });
    }

    test("the reader in 米黄 and 护眼绿, its settings panel open", async ({ page, context, playwright, baseURL, facts }) => {
      const site = await theSite(playwright, baseURL!, facts);
      await context.addCookies(site.cookies);
      await page.setViewportSize(look.viewport);
      for (const background of ["sepia", "green"] as const) {
        await useBackground(page, background, baseURL!);
        await page.goto(`/works/${site.workId}?chapter=1`);
        await waitForHydration(page);
        await expect(page.locator("html")).toHaveAttribute("data-theme", background);
        await page.getByText("阅读设置", { exact: true }).click();
        await expect(page.getByRole("group", { name: "背景" })).toBeVisible();
        await expectNoSeriousViolations(page, `the reader, ${background} (${look.name})`);
      }
      await useBackground(page, "white", baseURL!);
    });
  });
}

test("every page of app/routes.ts is visited or says why not", () => {
  const patterns = ROUTES.map((route) => route.pattern);
  // Spot checks of the derivation: a visitor's, a member's and a back-office page, a
  // dynamic segment, and roles by layout.
  expect(ROUTES).toEqual(
    expect.arrayContaining([
      { pattern: "/", role: "visitor" },
      { pattern: "/following", role: "member" },
      { pattern: "/works/:id/chapters/:chapterId", role: "member" },
      { pattern: "/admin/payouts", role: "admin" },
      { pattern: "/admin/orders/:outTradeNo", role: "admin" },
    ]),
  );
  // No resource route (a .ts module) among them.
  expect(patterns).not.toContain("/works/:id/feed.xml");
  expect(patterns).not.toContain("/exports/database.zip");
  // Every address can be made: each dynamic segment has a value.
  const visits = siteVisits({ workId: 1, paidId: 2, seriesId: 3, chapterId: 4, tag: "t", userId: "u", authorId: "a", orderNo: "o", marker: "m", curatedRowId: 5, booklistId: 6 });
  expect(visits.filter((visit) => visit.url.includes(":"))).toEqual([]);
  // A stale exception (a route that is gone) fails.
  for (const pattern of Object.keys(NOT_VISITED)) expect(allPatterns(), pattern).toContain(pattern);
});

test("the check itself finds a serious problem when there is one", async ({ page }) => {
  // No server: a page made in place with grey-on-grey text and an unnamed button.
  await page.setContent(
    `<!doctype html><html lang="zh-CN"><head><title>检查</title></head><body><main><h1>检查</h1>` +
      `<p style="color:#aaa;background:#bbb">看不清的字</p><button></button></main></body></html>`,
  );
  const ids = (await seriousViolations(page)).map((violation) => violation.id);
  expect(ids).toEqual(expect.arrayContaining(["color-contrast", "button-name"]));
});
