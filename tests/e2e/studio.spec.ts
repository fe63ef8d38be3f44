import { expect, signedInRequest, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

const nojs = { tag: "@nojs" };

test.describe("author studio: work settings", () => {
  test("the owner renames a series, tags it and marks it 完本; the work page shows it", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
    const title = `设置 ${marker("settings")}`;
    const id = await publishWork(page, baseURL!, { title });
    await visit("/my-works?tab=free");
    await page.locator(".my-work-card").filter({ hasText: title }).getByRole("link", { name: "作品设置" }).click();
    await expect(page).toHaveURL(new RegExp(`/works/${id}/settings$`));
    await expect(page.getByRole("heading", { name: `《${title}》` })).toBeVisible();

    const name = page.getByLabel("作品标题");
    await name.fill("");
    await page.getByRole("button", { name: "保存设置" }).click();
    await expect(page.getByText("请输入作品标题")).toBeVisible();

    await name.fill(`${title} 修订版`);
    await page.getByLabel("标签").fill("仙侠，ＲＰＧ、仙侠");
    await page.getByLabel("已完结（完本）").check();
    await page.getByRole("button", { name: "保存设置" }).click();
    await expect(page.getByRole("status")).toHaveText("作品设置已保存");
    await expect(page.getByLabel("标签")).toHaveValue("仙侠，RPG");
    await expect(page.getByLabel("已完结（完本）")).toBeChecked();

    await page.getByRole("link", { name: "查看作品页" }).click();
    await expect(page.getByRole("heading", { name: `${title} 修订版` })).toBeVisible();
  });

  test("another user's work settings are a 404", nojs, async ({ loggedInPage: page, visit, facts }) => {
    const html = await (await page.request.get(`/works?q=${encodeURIComponent(facts.works.allAges)}`)).text();
    const id = /href="\/works\/(\d+)"/.exec(html)?.[1];
    expect(id).toBeTruthy();
    const response = await page.goto(`/works/${id}/settings`);
    expect(response?.status()).toBe(404);
    await expect(page.getByText("作品不存在")).toBeVisible();
  });

  test("works on a 390 px phone", async ({ loggedInPage: page, visit, baseURL }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const title = `手机设置 ${marker("phone")}`;
    const id = await publishWork(page, baseURL!, { title, type: "single_chapter" });
    await visit(`/works/${id}/settings`);
    const save = page.getByRole("button", { name: "保存设置" });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.getByLabel("标签").fill("短篇");
    await save.click();
    await expect(page.getByRole("status")).toHaveText("作品设置已保存");
  });
});

const four = ["第一回 出山", "第二回 入城", "第三回 夜宴", "第四回 归途"].map((title) => ({ title, content: `${title}的正文。` }));

/** Opens a chapter's 更多 panel and waits until it is the one open. */
async function openMore(page: import("@playwright/test").Page, title: string) {
  await page.getByRole("link", { name: `更多操作 ${title}` }).click();
  // Open, the link says 收起 (its name starts with what it shows).
  await expect(page.getByRole("link", { name: `收起 ${title}` })).toHaveAttribute("aria-expanded", "true");
}

function managerTitles(page: import("@playwright/test").Page) {
  return page.getByRole("list", { name: "章节列表" }).locator(".chapter-title");
}

test.describe("author studio: chapter manager", () => {
  test("moves, renames, inserts, groups into volumes and deletes chapters of an imported work", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
    const title = `章节 ${marker("manager")}`;
    const id = await publishWork(page, baseURL!, { title, type: "multi_chapter", chapters: four });
    await visit("/my-works?tab=free");
    await page.locator(".my-work-card").filter({ hasText: title }).getByRole("link", { name: "章节管理" }).click();
    await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters$`));
    await expect(managerTitles(page)).toHaveText(four.map((c) => c.title));

    // The last chapter to the first place.
    await openMore(page, "第四回 归途");
    const moveTo = page.getByLabel("移动到第几位（1–4）");
    await moveTo.fill("0");
    await page.getByRole("button", { name: "移动", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText("位置不能小于1");
    await expect(managerTitles(page)).toHaveText(four.map((c) => c.title));
    // The refused form stays open for another try.
    await page.getByLabel("移动到第几位（1–4）").fill("1");
    await page.getByRole("button", { name: "移动", exact: true }).click();
    await expect(page.getByRole("status")).toHaveText("章节已移动");
    await expect(managerTitles(page)).toHaveText(["第四回 归途", "第一回 出山", "第二回 入城", "第三回 夜宴"]);

    await page.getByRole("button", { name: "下移 第四回 归途" }).click();
    await expect(managerTitles(page)).toHaveText(["第一回 出山", "第四回 归途", "第二回 入城", "第三回 夜宴"]);

    // Rename, with the 100-character rule.
    await openMore(page, "第四回 归途");
    await page.getByLabel("章节标题").fill("番外 归途");
    await page.getByRole("button", { name: "重命名", exact: true }).click();
    await expect(managerTitles(page).nth(1)).toHaveText("番外 归途");

    // A new volume from the third chapter on.
    await openMore(page, "第二回 入城");
    await page.getByLabel("从本章开始新的一卷").fill("第二卷 风起");
    await page.getByRole("button", { name: "新建分卷", exact: true }).click();
    await expect(page.getByRole("heading", { name: "第二卷 风起" })).toBeVisible();

    // Insert before the first chapter.
    await openMore(page, "第一回 出山");
    await page.getByRole("link", { name: "在此章前插入新章节" }).click();
    await expect(page.getByLabel(/插入位置/)).toHaveValue("1");
    await page.getByLabel("章节标题").fill("楔子");
    await page.getByLabel("章节内容").fill("很久以前。");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("status")).toHaveText("章节已发布");
    await expect(managerTitles(page)).toHaveText(["楔子", "第一回 出山", "番外 归途", "第二回 入城", "第三回 夜宴"]);

    // Delete, after confirming.
    await openMore(page, "番外 归途");
    await page.getByRole("link", { name: "删除", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "删除章节" });
    await expect(dialog).toContainText("确定要删除《番外 归途》吗？");
    await dialog.getByRole("button", { name: "确认删除" }).click();
    await expect(page.getByRole("status")).toHaveText("章节已删除");
    await expect(managerTitles(page)).toHaveText(["楔子", "第一回 出山", "第二回 入城", "第三回 夜宴"]);

    // Readers see the new order, numbered by it, with the volume heading.
    await visit(`/works/${id}`);
    const toc = page.getByTestId("toc-list");
    await expect(toc.locator(".toc-title")).toHaveText(["楔子", "第一回 出山", "第二回 入城", "第三回 夜宴"]);
    await expect(toc.getByRole("heading", { name: "第二卷 风起" })).toBeVisible();
    await visit(`/works/${id}?chapter=3`);
    await expect(page.getByText("第二回 入城的正文。")).toBeVisible();
  });

  test("drags a chapter onto another's place", async ({ loggedInPage: page, visit, baseURL }) => {
    const id = await publishWork(page, baseURL!, { title: `拖动 ${marker("drag")}`, type: "multi_chapter", chapters: four });
    await visit(`/works/${id}/chapters`);
    const rows = page.getByRole("list", { name: "章节列表" }).locator(".chapter-row");
    await rows.nth(3).dragTo(rows.nth(0));
    await expect(managerTitles(page)).toHaveText(["第四回 归途", "第一回 出山", "第二回 入城", "第三回 夜宴"]);
    await page.reload();
    await expect(managerTitles(page)).toHaveText(["第四回 归途", "第一回 出山", "第二回 入城", "第三回 夜宴"]);
  });

  test("works on a 390 px phone", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const id = await publishWork(page, baseURL!, { title: `手机章节 ${marker("phone")}`, type: "multi_chapter", chapters: four });
    await visit(`/works/${id}/chapters`);
    await page.getByRole("button", { name: "上移 第二回 入城" }).click();
    await expect(managerTitles(page)).toHaveText(["第二回 入城", "第一回 出山", "第三回 夜宴", "第四回 归途"]);
    await openMore(page, "第二回 入城");
    await expect(page.getByLabel("移动到第几位（1–4）")).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});

test.describe("author studio: drafts and scheduled chapters", () => {
  test("writes ahead: a 存稿 and a 定时 chapter stay hidden from readers until published", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
    const id = await publishWork(page, baseURL!, { title: `存稿 ${marker("drafts")}` });
    await visit(`/works/${id}/chapters`);
    await page.getByRole("link", { name: "添加章节" }).click();
    await expect(page.getByRole("heading", { name: "添加章节" })).toBeVisible();
    await page.getByLabel("章节标题").fill("第二章 未完");
    await page.getByLabel("存稿（读者不可见）").check();
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("status")).toHaveText("已存稿");
    await expect(page.locator(".chapter-row").filter({ hasText: "第二章 未完" }).getByText("存稿", { exact: true })).toBeVisible();

    // A schedule in the past is refused; one tomorrow is shown in China time.
    await page.getByRole("link", { name: "添加章节" }).click();
    await expect(page.getByRole("heading", { name: "添加章节" })).toBeVisible();
    await page.getByLabel("章节标题").fill("第三章 明日");
    await page.getByLabel("章节内容").fill("明天见。");
    await page.getByLabel("定时发布", { exact: true }).check();
    await page.getByLabel("发布时间（北京时间）").fill("2020-01-01T08:00");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("定时发布的时间必须晚于现在")).toBeVisible();
    await page.getByLabel("定时发布", { exact: true }).check();
    await page.getByLabel("发布时间（北京时间）").fill("2099-06-01T20:30");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("status")).toHaveText("已设置定时发布");
    await expect(page.getByText("定时 2099-06-01 20:30")).toBeVisible();

    // Readers see the published chapter only.
    await visit(`/works/${id}`);
    await expect(page.getByTestId("toc-list").locator(".toc-title")).toHaveText(["第一章 开端"]);

    // Publishing the draft needs its text first.
    await visit(`/works/${id}/chapters`);
    await openMore(page, "第二章 未完");
    await page.getByRole("button", { name: "立即发布" }).click();
    await expect(page.getByRole("alert")).toHaveText("请输入章节内容");
    await page.getByRole("link", { name: "编辑正文" }).click();
    await expect(page.getByRole("heading", { name: "编辑存稿" })).toBeVisible();
    await page.getByLabel("正文").fill("写完了。");
    await page.getByLabel("立即发布", { exact: true }).check();
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByRole("status")).toHaveText("章节已发布");
    await visit(`/works/${id}`);
    await expect(page.getByTestId("toc-list").locator(".toc-title")).toHaveText(["第一章 开端", "第二章 未完"]);
  });
});

test.describe("author studio: statistics", () => {
  test("after a reader reads and follows, the owner sees charts and numbers for today", nojs, async ({ loggedInPage: page, visit, baseURL, playwright }) => {
    const title = `统计 ${marker("stats")}`;
    const id = await publishWork(page, baseURL!, { title, type: "multi_chapter", chapters: four });
    const { request: reader } = await signedInRequest(playwright, baseURL!);
    expect((await reader.get(`/works/${id}?chapter=2`)).status()).toBe(200);
    expect((await reader.get(`/works/${id}?chapter=2`)).status()).toBe(200);
    const origin = new URL(baseURL!).origin;
    const follow = await reader.post(`/works/${id}`, { form: { intent: "favorite", on: "1" }, headers: { Origin: origin, Referer: `${origin}/works/${id}` }, maxRedirects: 0 });
    expect(follow.status()).toBe(302);
    await reader.dispose();

    await visit(`/works/${id}/chapters`);
    await page.getByRole("link", { name: "数据统计" }).click();
    await expect(page).toHaveURL(new RegExp(`/works/${id}/stats$`));
    const summary = page.locator(".stats-summary");
    await expect(summary.locator("div").filter({ hasText: "读者" })).toContainText("1");
    await expect(summary.locator("div").filter({ hasText: "新增关注" })).toContainText("1");
    await expect(page.getByRole("img", { name: "每日读者" })).toBeVisible();
    await expect(page.getByRole("img", { name: "每日新增关注" })).toBeVisible();
    // Today is the table's first row: one reader, one follow.
    const daily = page.getByRole("table", { name: "全书每日数据" });
    await expect(daily.locator("tbody tr").first().locator("td")).toHaveText(["1", "1"]);
    // Titles that carry their own number (第二回) are not numbered again (第2章 第二回).
    const chapters = page.getByRole("table", { name: /各章/ });
    await expect(chapters.getByRole("link")).toHaveText(["第一回 出山", "第二回 入城", "第三回 夜宴", "第四回 归途"]);
    await expect(chapters.getByRole("row", { name: /第二回 入城/ }).locator("td").last()).toHaveText("1");
    await expect(chapters.getByRole("row", { name: /第一回 出山/ }).locator("td").last()).toHaveText("0");

    await chapters.getByRole("link", { name: "第二回 入城" }).click();
    await expect(page.getByRole("heading", { name: "第二回 入城", exact: true })).toBeVisible();
    await expect(page.getByRole("img", { name: "本章每日读者" })).toBeVisible();
    await expect(page.getByRole("table", { name: "本章每日读者" }).locator("tbody tr").first().locator("td")).toHaveText(["1"]);

    // 读者行为: today's reader of 第二回 is still inside their 7 days (观察中); the 段评 heat by a GET form.
    await page.getByRole("link", { name: /读者行为/ }).click();
    await expect(page).toHaveURL(new RegExp(`/works/${id}/stats/readers$`));
    const drops = page.getByRole("table", { name: "各章流失" });
    await expect(drops.getByRole("row", { name: /第二回 入城/ }).locator("td")).toHaveText(["0", "0", "—", "1"]);
    await expect(drops.getByRole("row", { name: /第四回 归途/ })).toContainText("最新一章");
    await page.getByLabel("章节").selectOption({ label: "第二回 入城" });
    await page.getByRole("button", { name: "查看" }).click();
    await expect(page.getByText("第二回 入城：共 0 条段评。")).toBeVisible();
    await expect(page.getByTestId("insights-heat").locator("li")).not.toHaveCount(0);
  });

  test("another user's statistics are a 404; a phone shows them without side scrolling", async ({ loggedInPage: page, visit, baseURL, facts }) => {
    const html = await (await page.request.get(`/works?q=${encodeURIComponent(facts.works.allAges)}`)).text();
    const other = /href="\/works\/(\d+)"/.exec(html)?.[1];
    expect((await page.goto(`/works/${other}/stats`))?.status()).toBe(404);
    await page.setViewportSize({ width: 390, height: 844 });
    const id = await publishWork(page, baseURL!, { title: `手机统计 ${marker("stats")}` });
    await visit(`/works/${id}/stats?chapter=junk`);
    await expect(page.getByRole("img", { name: "每日读者" })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect((await page.goto(`/works/${other}/stats/readers`))?.status()).toBe(404);
    expect((await page.goto(`/works/${id}/stats/readers?chapter=junk`))?.status()).toBe(404);
    await expect(page.getByRole("alert").filter({ hasText: "找不到这一章：请从列表里选择本作品已发布的章节" })).toBeVisible();
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(narrow).toBeLessThanOrEqual(0);
  });
});
