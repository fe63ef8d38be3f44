import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, newAuthor, sameOrigin } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

const nojs = { tag: "@nojs" };
const phone = { width: 390, height: 844 };

async function fitsPhone(page: import("@playwright/test").Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/**
 * 角色百科 (decision 259) on a phone, with and without JavaScript: the author puts a
 * character in the wiki from the story bible; a reader at 第2回 sees what was recorded up to
 * there and nothing of 第3回 on; a visitor sees 第1回 and may choose a later free chapter.
 * The rules (paid chapters, random positions) are in tests/integration/wiki.test.ts.
 */
test("the author opens a character to readers; the wiki stops at the reader's chapter", nojs, async ({ loggedInPage: page, visit, baseURL, browser, playwright, javaScriptEnabled }) => {
  await page.setViewportSize(phone);
  const chapters = Array.from({ length: 4 }, (_, i) => ({ title: `第${i + 1}回`, content: `第${i + 1}回的正文。` }));
  const id = await publishWork(page, baseURL!, { title: `百科 ${marker("wiki")}`, type: "multi_chapter", chapters });
  const post = async (form: Record<string, string>) => {
    const response = await page.request.post(`/works/${id}/bible`, { form, headers: sameOrigin(baseURL!), maxRedirects: 0 });
    expect(response.status(), JSON.stringify(form)).toBe(302);
    return response.headers().location ?? "";
  };
  // Seeded through the bible's own forms: 林晚 with a fact at 第1回 and one at 第3回; 沈舟 first appears at 第3回.
  const lin = /#e-(\d+)/.exec(await post({ intent: "entity-save", kind: "character", name: "林晚", description: "青石镇的少女。" }))![1];
  await post({ intent: "fact-save", entityId: lin, content: "左手受了伤", fromChapter: "1" });
  await post({ intent: "fact-save", entityId: lin, content: "坠入魔道", fromChapter: "3" });
  const shen = /#e-(\d+)/.exec(await post({ intent: "entity-save", kind: "character", name: "沈舟" }))![1];
  await post({ intent: "entity-wiki", id: shen, enabled: "on", wikiFrom: "3" });

  // The switch on 林晚's card, its chapter filled in from her earliest fact.
  await visit(`/works/${id}/bible`);
  const card = page.locator(`#e-${lin}`);
  const form = card.getByRole("form", { name: "林晚的读者百科" });
  await expect(form.getByLabel("第几章出场")).toHaveValue("1");
  await form.getByRole("button", { name: "在读者百科公开" }).click();
  await expect(page.getByRole("status")).toHaveText("已在读者百科公开：读到第1章的读者可以看到");
  await expect(page.locator(`#e-${lin}`).getByTestId("entity-wiki")).toHaveText("读者百科：第1章起公开");
  await fitsPhone(page);

  // A reader who has read up to 第2回.
  const reader = await newAuthor(playwright, baseURL!);
  const context = await browser.newContext({ storageState: await reader.request.storageState(), javaScriptEnabled, viewport: phone, baseURL });
  const readerPage = await context.newPage();
  await visit(`/works/${id}?chapter=2`, readerPage);
  await expect(readerPage.getByRole("heading", { name: "第2回" })).toBeVisible();
  await visit(`/works/${id}`, readerPage);
  await readerPage.getByRole("link", { name: "角色百科" }).click();
  await expect(readerPage.getByRole("heading", { name: "角色百科", level: 1 })).toBeVisible();
  await expect(readerPage.getByTestId("wiki-horizon")).toContainText("只显示到 第 2 章 为止");
  await expect(readerPage.getByRole("link", { name: "林晚" })).toBeVisible();
  await expect(readerPage.getByText("沈舟")).toHaveCount(0);
  await readerPage.getByRole("link", { name: "林晚" }).click();
  await expect(readerPage.getByRole("heading", { name: /林晚/, level: 1 })).toBeVisible();
  await expect(readerPage.getByTestId("wiki-entries")).toContainText("第1章 左手受了伤");
  await expect(readerPage.getByText("坠入魔道")).toHaveCount(0);
  await fitsPhone(readerPage);
  if (javaScriptEnabled) await expectNoSeriousViolations(readerPage, "a 角色百科 entry");
  // Asking for 第4回 by address gives no more than 第2回.
  await visit(`/works/${id}/wiki/${lin}?upTo=4`, readerPage);
  await expect(readerPage.getByText("坠入魔道")).toHaveCount(0);
  await context.close();

  // A visitor: 第1回, unless they choose a later chapter of this free work.
  const visitor = await browser.newContext({ javaScriptEnabled, viewport: phone, baseURL });
  const visitorPage = await visitor.newPage();
  await visit(`/works/${id}/wiki`, visitorPage);
  await expect(visitorPage.getByTestId("wiki-horizon")).toContainText("只显示到 第 1 章 为止");
  await expect(visitorPage.getByText("沈舟")).toHaveCount(0);
  await visitorPage.getByLabel("我读到第几章").fill("3");
  await visitorPage.getByRole("button", { name: "查看" }).click();
  await expect(visitorPage.getByTestId("wiki-horizon")).toContainText("只显示到 第 3 章 为止");
  await expect(visitorPage.getByRole("link", { name: "沈舟" })).toBeVisible();
  await fitsPhone(visitorPage);
  await visitor.close();
});
