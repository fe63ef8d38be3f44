import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/**
 * 连载续写 (issue 19 part 1): plan -> 生成下一章 -> edit -> 存为草稿, against the test AI
 * provider. With JavaScript the text streams into the textarea; without it (@nojs) the
 * form runs the generation to completion and the page shows the text by its key.
 */
const nojs = { tag: "@nojs" };

test("an author continues their serial: plan, 生成下一章, edit, 存为草稿", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  test.slow();
  const title = `续写 ${marker("serial")}`;
  const id = await publishWork(page, baseURL!, { title });
  await visit("/series-writing");
  await page.getByRole("combobox", { name: "连载作品" }).selectOption({ label: title });
  await page.getByRole("button", { name: "打开" }).click();
  await expect(page).toHaveURL(new RegExp(`/series-writing\\?work=${id}`));
  await expect(page.getByText(`《${title}》已发布 1 章`)).toBeVisible();
  await expect(page.getByRole("heading", { name: "第2章正文" })).toBeVisible();
  await expect(page.getByRole("link", { name: "查看本次上下文" })).toHaveAttribute("href", `/works/${id}/context?chapter=2`);

  await page.getByRole("textbox", { name: "本章计划" }).fill("主角离开小镇。");
  await page.getByRole("button", { name: "生成下一章" }).click();
  const body = page.getByRole("textbox", { name: "正文（可以修改后再保存）" });
  await expect(page.getByRole("status").filter({ hasText: "扣除" })).toBeVisible({ timeout: 15_000 });
  await expect(body).not.toHaveValue("");
  const generated = await body.inputValue();

  await body.fill(`${generated}\n作者补上的结尾。`);
  await expect(page.getByRole("textbox", { name: "章节标题" })).toHaveValue("第2章");
  await page.getByRole("button", { name: "存为草稿" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已存为存稿章节" })).toBeVisible();
  await page.getByRole("link", { name: "打开章节" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters/\\d+$`));
  await expect(page.locator("textarea[name=content]")).toHaveValue(/作者补上的结尾。$/);
});
