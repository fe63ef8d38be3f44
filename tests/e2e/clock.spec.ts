import type { Locator } from "@playwright/test";
import { expect, test } from "./fixtures";
import { commentAs, marker, newAuthor, publishWork } from "./reader-helpers";

// docs/architecture.md "One clock": the server runs in UTC here (playwright.config.ts sets
// TZ=UTC for it) and so does this browser, yet every time shown is Beijing time.
test.use({ timezoneId: "UTC" });

const beijing = new Intl.DateTimeFormat("sv-SE", {
  timeZone: "Asia/Shanghai",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
});

/** Each comment time on the page shows its `datetime` in Beijing time (never the UTC reading). */
async function expectBeijingTimes(scope: Locator) {
  const times = scope.getByTestId("comment").locator("time");
  await expect(times.first()).toBeVisible();
  for (const time of await times.all()) {
    const iso = (await time.getAttribute("datetime"))!;
    const text = (await time.textContent())!.trim();
    expect(text).toBe(beijing.format(new Date(iso)));
    // Beijing is eight hours ahead of UTC: the UTC reading of the same instant is another hour.
    expect(text).not.toBe(iso.slice(0, 16).replace("T", " "));
  }
}

test("comment times read Beijing time on the 段评 page, the 本章说 page and in the thread dialog, with the server and the browser in UTC", { tag: "@nojs" }, async ({
  page,
  visit,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("clk");
  const id = await publishWork(author, { title: `时钟 ${text}`, chapters: [{ title: "第一章", paragraphs: [`${text}第一段。`, `${text}第二段。`] }] });
  await commentAs(author, id, { chapter: 1, p: 0 }, { intent: "post", body: "一条段评" });
  await commentAs(author, id, { chapter: 1 }, { intent: "post", body: "一条本章说" });

  await visit(`/works/${id}/comments?chapter=1&p=0`);
  await expectBeijingTimes(page.getByTestId("comment-list"));
  await visit(`/works/${id}/comments?chapter=1`);
  await expectBeijingTimes(page.getByTestId("comment-list"));

  if (javaScriptEnabled) {
    await visit(`/works/${id}?chapter=1`);
    await page.getByRole("link", { name: "第 1 段的段评：1 条" }).click();
    const dialog = page.getByRole("dialog", { name: "第 1 段的段评" });
    await expectBeijingTimes(dialog);
  }
});
