/**
 * axe-core over the main pages of every area (docs/decisions/071-accessibility.md): the
 * visitor's pages, the signed-in pages, the back office and the error page, in the light
 * and dark themes, on a desktop and on a 390 px phone. Any critical or serious violation
 * fails. Pages are checked in a few tests (one per area and look) so the server is asked
 * for little; each page is reported on its own (soft expectations).
 *
 * A new screen adds its address to one of the lists below, or calls
 * expectNoSeriousViolations in its own spec.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test, waitForHydration } from "./fixtures";
import { ADMIN_COOKIE, claimAdminSession, poolCookie } from "./fixtures/account-pool";
import { expectNoSeriousViolations, seriousViolations } from "./fixtures/axe";
import { marker, newAuthor, publishWork, setPrice } from "./reader-helpers";
import { publishWork as publishSeries } from "./studio-helpers";

type Background = "white" | "sepia" | "green" | "night";

interface Look {
  name: string;
  viewport: { width: number; height: number };
  dark: boolean;
  /** Every page, or only the key pages (marked `key`) of each area. */
  everyPage: boolean;
}

// Every page is checked in both themes and at both widths: all of them as a light desktop
// and a dark phone, the key pages also as a dark desktop and a light phone. (All four for
// every page passed too; on a shared CI machine axe costs several seconds a page.)
const LOOKS: Look[] = [
  { name: "desktop, light", viewport: { width: 1280, height: 800 }, dark: false, everyPage: true },
  { name: "phone, dark", viewport: { width: 390, height: 844 }, dark: true, everyPage: true },
  { name: "desktop, dark", viewport: { width: 1280, height: 800 }, dark: true, everyPage: false },
  { name: "phone, light", viewport: { width: 390, height: 844 }, dark: false, everyPage: false },
];

interface Check {
  url: string;
  /** A key page: checked in every look. */
  key?: boolean;
}

interface SharedWork {
  id: number;
  /** A second work of the same author, for sale: a visitor meets its paywall. */
  paidId: number;
  /** The author's session cookies: the signed-in pages are seen by someone with a work. */
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>>;
}

// One free and one paid work per worker, shared by its tests: a work page with chapters,
// a chapter reader, a paywall, and a /my-works with cards.
let sharedWork: Promise<SharedWork> | undefined;
function theWork(playwright: Parameters<typeof newAuthor>[0], baseURL: string): Promise<SharedWork> {
  sharedWork ??= (async () => {
    const author = await newAuthor(playwright, baseURL);
    const id = await publishWork(author, {
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
    await setPrice(author, paidId, 5);
    const { cookies } = await author.request.storageState();
    return { id, paidId, cookies };
  })();
  return sharedWork;
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

async function useLook(page: Page, look: Look, baseURL: string) {
  await page.setViewportSize(look.viewport);
  await useBackground(page, look.dark ? "night" : "white", baseURL);
}

/** Opens each address this look checks, waits for hydration, and runs axe on it. */
async function checkPages(page: Page, look: Look, checks: Check[], themed = true) {
  for (const { url } of checks.filter((check) => look.everyPage || check.key)) {
    await page.goto(url);
    await waitForHydration(page);
    if (look.dark && themed) await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expectNoSeriousViolations(page, `${url} (${look.name})`);
  }
}

for (const look of LOOKS) {
  test.describe(`accessibility, ${look.name}`, () => {
    // Up to 18 pages a test, each loaded, hydrated and analysed.
    test.describe.configure({ timeout: 180_000 });

    test("a visitor's pages", async ({ page, playwright, baseURL, facts }) => {
      const work = await theWork(playwright, baseURL!);
      await useLook(page, look, baseURL!);
      await checkPages(page, look, [
        { url: "/", key: true },
        { url: `/works?q=${encodeURIComponent(facts.marker)}` },
        { url: `/works/${work.id}`, key: true },
        { url: `/works/${work.id}?chapter=1`, key: true },
        { url: `/works/${work.id}?chapter=1&toc=1` },
        { url: `/works/${work.paidId}`, key: true },
        { url: "/?auth=login", key: true },
        { url: "/works?auth=register" },
        { url: "/auth/forgot-password" },
        { url: "/terms" },
        { url: `/works/${work.id}/comments?chapter=1` },
        { url: "/works/999999999", key: true },
        // Discovery (decisions 120-122): the filters open, a tag's page, the rankings.
        { url: `/works?sort=words&status=completed&page=1`, key: true },
        { url: `/tags/${encodeURIComponent(facts.topics.shared)}` },
        { url: "/rankings", key: true },
      ]);
    });

    test("the reader in 米黄 and 护眼绿, its settings panel open", async ({ page, context, playwright, baseURL }) => {
      const work = await theWork(playwright, baseURL!);
      await context.addCookies(work.cookies);
      await page.setViewportSize(look.viewport);
      for (const background of ["sepia", "green"] as const) {
        await useBackground(page, background, baseURL!);
        await page.goto(`/works/${work.id}?chapter=1`);
        await waitForHydration(page);
        await expect(page.locator("html")).toHaveAttribute("data-theme", background);
        await page.getByText("阅读设置", { exact: true }).click();
        await expect(page.getByRole("group", { name: "背景" })).toBeVisible();
        await expectNoSeriousViolations(page, `the reader, ${background} (${look.name})`);
      }
      await useBackground(page, "white", baseURL!);
    });

    // The signed-in pages in two tests (about 16 pages each), so that two workers share them.
    test("a signed-in reader's pages", async ({ page, context, playwright, baseURL, facts }) => {
      const work = await theWork(playwright, baseURL!);
      await context.addCookies(work.cookies);
      await useLook(page, look, baseURL!);
      await checkPages(page, look, [
        { url: `/works/${work.id}`, key: true },
        { url: `/works/${work.id}?chapter=2`, key: true },
        { url: `/works?q=${encodeURIComponent(facts.marker)}` },
        { url: "/following" },
        { url: "/notifications", key: true },
        { url: "/purchased" },
        { url: "/income" },
        { url: "/credits", key: true },
        { url: "/credits?dialog=redeem" },
        { url: "/settings" },
        { url: "/settings/nickname" },
        { url: `/works/${work.id}/comments?chapter=1`, key: true },
        { url: `/works/${work.id}/comments?chapter=1&p=0` },
        { url: "/free-writing", key: true },
        { url: "/short-writing" },
      ]);
    });

    test("an author's studio pages", async ({ page, context, playwright, baseURL }) => {
      const work = await theWork(playwright, baseURL!);
      await context.addCookies(work.cookies);
      await useLook(page, look, baseURL!);
      const manager = await (await page.request.get(`/works/${work.id}/chapters`)).text();
      const editor = new RegExp(`href="(/works/${work.id}/chapters/\\d+)"`).exec(manager)?.[1];
      expect(editor, "a chapter editor link in the chapter manager").toBeTruthy();
      // 连载续写 takes a series (the shared work has several chapters but is not one).
      const series = await publishSeries(page, baseURL!, { title: `连载 ${marker("a11y")}` });
      await checkPages(page, look, [
        { url: "/my-works", key: true },
        { url: "/my-works?tab=paid" },
        { url: "/submit", key: true },
        { url: `/works/${work.id}/pricing` },
        { url: `/works/${work.id}/edit` },
        { url: `/works/${work.id}/settings`, key: true },
        { url: `/works/${work.id}/chapters`, key: true },
        { url: `/works/${work.id}/chapters/new` },
        { url: `/works/${work.id}/stats`, key: true },
        { url: `/works/${work.id}/bible`, key: true },
        { url: `/works/${work.id}/bible?tab=threads` },
        { url: `/works/${work.id}/bible?tab=summaries` },
        { url: `/works/${work.id}/context?plan=${encodeURIComponent("出门")}` },
        { url: editor!, key: true },
        { url: `${editor}?focus=1` },
        { url: `${editor}/revisions` },
        { url: `/works/${work.id}/comment-mutes` },
        { url: `/series-writing?work=${series}` },
      ]);
    });

    test("the back office", async ({ page, context, baseURL }) => {
      const session = claimAdminSession();
      expect(session, "an administrator session from the seed's pool").toBeTruthy();
      await useLook(page, look, baseURL!);
      // The back office keeps the light theme: the reader's background is the shell's (decision 106).
      await checkPages(page, look, [{ url: "/xbbadmin", key: true }], false);
      await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session!)]);
      await checkPages(page, look, [
        { url: "/admin/dashboard", key: true },
        { url: "/admin/users", key: true },
        { url: "/admin/works" },
        { url: "/admin/prompts" },
        { url: "/admin/prompts?dialog=new", key: true },
        { url: "/admin/codes" },
        { url: "/admin/payment" },
        { url: "/admin/settings/api" },
        { url: "/admin/settings/terms" },
        { url: "/admin/api-tokens" },
        { url: "/admin/categories" },
        { url: "/admin/audit", key: true },
        { url: "/admin/admins", key: true },
        { url: "/admin/account" },
      ], false);
    });
  });
}

test("the check itself finds a serious problem when there is one", async ({ page }) => {
  // No server: a page made in place with grey-on-grey text and an unnamed button.
  await page.setContent(
    `<!doctype html><html lang="zh-CN"><head><title>检查</title></head><body><main><h1>检查</h1>` +
      `<p style="color:#aaa;background:#bbb">看不清的字</p><button></button></main></body></html>`,
  );
  const ids = (await seriousViolations(page)).map((violation) => violation.id);
  expect(ids).toEqual(expect.arrayContaining(["color-contrast", "button-name"]));
});
