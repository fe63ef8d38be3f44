import { expect, test } from "./fixtures";
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
