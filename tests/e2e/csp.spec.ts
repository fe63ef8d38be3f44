/**
 * The Content-Security-Policy in a real browser (docs/decisions/066-content-security-policy.md):
 * the site's own scripts run with the page's nonce (or, on a visitor's page a CDN may keep,
 * by their hashes: decision 263), so every kind of page hydrates, and
 * markup that reaches a page past the sanitizer (a `<script>`, an `onerror=`) does not run.
 */
import type { Page } from "@playwright/test";
import { expect, test, waitForHydration } from "./fixtures";
import { listenToConsole } from "./fixtures/site-pages";
import { marker, newAuthor, publishWork } from "./reader-helpers";

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

// That every page hydrates under the policy without a report is checked by the
// accessibility test, which opens every page of app/routes.ts and fails on any console
// error or policy report (tests/e2e/fixtures/site-pages.ts, docs/decisions/157).

test("a style attribute in a page is refused and reported, which the page check catches", async ({ page }) => {
  // What shipped in the bookshelf card (decision 156): a width in a React style prop,
  // rendered on the server as a style attribute. The policy refuses it, so the bar is
  // drawn at full width, and Chromium says so on the console.
  await page.route(/\/terms$/, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    // Inside the sanitized legal text, which hydration leaves alone (see above).
    const marked = html.replace(/(<h1 id="legal-title" class="sr-only">用户协议<\/h1><div>)/, `$1<div id="styled" style="width: 40px; height: 4px"></div>`);
    expect(marked).not.toBe(html);
    await route.fulfill({ response, body: marked });
  });
  const heard = listenToConsole(page);
  await page.goto("/terms");
  await waitForHydration(page);
  // Refused: the element is as wide as its container, not 40 px.
  expect(await page.locator("#styled").evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(40);
  await expect.poll(() => heard.said.join("\n")).toMatch(/Content Security Policy.*style/i);
  heard.stop();
});

test("a visitor's page, replayed from the page cache as a CDN would, has no nonce, hydrates by its scripts' hashes and answers 304 to its ETag", async ({
  browser,
}) => {
  // Other tests change works meanwhile, which empties the cache: ask until a replay comes,
  // each time filling the cache with a cookieless request just before the page loads.
  await expect(async () => {
    const page = await browser.newPage();
    const heard = listenToConsole(page);
    try {
      await page.request.get("/works");
      const response = await page.goto("/works");
      const headers = response!.headers();
      expect(headers["x-page-cache"]).toBe("hit");
      // Asked again at once: a change elsewhere while the page hydrates would give the
      // page new bytes, and so a new ETag (a slow machine's run once never found a gap).
      const again = await page.request.get("/works", { headers: { "If-None-Match": headers.etag } });
      expect(again.status()).toBe(304);
      expect(await again.body()).toHaveLength(0);
      expect(headers["cache-control"]).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
      expect(headers["content-security-policy"]).not.toContain("'nonce-");
      expect(headers["content-security-policy"]).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
      expect(await response!.text()).not.toContain("nonce=");
      await waitForHydration(page);
      expect(heard.stop()).toEqual([]);
    } finally {
      await page.close();
    }
  }).toPass({ timeout: 50_000 });
});

test("a chapter a CDN kept, replayed as it was, loads no script until the reader's first touch, then hydrates by its scripts' hashes (decision 264)", async ({
  page,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `首触 ${marker("touch")}`, chapters: [{ title: "第一章", paragraphs: ["第一段。", "第二段。"] }] });
  const address = `/works/${id}?chapter=1`;
  // The copy a CDN keeps: a visitor's answer, its headers and bytes as they were.
  const kept = await playwright.request.newContext({ baseURL }).then((request) => request.get(address));
  const headers = { ...kept.headers() };
  expect(headers["cache-control"]).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
  expect(headers["content-security-policy"]).not.toContain("'nonce-");
  delete headers["content-encoding"];
  delete headers["content-length"];
  const body = await kept.body();
  await page.route((url) => url.pathname === `/works/${id}` && url.search === "?chapter=1", (route) => route.fulfill({ status: 200, headers, body }));
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  const heard = listenToConsole(page);
  await page.goto(address);
  // Loaded (the load event waits for a page's scripts): the text, and not one script.
  await expect(page.getByText("第二段。")).toBeVisible();
  expect(scripts).toEqual([]);
  await expect(page.locator("html")).toHaveAttribute("data-scripts", "at-first-touch");
  await expect(page.locator("html")).not.toHaveAttribute("data-hydrated", "true");
  // The reader touches the text: the scripts come, and the page hydrates without a report.
  await page.getByText("第一段。").click();
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  expect(scripts.some((url) => /\/assets\/entry\.client-/.test(url))).toBe(true);
  await expect(page.getByRole("button", { name: "听书" })).toBeVisible();
  expect(heard.stop()).toEqual([]);
});
