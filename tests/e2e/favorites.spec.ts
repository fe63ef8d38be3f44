import { expect, test, waitForLive } from "./fixtures";
import { expectLoginDialog } from "./fixtures/auth-dialog";
import { marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

test("follow from the reader, find it on /following with 继续阅读, unfollow from the card", nojs, async ({
  loggedInPage: page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = `关注 ${marker("fav")}`;
  const id = await publishWork(author, {
    title,
    chapters: [
      { title: "第一章", paragraphs: ["一"] },
      { title: "第二章", paragraphs: ["二"] },
    ],
  });

  await visit("/following");
  await expect(page.getByRole("heading", { name: "书架", level: 1 })).toBeVisible();
  await expect(page.getByText("还没有关注的作品")).toBeVisible();

  await visit(`/works/${id}`);
  // The button shows 已关注 while the request is still running: wait for the server's
  // answer before leaving the page, or the navigation may cancel the follow.
  const followed = page.waitForResponse(
    (answer) => answer.request().method() === "POST" && new URL(answer.url()).pathname.startsWith(`/works/${id}`),
  );
  await page.getByRole("button", { name: "☆ 关注" }).click();
  await followed;
  await expect(page.getByRole("button", { name: "★ 已关注" })).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(`/works/${id}`);
  await visit(`/works/${id}?chapter=2`);

  await visit("/following");
  const card = page.getByTestId("shelf-card");
  await expect(card.getByRole("heading")).toHaveText([title]);
  await expect(card.getByRole("link", { name: "继续阅读" })).toHaveAttribute("href", `/works/${id}?chapter=2#p-0`);
  await card.getByRole("button", { name: "★ 已关注" }).click();
  await expect(page.getByText("还没有关注的作品")).toBeVisible();
  await expect(page).toHaveURL("/following");
});

test("a visitor who clicks 关注 gets the login dialog", nojs, async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `游客 ${marker("fav")}`, chapters: [{ title: "第一章", paragraphs: ["一"] }] });
  await visit(`/works/${id}`);
  await page.getByRole("link", { name: "☆ 关注" }).click();
  await expectLoginDialog(page);
});

test("the owner sees management controls instead of 关注", nojs, async ({ page, context, logInAs, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `自己的 ${marker("fav")}`, chapters: [{ title: "第一章", paragraphs: ["一"] }] });
  await logInAs(context, author.credentials);
  await visit(`/works/${id}`);
  // A multi-chapter work is edited in the author studio's chapter manager.
  await expect(page.getByRole("link", { name: "作品设置" })).toHaveAttribute("href", `/works/${id}/settings`);
  await expect(page.getByRole("link", { name: "章节管理" })).toHaveAttribute("href", `/works/${id}/chapters`);
  await expect(page.getByRole("button", { name: "下架" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^[☆★] / })).toHaveCount(0);
  await expect(page.getByRole("link", { name: /^[☆★] / })).toHaveCount(0);
});

test("/following in another tab updates live when a work is followed and when it is taken down", async ({
  loggedInPage: page,
  context,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = `实时 ${marker("live")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["一"] }] });

  const other = await context.newPage();
  await visit("/following", other);
  await waitForLive(other);
  await expect(other.getByText("还没有关注的作品")).toBeVisible();

  await visit(`/works/${id}`);
  await page.getByRole("button", { name: "☆ 关注" }).click();
  await expect(page.getByRole("button", { name: "★ 已关注" })).toBeVisible();
  await expect(other.getByTestId("shelf-card").getByRole("heading")).toHaveText([title]);

  // The author takes the work down: it leaves the list, without a reload.
  const response = await author.request.post("/my-works", {
    form: { intent: "take-down", workId: String(id), back: "/my-works" },
    headers: { Origin: new URL(baseURL!).origin },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
  await expect(other.getByTestId("shelf-card")).toHaveCount(0);
  await expect(other.getByText("另有 1 部作品已下架或因浏览设置被隐藏。")).toBeVisible();
});
