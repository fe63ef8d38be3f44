import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { fakeSpeechEngine, finishUtterance } from "./fake-speech";
import { marker, newAuthor, numberedParagraphs, publishWork, sameOrigin } from "./reader-helpers";

/** 听书 (docs/decisions/238), with the scripted speech engine of fake-speech.ts. */

type Spoken = { text: string; rate: number; voice: string | null };
const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __speech: { spoken: Spoken[] } }).__speech.spoken);
const finish = finishUtterance;
/** The answer to 听书's save of paragraph `paragraph`. */
const savedAt = (page: Page, id: number, paragraph: number) =>
  page.waitForResponse(
    (r) =>
      r.request().method() === "POST" &&
      r.url().endsWith(`/works/${id}/progress`) &&
      new URLSearchParams(r.request().postData() ?? "").get("paragraph") === String(paragraph),
  );
const texts = async (page: Page) => (await spoken(page)).map((s) => s.text);

test("听书 reads the chapter aloud paragraph by paragraph, goes on to the next chapter, pauses, stops on a timer and saves the place", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.setViewportSize({ width: 390, height: 740 });
  await page.addInitScript(fakeSpeechEngine);
  await page.clock.install();

  const author = await newAuthor(playwright, baseURL!);
  const text = marker("listen");
  // 52 paragraphs: the reader sends 50, the last two load as 听书 reaches them.
  const one = numberedParagraphs(52, text).filter((line) => line.trim() !== "");
  const two = [`${text}乙一。`, `${text}乙二。`, `${text}乙三。`];
  const id = await publishWork(author, {
    title: `听书 ${text}`,
    chapters: [
      { title: "第一章", paragraphs: one },
      { title: "第二章", paragraphs: two },
      { title: "第三章", paragraphs: [`${text}丙一。`] },
    ],
  });

  // Without JavaScript nothing of it is in the page.
  const html = await (await page.request.get(`/works/${id}?chapter=1`)).text();
  expect(html).not.toContain("listen-bar");
  expect(html).not.toMatch(/>听书</);

  await visit(`/works/${id}?chapter=1`);
  await page.getByRole("button", { name: "听书", exact: true }).click();
  const bar = page.getByRole("region", { name: "听书" });
  // Only the Chinese voice is offered.
  await expect(bar.getByLabel("声音").locator("option")).toHaveText(["测试普通话"]);
  await bar.getByLabel("语速").selectOption("1.5");
  await expectNoSeriousViolations(page, "the reader with the 听书 bar open");

  // It starts from the paragraph at the top of the window.
  await page.evaluate(() => document.getElementById("p-40")!.scrollIntoView({ block: "start" }));
  const current = page.locator(".listen-current");
  await bar.getByRole("button", { name: "播放", exact: true }).click();
  await expect(current).toHaveText(one[40]);
  await expect(current).toHaveAttribute("id", "p-40");
  expect(await spoken(page)).toEqual([{ text: one[40], rate: 1.5, voice: "测试普通话" }]);

  // The mark moves paragraph by paragraph, kept in view, into the batch loaded after the first 50.
  for (let i = 41; i <= 50; i++) {
    expect(await finish(page)).toBe(true);
    await expect(current).toHaveAttribute("id", `p-${i}`);
    await expect(current).toBeInViewport();
  }
  await expect(page.locator("#p-40")).not.toHaveClass(/listen-current/);
  expect(await texts(page)).toEqual(one.slice(40, 51));

  // 暂停 silences it; 继续 says the paragraph again from its start.
  await bar.getByRole("button", { name: "暂停", exact: true }).click();
  await expect(bar.getByRole("status")).toHaveText("已暂停");
  expect(await finish(page)).toBe(false);
  await bar.getByRole("button", { name: "继续", exact: true }).click();
  await expect.poll(async () => (await texts(page)).slice(10)).toEqual([one[50], one[50]]);

  // The chapter's end opens the next chapter, which goes on from its top.
  await finish(page);
  await expect(current).toHaveAttribute("id", "p-51");
  await finish(page);
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { name: "第二章" })).toBeVisible();
  await expect(current).toHaveText(two[0]);
  // One page all along (the next chapter opened inside it): the whole of what was said.
  expect((await texts(page)).slice(10)).toEqual([one[50], one[50], one[51], two[0]]);
  expect((await spoken(page)).at(-1)).toEqual({ text: two[0], rate: 1.5, voice: "测试普通话" });

  // The place is saved as it reads (wait for the server's answer before leaving).
  const saved = savedAt(page, id, 1);
  await finish(page);
  await expect(current).toHaveAttribute("id", "p-1");
  expect((await saved).status()).toBe(204);

  // 定时关闭 15 分钟: a quarter of an hour later it stops.
  await page.getByRole("region", { name: "听书" }).getByLabel("定时关闭").selectOption("15");
  await page.clock.fastForward("15:00");
  await expect(page.getByRole("region", { name: "听书" }).getByRole("status")).toHaveText("定时已到，已停止朗读");
  await expect(current).toHaveCount(0);
  expect(await finish(page)).toBe(false);

  // 本章结束: it stops at the chapter's end rather than opening 第三章.
  const bar2 = page.getByRole("region", { name: "听书" });
  await bar2.getByLabel("定时关闭").selectOption("chapter");
  await bar2.getByRole("button", { name: "播放", exact: true }).click();
  await expect(current).toHaveAttribute("id", "p-0");
  await finish(page);
  await expect(current).toHaveAttribute("id", "p-1");
  const last = savedAt(page, id, 2);
  await finish(page);
  await expect(current).toHaveAttribute("id", "p-2");
  await finish(page);
  await expect(bar2.getByRole("status")).toHaveText("本章已读完，定时关闭");
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  expect((await texts(page)).slice(14)).toEqual([two[1], two[0], two[1], two[2]]);
  expect((await last).status()).toBe(204);

  // The saved place: 继续阅读 opens 第二章 at the last paragraph read.
  await visit(`/works/${id}`);
  await expect(page.getByRole("link", { name: "继续阅读" })).toHaveAttribute("href", `/works/${id}?chapter=2&from=2#p-2`);
  expect(errors).toEqual([]);
});

test("听书 is not offered without speech synthesis, and stops before a chapter the reader has not bought", async ({
  page,
  browser,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("mute");
  const id = await publishWork(author, {
    title: `无声 ${text}`,
    chapters: [
      { title: "第一章", paragraphs: [`${text}一。`] },
      { title: "第二章", paragraphs: [`${text}${"字".repeat(600)}`] },
    ],
  });
  const priced = await author.request.post(`/works/${id}/pricing`, {
    form: { mode: "chapter", vipFrom: "2", pricePerThousand: "20" },
    headers: sameOrigin(baseURL!),
    maxRedirects: 0,
  });
  expect(priced.status()).toBe(302);

  // A browser that cannot speak: the page as before, no 听书.
  await page.addInitScript(() => {
    delete (Window.prototype as unknown as Record<string, unknown>).speechSynthesis;
    delete (window as unknown as Record<string, unknown>).speechSynthesis;
  });
  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByRole("heading", { name: "第一章" })).toBeVisible();
  await expect(page.getByRole("button", { name: "听书", exact: true })).toHaveCount(0);

  // A visitor hears the free chapter; the next one is for sale, so it stops there.
  const context = await browser.newContext({ baseURL });
  try {
    const visitor = await context.newPage();
    await visitor.addInitScript(fakeSpeechEngine);
    await visit(`/works/${id}?chapter=1`, visitor);
    await visitor.getByRole("button", { name: "听书", exact: true }).click();
    const bar = visitor.getByRole("region", { name: "听书" });
    await bar.getByRole("button", { name: "播放", exact: true }).click();
    await expect(visitor.locator(".listen-current")).toHaveAttribute("id", "p-0");
    await finish(visitor);
    await expect(bar.getByRole("status")).toHaveText("下一章需要购买");
    await expect(bar.getByRole("button", { name: "播放", exact: true })).toBeVisible();
    await expect(visitor).toHaveURL(`/works/${id}?chapter=1`);
    expect(await texts(visitor)).toEqual([`${text}一。`]);
  } finally {
    await context.close();
  }
});
