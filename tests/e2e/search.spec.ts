import type { Page } from "@playwright/test";
import { expect, test, type SeedFacts } from "./fixtures";

const nojs = { tag: "@nojs" };

/** The titles of the work cards on the page, in any order. */
async function expectCards(page: Page, titles: string[]) {
  const cards = page.getByTestId("work-card");
  await expect(cards).toHaveCount(titles.length);
  const shown = await cards.getByRole("heading").allTextContents();
  expect(shown.sort()).toEqual([...titles].sort());
}

/** What everyone who may not see r18 sees when searching the run's marker. */
function allAgesWorks(facts: SeedFacts) {
  const { allAges, descriptionMatch, ai, paid } = facts.works;
  return [allAges, descriptionMatch, ai, paid];
}

async function search(page: Page, query: string) {
  const box = page.getByRole("search");
  await box.getByRole("searchbox", { name: "搜索作品" }).fill(query);
  await box.getByRole("button", { name: "搜索" }).click();
  await expect(page).toHaveURL(`/works?q=${encodeURIComponent(query)}&page=1`);
  // The address can change a moment before the new results render: wait for them.
  await expect(page.getByText(`“${query}”的搜索结果`, { exact: false })).toBeVisible();
  await expect(page.getByRole("status")).toHaveCount(0);
}

test("a visitor sees only all-ages public works", nojs, async ({ page, visit, facts }) => {
  await visit("/works?page=1");
  await search(page, facts.marker);
  await expectCards(page, allAgesWorks(facts));
  await expect(page.getByText(`“${facts.marker}”的搜索结果，共 4 部作品`)).toBeVisible();
  await expect(page.getByText(facts.works.r18)).toHaveCount(0);
  await expect(page.getByText(facts.works.private)).toHaveCount(0);
  // The paid work carries its price badge.
  const paid = page.getByTestId("work-card").filter({ hasText: facts.works.paid });
  await expect(paid.getByText("付费 5 积分")).toBeVisible();
});

test("a signed-in user with R-18 off searches from the community page and sees no r18 work", async ({
  loggedInPage: page,
  visit,
  facts,
}) => {
  await visit("/");
  await expect(page.getByRole("heading", { name: "发现好故事" })).toBeVisible();
  await search(page, facts.marker);
  await expectCards(page, allAgesWorks(facts));
});

test("a signed-in user with R-18 on also sees the r18 work", async ({ page, context, logInAs, visit, facts }) => {
  await logInAs(context, facts.accounts.r18Reader);
  await visit(`/works?q=${facts.marker}&page=1`);
  await expectCards(page, [...allAgesWorks(facts), facts.works.r18]);
  await expect(page.getByTestId("work-card").filter({ hasText: facts.works.r18 }).getByText("R-18")).toBeVisible();
});

test("a signed-in user with AI content off does not see AI-generated works", async ({
  page,
  context,
  logInAs,
  visit,
  facts,
}) => {
  await logInAs(context, facts.accounts.noAiReader);
  await visit(`/works?q=${facts.marker}&page=1`);
  const { allAges, descriptionMatch, paid } = facts.works;
  await expectCards(page, [allAges, descriptionMatch, paid]);
});

/**
 * For queries that are not run-specific (a reused PostgreSQL database keeps earlier runs'
 * works): every card shown contains the query, and the expected works are among them.
 */
async function expectMatches(page: Page, query: string, titles: string[]) {
  const cards = page.getByTestId("work-card");
  await expect(cards.first()).toBeVisible();
  for (const text of await cards.allTextContents()) expect(text).toContain(query);
  const shown = await cards.getByRole("heading").allTextContents();
  for (const title of titles) expect(shown).toContain(title);
}

test("one- and two-character Chinese queries find works by title and by description", async ({
  page,
  visit,
  facts,
}) => {
  const expected = [facts.works.allAges, facts.works.descriptionMatch];
  await visit(`/works?q=${encodeURIComponent(facts.tag)}&page=1`);
  await expectMatches(page, facts.tag, expected);
  const [first, second] = Array.from(facts.tag);
  await search(page, first);
  await expectMatches(page, first, expected);
  // The same two characters in the other order are a different query.
  await search(page, second + first);
  const shown = await page.getByTestId("work-card").getByRole("heading").allTextContents();
  expect(shown).not.toContain(facts.works.allAges);
  expect(shown).not.toContain(facts.works.descriptionMatch);
  for (const text of await page.getByTestId("work-card").allTextContents()) expect(text).toContain(second + first);
});

test("a query that matches nothing shows 未找到相关作品", nojs, async ({ page, visit, facts }) => {
  await visit("/works?page=1");
  await search(page, `${facts.marker}无此作品`);
  await expect(page.getByText("未找到相关作品")).toBeVisible();
  await expect(page.getByTestId("work-card")).toHaveCount(0);
});

test("LIKE wildcards in a query are matched literally", async ({ page, facts }) => {
  for (const query of ["%", "_", `${facts.marker}%`, `%${facts.marker}`]) {
    await page.goto(`/works?q=${encodeURIComponent(query)}&page=1`);
    await expect(page.getByText("未找到相关作品")).toBeVisible();
  }
});

test("the empty query lists the public works without an empty state", async ({ page }) => {
  // Other tests publish works while this runs, so only "some works, no empty state" holds.
  await page.goto("/works?q=&page=1");
  await expect(page.getByTestId("work-card").first()).toBeVisible();
  await expect(page.getByText("暂无作品")).toHaveCount(0);
  await expect(page.getByText("未找到相关作品")).toHaveCount(0);
});

test("page=0, -1, text, 10^9 and other bad page numbers render the results, not an error", async ({ page, facts }) => {
  for (const pageParam of ["0", "-1", "abc", "1000000000", "1e3", ""]) {
    const response = await page.goto(`/works?q=${facts.marker}&page=${encodeURIComponent(pageParam)}`);
    expect(response?.status(), `page=${pageParam}`).toBe(200);
    await expectCards(page, allAgesWorks(facts));
    await expect(page.getByRole("heading", { name: "出错了" })).toHaveCount(0);
  }
});

test("an overlong query renders a page, not an error", async ({ page }) => {
  // 150 Chinese characters then 10,000 letters: long, but within the server's URL limit.
  const response = await page.goto(`/works?q=${"字".repeat(150)}${"a".repeat(10_000)}&page=1`);
  expect(response?.status()).toBe(200);
  await expect(page.getByText("未找到相关作品")).toBeVisible();
  // The search box keeps the query it actually searched for: at most 100 characters.
  const value = await page.getByRole("searchbox", { name: "搜索作品" }).inputValue();
  expect(Array.from(value)).toHaveLength(100);
});

test("a work card's link and the sidebar open pages on the client, without loading the document again", async ({ page, facts }) => {
  await page.goto(`/works?q=${encodeURIComponent(facts.works.allAges)}&page=1`);
  await expect(page.locator("html[data-hydrated]")).toHaveCount(1);
  // A full page load would drop this mark; a client-side navigation keeps it.
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  await page.getByTestId("work-card").getByRole("link", { name: facts.works.allAges }).click();
  await expect(page).toHaveURL(/\/works\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: facts.works.allAges })).toBeVisible();
  await page.getByRole("complementary", { name: "主导航" }).getByRole("link", { name: "首页" }).click();
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("complementary", { name: "主导航" }).getByRole("link", { name: "首页" })).toHaveAttribute("aria-current", "page");
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
});
