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
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, newAuthor, publishWork } from "./reader-helpers";

/** The reader's theme switch keeps its choice here (app/components/reader/theme-toggle.tsx). */
const THEME_KEY = "inkstone-theme";

interface Look {
  name: string;
  viewport: { width: number; height: number };
  dark: boolean;
}

const LOOKS: Look[] = [
  { name: "desktop, light", viewport: { width: 1280, height: 800 }, dark: false },
  { name: "desktop, dark", viewport: { width: 1280, height: 800 }, dark: true },
  { name: "phone, light", viewport: { width: 390, height: 844 }, dark: false },
  { name: "phone, dark", viewport: { width: 390, height: 844 }, dark: true },
];

interface SharedWork {
  id: number;
  /** The author's session cookies: the signed-in pages are seen by someone with a work. */
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>>;
}

// One published work per worker, shared by its tests: a work page with chapters, a
// chapter reader, and a /my-works with a card.
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
    const { cookies } = await author.request.storageState();
    return { id, cookies };
  })();
  return sharedWork;
}

async function useLook(page: Page, look: Look) {
  await page.setViewportSize(look.viewport);
  if (look.dark) {
    await page.addInitScript((key) => localStorage.setItem(key, "dark"), THEME_KEY);
  }
}

/** Opens each address, waits for hydration, and runs axe on it. */
async function checkPages(page: Page, look: Look, urls: string[]) {
  for (const url of urls) {
    await page.goto(url);
    await waitForHydration(page);
    if (look.dark) await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expectNoSeriousViolations(page, `${url} (${look.name})`);
  }
}

for (const look of LOOKS) {
  test.describe(`accessibility, ${look.name}`, () => {
    test("a visitor's pages", async ({ page, playwright, baseURL, facts }) => {
      const work = await theWork(playwright, baseURL!);
      await useLook(page, look);
      await checkPages(page, look, [
        "/",
        `/works?q=${encodeURIComponent(facts.marker)}`,
        `/works/${work.id}`,
        `/works/${work.id}?chapter=1`,
        "/?auth=login",
        "/works?auth=register",
        "/auth/forgot-password",
        "/terms",
        "/works/999999999",
      ]);
    });

    test("a signed-in user's pages", async ({ page, context, playwright, baseURL, facts }) => {
      const work = await theWork(playwright, baseURL!);
      await context.addCookies(work.cookies);
      await useLook(page, look);
      await checkPages(page, look, [
        `/works/${work.id}`,
        `/works/${work.id}?chapter=2`,
        `/works?q=${encodeURIComponent(facts.marker)}`,
        "/following",
        "/purchased",
        "/credits",
        "/credits?dialog=redeem",
        "/settings",
        "/settings/nickname",
        "/my-works",
        "/submit",
        `/works/${work.id}/edit`,
        "/free-writing",
        "/short-writing",
        "/series-writing",
      ]);
    });

    test("the back office", async ({ page, context, baseURL }) => {
      const session = claimAdminSession();
      expect(session, "an administrator session from the seed's pool").toBeTruthy();
      await useLook(page, look);
      await checkPages(page, look, ["/xbbadmin"]);
      await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session!)]);
      await checkPages(page, look, [
        "/admin/dashboard",
        "/admin/users",
        "/admin/works",
        "/admin/prompts",
        "/admin/codes",
        "/admin/payment",
        "/admin/settings/api",
        "/admin/settings/terms",
        "/admin/api-tokens",
      ]);
    });
  });
}
