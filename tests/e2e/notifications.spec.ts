import { expect, test, waitForLive } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, newAuthor, publishWork, type Author } from "./reader-helpers";

const nojs = { tag: "@nojs" };

/** The author publishes a chapter now through the studio's form. */
async function publishChapter(author: Author, workId: number, title: string) {
  const response = await author.request.post(`/works/${workId}/chapters/new`, {
    form: { title, content: `${title}的正文`, release: "now" },
    headers: { Origin: new URL(author.baseURL).origin },
    maxRedirects: 0,
  });
  expect(response.status(), await response.text()).toBe(302);
}

test("the bell rings live when a followed work gets a chapter; the 书架 card says what is new", async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = `铃声 ${marker("bell")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["一"] }, { title: "第二章", paragraphs: ["二"] }] });
  await visit(`/works/${id}`);
  const followed = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith(`/works/${id}`));
  await page.getByRole("button", { name: "☆ 关注" }).click();
  await followed;

  await visit("/following");
  await waitForLive(page);
  const card = page.getByTestId("shelf-card").filter({ hasText: title });
  await expect(card.getByTestId("shelf-unread")).toHaveText("2 章未读");
  await expect(card.getByTestId("shelf-latest")).toContainText("最新：第二章");
  await expect(page.getByTestId("bell-count")).toHaveCount(0);

  await publishChapter(author, id, "第三章 新的开始");
  // No reload: the delivery tells this follower, and the page refreshes its data.
  await expect(page.getByTestId("bell-count")).toHaveText("1");
  await expect(card.getByTestId("shelf-latest")).toContainText("最新：第三章 新的开始");
  await expect(card.getByTestId("shelf-unread")).toHaveText("3 章未读");
  await expect(card.getByTestId("update-dot")).toBeVisible();
  await expectNoSeriousViolations(page, "/following with an updated card");

  await page.getByTestId("bell").click();
  await expect(page).toHaveURL("/notifications");
  await expect(page.getByTestId("inbox-line").first()).toContainText(`《${title}》更新了 1 章：第三章 新的开始`);
  await expectNoSeriousViolations(page, "/notifications with an unread line");
  await page.getByRole("button", { name: "全部已读" }).click();
  await expect(page.getByTestId("inbox-unread")).toHaveText("没有未读通知");
  await expect(page.getByTestId("bell-count")).toHaveCount(0);
});

test("the inbox on a phone: mark read, mute a work and unmute it", nojs, async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const author = await newAuthor(playwright, baseURL!);
  const title = `收件箱 ${marker("inbox")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["一"] }] });
  await visit(`/works/${id}`);
  const followed = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith(`/works/${id}`));
  await page.getByRole("button", { name: "☆ 关注" }).click();
  await followed;
  await expect(page.getByRole("button", { name: "★ 已关注" })).toBeVisible();
  await publishChapter(author, id, "第二章");

  const line = page.getByTestId("inbox-line").filter({ hasText: title });
  // The delivery runs in the background: the line is there on a reload soon after. The
  // bell's count is read at the start of the page's request and the list after it, so a
  // delivery landing in between shows the line with the bell still at 0: reload until both.
  await expect(async () => {
    await visit("/notifications");
    await expect(line).toBeVisible({ timeout: 500 });
    await expect(page.getByTestId("bell-count")).toHaveText("1", { timeout: 500 });
  }).toPass();
  await expect(page.getByTestId("bell")).toBeInViewport();
  // Nothing wider than the phone's screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await line.getByRole("button", { name: "标为已读" }).click();
  await expect(page.getByText("已标为已读")).toBeVisible();
  await expect(page.getByTestId("inbox-unread")).toHaveText("没有未读通知");
  await expect(line.getByRole("button", { name: "标为已读" })).toHaveCount(0);

  await line.getByRole("button", { name: `静音《${title}》的通知` }).click();
  await expect(page.getByText("已静音这部作品的通知")).toBeVisible();
  const muted = page.getByTestId("muted-works");
  await expect(muted).toContainText(title);
  await muted.getByRole("button", { name: `取消静音《${title}》` }).click();
  await expect(page.getByText("已取消静音")).toBeVisible();
  await expect(page.getByTestId("muted-works")).toHaveCount(0);

  await visit("/following");
  await expect(page.getByTestId("shelf-card").filter({ hasText: title }).getByTestId("shelf-unread")).toHaveText("2 章未读");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
