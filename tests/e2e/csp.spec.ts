/**
 * The Content-Security-Policy in a real browser (docs/decisions/066-content-security-policy.md):
 * the site's own scripts run with the page's nonce, so every kind of page hydrates, and
 * markup that reaches a page past the sanitizer (a `<script>`, an `onerror=`) does not run.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test, waitForHydration } from "./fixtures";

process.env.ADMIN_EMAIL ??= "e2e-admin@example.com";
process.env.ADMIN_PASSWORD ??= "e2e-admin-password";

/**
 * What a sanitizer gap would let into the terms page: an inline script, an image whose
 * onerror handler runs when it fails to load, and a script with a guessed nonce.
 */
const HOSTILE_MARKUP =
  `<p id="hostile">注入的内容</p>` +
  `<script>window.__hostile = (window.__hostile || []).concat("script")</script>` +
  `<img src="/no-such-image.png" alt="" onerror="window.__hostile = (window.__hostile || []).concat('onerror')">` +
  `<script nonce="AAAAAAAAAAAAAAAAAAAAAA==">window.__hostile = (window.__hostile || []).concat("guessed nonce")</script>`;

/**
 * Serves /terms as the real server renders it, headers included, with HOSTILE_MARKUP
 * inside the sanitized content; `dropPolicy` removes the CSP header (the control).
 */
async function serveTermsWithHostileMarkup(page: Page, { dropPolicy = false } = {}) {
  await page.route(/\/terms$/, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    // The sanitized HTML sits in a dangerouslySetInnerHTML <div> (app/routes/public/legal.tsx),
    // which hydration leaves alone, as it would markup that came from the database.
    const opening = /(<article class="prose" aria-labelledby="legal-title"><h1 id="legal-title" class="sr-only">用户协议<\/h1><div>)/;
    expect(html).toMatch(opening);
    const headers = { ...response.headers() };
    if (dropPolicy) delete headers["content-security-policy"];
    await route.fulfill({ response, headers, body: html.replace(opening, `$1${HOSTILE_MARKUP}`) });
  });
}

/** Console messages about the policy: Chromium logs every violation it blocks. */
function collectViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

test("hostile markup in a page does not run, while the page still hydrates", async ({ page }) => {
  const violations = collectViolations(page);
  await serveTermsWithHostileMarkup(page);
  await page.goto("/terms");
  await waitForHydration(page);
  await expect(page.locator("#hostile")).toHaveText("注入的内容");
  // The image has failed by now (its onerror was blocked, not skipped).
  await expect.poll(() => page.locator("img[src='/no-such-image.png']").evaluate((img: HTMLImageElement) => img.complete)).toBe(true);
  expect(await page.evaluate(() => (window as { __hostile?: string[] }).__hostile ?? [])).toEqual([]);
  // Three refusals: the inline script, the handler, the script with a wrong nonce.
  await expect.poll(() => violations.length).toBeGreaterThanOrEqual(3);
  const report = violations.join("\n");
  expect(report).toMatch(/inline script/i);
  expect(report).toMatch(/inline event handler/i);
});

test("the same markup without the policy runs (the control for the test above)", async ({ page }) => {
  await serveTermsWithHostileMarkup(page, { dropPolicy: true });
  await page.goto("/terms");
  await waitForHydration(page);
  await expect
    .poll(() => page.evaluate(() => ((window as { __hostile?: string[] }).__hostile ?? []).slice().sort()))
    .toEqual(["guessed nonce", "onerror", "script"]);
});

/** Opens each path, waits for hydration, and returns the policy violations seen. */
async function visitAll(page: Page, paths: string[]): Promise<{ path: string; violations: string[] }[]> {
  const found: { path: string; violations: string[] }[] = [];
  for (const path of paths) {
    const violations = collectViolations(page);
    const response = await page.goto(path);
    expect(response?.headers()["content-security-policy"], path).toMatch(/script-src 'self' 'nonce-/);
    await waitForHydration(page);
    if (violations.length) found.push({ path, violations });
    page.removeAllListeners("console");
  }
  return found;
}

test("visitor, reader and writer pages hydrate without a policy violation", async ({ loggedInPage: page, browser }) => {
  const visitor = await browser.newPage();
  try {
    await visitor.goto("/works");
    const work = await visitor.locator('a[href^="/works/"]').first().getAttribute("href");
    expect(work).toMatch(/^\/works\/\d+/);
    expect(await visitAll(visitor, ["/", "/works", "/terms", "/privacy", work!])).toEqual([]);
    expect(
      await visitAll(page, ["/", "/works", work!, "/my-works", "/submit", "/credits", "/settings", "/free-writing", "/following"]),
    ).toEqual([]);
  } finally {
    await visitor.close();
  }
});

async function adminLogIn(context: BrowserContext, baseURL: string) {
  const origin = new URL(baseURL).origin;
  const response = await context.request.post("/xbbadmin", {
    form: { email: process.env.ADMIN_EMAIL!, password: process.env.ADMIN_PASSWORD!, redirectTo: "/admin/dashboard" },
    headers: { Origin: origin, Referer: `${origin}/xbbadmin` },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
}

test("back-office pages hydrate without a policy violation", async ({ page, context, baseURL }) => {
  await adminLogIn(context, baseURL!);
  expect(
    await visitAll(page, ["/admin/dashboard", "/admin/users", "/admin/works", "/admin/codes", "/admin/settings/api", "/admin/settings/terms", "/admin/migration"]),
  ).toEqual([]);
});

test("a visitor page replayed from the page cache carries a fresh nonce and hydrates", async ({ browser }) => {
  // Other tests change works meanwhile, which empties the cache: ask until a replay comes,
  // each time filling the cache with a cookieless request just before the page loads.
  const nonces = new Set<string>();
  await expect(async () => {
    const page = await browser.newPage();
    try {
      await page.request.get("/works");
      const response = await page.goto("/works");
      const nonce = /'nonce-([^']+)'/.exec(response!.headers()["content-security-policy"] ?? "")?.[1];
      expect(nonce).toBeTruthy();
      expect(nonces.has(nonce!), "a nonce was sent twice").toBe(false);
      nonces.add(nonce!);
      await waitForHydration(page);
      expect(response!.headers()["x-page-cache"]).toBe("hit");
    } finally {
      await page.close();
    }
  }).toPass({ timeout: 50_000 });
});
