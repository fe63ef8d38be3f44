import { expect, test } from "./fixtures";
import { marker, newAuthor, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

test("the signed-in home shows 新书, 热门 and 新完本, and a chapter read shows under 继续阅读", async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = marker("读到一半");
  const workId = await publishWork(author, {
    title,
    chapters: [
      { title: "第一章 出发", paragraphs: ["第一段"] },
      { title: "第二章 途中", paragraphs: ["第二段"] },
    ],
  });
  await visit("/");
  await expect(page.getByRole("heading", { name: "发现好故事" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "新书", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "热门", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "新完本", exact: true })).toBeVisible();
  await expect(page.getByTestId("continue-reading")).toHaveCount(0);

  await visit(`/works/${workId}?chapter=2`);
  await expect(page.getByRole("heading", { name: "第二章 途中" })).toBeVisible();
  await visit("/");
  const reading = page.getByTestId("continue-reading");
  await expect(reading.getByRole("heading", { name: title })).toBeVisible();
  await expect(reading.getByRole("link", { name: "读到第 2 章 · 第二章 途中" })).toBeVisible();
});

test("a visitor's landing keeps the hero and shows all-ages works only", nojs, async ({ page, visit, facts }) => {
  await visit("/");
  await expect(page.getByRole("heading", { name: "让短篇写作更简单" })).toBeVisible();
  const row = page.getByTestId("landing-row");
  await expect(row.getByTestId("work-card").first()).toBeVisible();
  await expect(row.getByText(facts.works.r18)).toHaveCount(0);
  await expect(row.getByText(facts.works.private)).toHaveCount(0);
});

test("a tag's page filters without JavaScript: exclude a tag, then back to the tag through a chip", nojs, async ({ page, visit, facts }) => {
  await visit(`/works?q=${facts.marker}&page=1`);
  // A tag chip on a card leads to the tag's page.
  await page.getByTestId("work-card").filter({ hasText: facts.works.allAges }).getByRole("link", { name: `#${facts.topics.shared}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: `#${facts.topics.shared}` })).toBeVisible();
  const titles = () => page.getByTestId("work-card").getByRole("heading").allTextContents();
  // A visitor: the R-18 work carrying the tag is not listed.
  await expect(page.getByTestId("work-card")).toHaveCount(2);
  expect((await titles()).sort()).toEqual([facts.works.allAges, facts.works.paid].sort());

  const form = page.getByRole("search", { name: "筛选作品" });
  await form.getByLabel("排除标签").fill(facts.topics.paidOnly);
  await form.getByLabel("排序").selectOption("words");
  await form.getByRole("button", { name: "筛选" }).click();
  await expect(page).toHaveURL(/exclude=/);
  await expect(page.getByTestId("work-card")).toHaveCount(1);
  expect(await titles()).toEqual([facts.works.allAges]);
  // The form shows what is applied.
  await expect(form.getByLabel("排除标签")).toHaveValue(facts.topics.paidOnly);
  await expect(form.getByLabel("排序")).toHaveValue("words");
});

test.describe("on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the rankings page switches boards and fits the screen", nojs, async ({ page, visit }) => {
    await visit("/rankings");
    await expect(page.getByRole("heading", { name: "排行榜" })).toBeVisible();
    const tabs = page.getByRole("navigation", { name: "榜单" });
    await expect(tabs.getByRole("link", { name: "畅销榜 · 7天" })).toHaveAttribute("aria-current", "page");
    await tabs.getByRole("link", { name: "收藏榜" }).click();
    await expect(page).toHaveURL(/board=favorites/);
    await expect(tabs.getByRole("link", { name: "收藏榜" })).toHaveAttribute("aria-current", "page");
    // Nothing wider than the phone.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});

test("an author's name finds their works and links to them; a work offers its chapter feed", nojs, async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  // An account is named after its e-mail's local part.
  const nickname = author.credentials.email.split("@")[0];
  const title = marker("笔名可寻");
  const workId = await publishWork(author, {
    title,
    description: "简介里没有作者",
    chapters: [
      { title: "第一章 起", paragraphs: ["第一段"] },
      { title: "第二章 承", paragraphs: ["第二段"] },
    ],
  });

  // Searching the author's name finds the work, whose title and description never name them.
  await visit(`/works?q=${encodeURIComponent(nickname)}&page=1`);
  const card = page.getByTestId("work-card").filter({ hasText: title });
  await expect(card).toHaveCount(1);
  // The card's author name leads to their page with their works (decision 230).
  await card.getByRole("link", { name: nickname }).click();
  await expect(page).toHaveURL(/\/authors\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1, name: nickname })).toBeVisible();
  await expect(page.getByTestId("work-card").getByRole("heading", { name: title })).toBeVisible();
  // /works?author= still lists them.
  await visit(`${new URL(page.url()).pathname.replace(/^\/authors\//, "/works?author=")}`);
  await expect(page.getByRole("heading", { level: 1, name: `${nickname}的作品` })).toBeVisible();

  // The work page announces its feed to browsers and feed readers, and shows it.
  await visit(`/works/${workId}`);
  const feed = `/works/${workId}/feed.xml`;
  await expect(page.locator('head link[rel="alternate"][type="application/atom+xml"]')).toHaveAttribute("href", feed);
  await expect(page.getByRole("link", { name: "订阅章节更新（RSS/Atom）" })).toHaveAttribute("href", feed);
  await expect(page.getByRole("link", { name: nickname })).toHaveAttribute("href", /^\/authors\/[0-9a-f-]{36}$/);
  // A chapter announces it too.
  await visit(`/works/${workId}?chapter=2`);
  await expect(page.locator('head link[rel="alternate"][type="application/atom+xml"]')).toHaveAttribute("href", feed);

  // The newest entry leads to its chapter by id, through the reader's redirect.
  const xml = await (await page.request.get(feed)).text();
  const entry = /<entry>[\s\S]*?<title>([^<]*)<\/title>[\s\S]*?href="([^"]*chapterId=\d+)"/.exec(xml);
  expect(entry?.[1]).toBe("第二章 承");
  await visit(new URL(entry![2]).pathname + new URL(entry![2]).search);
  await expect(page).toHaveURL(`/works/${workId}?chapter=2`);
  await expect(page.getByRole("heading", { level: 1, name: "第二章 承" })).toBeVisible();
});

