import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";

const nojs = { tag: "@nojs" };

type Tab = "付费" | "免费" | "未公开";

interface WorkSeed {
  title: string;
  type?: "single_chapter" | "series" | "multi_chapter";
  visibility?: "public" | "private";
}

/**
 * Publishes a work for the page's logged-in user by posting the /submit form (the way a
 * browser without JavaScript does): faster than clicking through the wizard, which
 * publish.spec.ts covers.
 */
async function publish(page: Page, baseURL: string, seed: WorkSeed): Promise<void> {
  const type = seed.type ?? "single_chapter";
  const fields: Record<string, string> = {
    intent: "publish",
    status: type === "series" ? "ongoing" : "completed",
    type,
    title: seed.title,
    description: `${seed.title}的简介`,
    rating: "all_ages",
    visibility: seed.visibility ?? "public",
  };
  if (type === "single_chapter") fields.content = "一段正文。";
  if (type === "series") Object.assign(fields, { chapterTitle: "第一章", chapterContent: "第一章的正文。" });
  const multipart: Record<string, string | { name: string; mimeType: string; buffer: Buffer }> = { ...fields };
  if (type === "multi_chapter") {
    multipart.separator = "####";
    multipart.txt = { name: "work.txt", mimeType: "text/plain", buffer: Buffer.from("####\n第一回\n正文一。\n####\n第二回\n正文二。\n") };
  }
  const origin = new URL(baseURL).origin;
  const response = await page.request.post("/submit", {
    multipart,
    headers: { Origin: origin, Referer: `${origin}/submit` },
    maxRedirects: 0,
  });
  expect(response.status(), `publish ${seed.title}`).toBe(302);
}

/** A work on /my-works with its owner controls. */
function myWork(page: Page, title: string) {
  return page.locator(".my-work-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

function tabLink(page: Page, tab: Tab) {
  return page.getByRole("navigation", { name: "作品分类" }).getByRole("link", { name: tab, exact: true });
}

async function openTab(page: Page, tab: Tab) {
  await tabLink(page, tab).click();
  await expect(tabLink(page, tab)).toHaveAttribute("aria-current", "page");
}

test.describe("/my-works", () => {
  test("three tabs with their empty states; search within a tab", nojs, async ({ loggedInPage: page, visit }) => {
    await visit("/my-works");
    await expect(page.getByRole("heading", { name: "我的作品" })).toBeVisible();
    await expect(tabLink(page, "付费")).toHaveAttribute("aria-current", "page");
    await expect(page.getByText("暂无付费作品")).toBeVisible();
    await openTab(page, "免费");
    await expect(page).toHaveURL(/\/my-works\?tab=free$/);
    await expect(page.getByText("暂无免费作品")).toBeVisible();
    await openTab(page, "未公开");
    await expect(page.getByText("暂无未公开作品")).toBeVisible();
    await expect(tabLink(page, "免费")).not.toHaveAttribute("aria-current", "page");

    await page.getByRole("searchbox", { name: "在此分类中搜索" }).fill("没有这部作品");
    await page.getByRole("button", { name: "搜索" }).click();
    await expect(page.getByText("未找到匹配的作品")).toBeVisible();
    await expect(page).toHaveURL(/tab=private&q=/);

    await page.getByRole("link", { name: "上传作品" }).first().click();
    await expect(page).toHaveURL(/\/submit$/);
  });

  test("sets a price (0 and 1.5 are refused), changes it, then makes the work free", nojs, async ({
    loggedInPage: page,
    visit,
    baseURL,
  }) => {
    const title = `定价 ${marker("price")}`;
    await publish(page, baseURL!, { title });
    await visit("/my-works?tab=free");
    const work = myWork(page, title);
    await expect(work.getByText(/^付费 \d+ 积分$/)).toHaveCount(0);

    await work.getByText("设为付费").click();
    const price = work.getByLabel("价格（积分）");
    for (const wrong of ["0", "1.5"]) {
      await price.fill(wrong);
      await work.getByRole("button", { name: "确定" }).click();
      await expect(work.getByRole("alert"), wrong).toHaveText("请输入有效的价格（至少1积分）");
    }
    await expect(page).toHaveURL(/\/my-works\?tab=free$/);

    await work.getByLabel("价格（积分）").fill("12");
    await work.getByRole("button", { name: "确定" }).click();
    // The work leaves the free tab for the paid one.
    await expect(page.getByText("暂无免费作品")).toBeVisible();
    await openTab(page, "付费");
    await expect(work.getByText("付费 12 积分")).toBeVisible();

    await work.getByText("修改价格").click();
    await expect(work.getByLabel("价格（积分）")).toHaveValue("12");
    await work.getByLabel("价格（积分）").fill("30");
    await work.getByRole("button", { name: "确定" }).click();
    await expect(work.getByText("付费 30 积分")).toBeVisible();

    await work.getByRole("button", { name: "改为免费" }).click();
    await expect(page.getByText("暂无付费作品")).toBeVisible();
    await openTab(page, "免费");
    await expect(work.getByRole("heading", { name: title })).toBeVisible();
    await expect(work.getByText(/^付费 \d+ 积分$/)).toHaveCount(0);
    await expect(work.getByText("设为付费")).toBeVisible();
  });

  test("takes a paid work down to 未公开 and puts it back on the shelf as free", nojs, async ({
    loggedInPage: page,
    visit,
    baseURL,
  }) => {
    const title = `下架 ${marker("shelf")}`;
    await publish(page, baseURL!, { title });
    await visit("/my-works?tab=free");
    const work = myWork(page, title);
    await work.getByText("设为付费").click();
    await work.getByLabel("价格（积分）").fill("8");
    await work.getByRole("button", { name: "确定" }).click();
    await expect(page.getByText("暂无免费作品")).toBeVisible();
    await openTab(page, "付费");
    await expect(work.getByText("付费 8 积分")).toBeVisible();

    await work.getByRole("button", { name: "下架" }).click();
    await expect(page.getByText("暂无付费作品")).toBeVisible();
    await openTab(page, "未公开");
    await expect(work.getByRole("heading", { name: title })).toBeVisible();
    // A work no one can see has no price to set.
    await expect(work.getByText(/设为付费|修改价格/)).toHaveCount(0);
    await expect(work.getByRole("button", { name: "下架" })).toHaveCount(0);

    await work.getByRole("button", { name: "上架" }).click();
    await expect(page.getByText("暂无未公开作品")).toBeVisible();
    // Back on the shelf it is public and free (docs/product.md D3).
    await openTab(page, "免费");
    await expect(work.getByRole("heading", { name: title })).toBeVisible();
    await expect(work.getByText(/^付费 \d+ 积分$/)).toHaveCount(0);
    await expect(work.getByRole("button", { name: "下架" })).toBeVisible();
  });

  test("deletes a work only after the confirm dialog", async ({ loggedInPage: page, visit, baseURL }) => {
    const keep = `保留 ${marker("keep")}`;
    const title = `删除 ${marker("delete")}`;
    await publish(page, baseURL!, { title: keep });
    await publish(page, baseURL!, { title });
    await visit("/my-works?tab=free");
    const work = myWork(page, title);

    const messages: string[] = [];
    page.once("dialog", (dialog) => {
      messages.push(dialog.message());
      void dialog.dismiss();
    });
    await work.getByRole("link", { name: "删除", exact: true }).click();
    await expect.poll(() => messages).toEqual([`确定要删除《${title}》吗？删除后无法恢复。`]);
    await expect(page).toHaveURL(/\/my-works\?tab=free$/);
    await expect(work.getByRole("heading", { name: title })).toBeVisible();

    page.once("dialog", (dialog) => void dialog.accept());
    await work.getByRole("link", { name: "删除", exact: true }).click();
    await expect(work).toHaveCount(0);
    await expect(myWork(page, keep)).toBeVisible();
    await page.reload();
    await expect(myWork(page, keep)).toBeVisible();
    await expect(work).toHaveCount(0);
  });

  test("deletes a work after a confirm page without JavaScript", async ({ browser, baseURL, user, logInAs }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    await logInAs(context, user);
    const page = await context.newPage();
    const title = `删除 ${marker("delete")}`;
    await publish(page, baseURL!, { title, type: "series" });
    await page.goto("/my-works?tab=free");
    const work = myWork(page, title);

    await work.getByRole("link", { name: "删除", exact: true }).click();
    await expect(page).toHaveURL(/\/works\/\d+\/delete\?back=/);
    await expect(page.getByRole("heading", { name: "删除作品" })).toBeVisible();
    await expect(page.getByText(`确定要删除《${title}》吗？它的 1 个章节会一起删除，删除后无法恢复。`)).toBeVisible();
    await page.getByRole("link", { name: "取消" }).click();
    await expect(page).toHaveURL(/\/my-works\?tab=free/);
    await expect(work.getByRole("heading", { name: title })).toBeVisible();

    await work.getByRole("link", { name: "删除", exact: true }).click();
    await page.getByRole("button", { name: "确认删除" }).click();
    await expect(page).toHaveURL(/\/my-works\?tab=free/);
    await expect(page.getByText("暂无免费作品")).toBeVisible();
    await context.close();
  });

  test("an edit link on a single chapter, the chapter manager on the others; add chapter only on an ongoing series", nojs, async ({
    loggedInPage: page,
    visit,
    baseURL,
  }) => {
    const single = `单章 ${marker("single")}`;
    const multi = `多章 ${marker("multi")}`;
    const series = `连载 ${marker("series")}`;
    await publish(page, baseURL!, { title: single });
    await publish(page, baseURL!, { title: multi, type: "multi_chapter" });
    await publish(page, baseURL!, { title: series, type: "series" });
    await visit("/my-works?tab=free");
    await expect(myWork(page, single).getByRole("link", { name: "编辑" })).toHaveAttribute("href", /^\/works\/\d+\/edit$/);
    for (const title of [multi, series]) {
      await expect(myWork(page, title).getByRole("link", { name: "章节管理" })).toHaveAttribute("href", /^\/works\/\d+\/chapters$/);
    }
    await expect(myWork(page, single).getByRole("link", { name: "添加章节" })).toHaveCount(0);
    await expect(myWork(page, multi).getByRole("link", { name: "添加章节" })).toHaveCount(0);

    await myWork(page, series).getByRole("link", { name: "添加章节" }).click();
    await expect(page.getByRole("heading", { name: `为《${series}》添加章节` })).toBeVisible();
    await page.goBack();
    await myWork(page, single).getByRole("link", { name: "编辑" }).click();
    await expect(page.getByRole("heading", { name: `编辑《${single}》` })).toBeVisible();
  });

  test("lists 12 works a page, newest first or oldest first", async ({ loggedInPage: page, visit, baseURL }) => {
    const prefix = marker("page");
    const titles = Array.from({ length: 13 }, (_, i) => `${prefix} 第${String(i + 1).padStart(2, "0")}部`);
    for (const title of titles) await publish(page, baseURL!, { title, visibility: "private" });
    const headings = page.getByTestId("work-card").getByRole("heading");

    await visit("/my-works?tab=private");
    await expect(headings).toHaveText(titles.slice(1).reverse());
    const pages = page.getByRole("navigation", { name: "分页" });
    await expect(pages.getByText("1", { exact: true })).toHaveAttribute("aria-current", "page");
    await pages.getByRole("link", { name: "下一页" }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(headings).toHaveText([titles[0]]);
    await expect(pages.getByText("2", { exact: true })).toHaveAttribute("aria-current", "page");

    await page.getByRole("combobox", { name: "排序" }).selectOption("最早发布");
    await expect(page).toHaveURL(/sort=oldest/);
    await expect(headings).toHaveText(titles.slice(0, 12));
    await pages.getByRole("link", { name: "2", exact: true }).click();
    await expect(headings).toHaveText([titles[12]]);

    await page.getByRole("searchbox", { name: "在此分类中搜索" }).fill("第07部");
    await page.getByRole("button", { name: "搜索" }).click();
    await expect(headings).toHaveText([titles[6]]);
    await expect(pages).toHaveCount(0);
  });
});
