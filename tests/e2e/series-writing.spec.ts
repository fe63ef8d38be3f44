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
  // The 套话 counted beside the result (decision 257): the test provider's story has none.
  await expect(page.getByTestId("cliche-count")).toHaveText("本次结果未含套话");

  await body.fill(`${generated}\n作者补上的结尾。`);
  await expect(page.getByRole("textbox", { name: "章节标题" })).toHaveValue("第2章");
  await page.getByRole("button", { name: "存为草稿" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已存为存稿章节" })).toBeVisible();
  await page.getByRole("link", { name: "打开章节" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters/\\d+$`));
  await expect(page.locator("textarea[name=content]")).toHaveValue(/作者补上的结尾。$/);
});

test("预计消耗 follows the plan as it is typed; the sidebar names the chapter without a summary", async ({ loggedInPage: page, visit, baseURL }) => {
  const title = `估算 ${marker("serial")}`;
  const id = await publishWork(page, baseURL!, { title });
  await visit(`/series-writing?work=${id}`);
  await expect(page.getByTestId("missing-summaries")).toContainText("第1章没有摘要：第1章的结尾已作为“上一章结尾”发送。");
  await expect(page.getByTestId("missing-summaries").getByRole("button", { name: "让AI补写这些摘要" })).toBeVisible();
  const estimate = page.getByTestId("estimate-tokens");
  const before = Number((await estimate.textContent())!.replace(/,/g, ""));
  // 400 characters of plan: about 100 more tokens by the estimate, at once, without a reload.
  await page.getByRole("textbox", { name: "本章计划" }).fill("主角离开小镇。".repeat(57) + "走");
  const shown = async () => Number((await estimate.textContent())!.replace(/,/g, ""));
  await expect.poll(shown).toBeGreaterThanOrEqual(before + 99);
  const typed = await shown();
  expect(typed).toBeLessThanOrEqual(before + 100);
  // The server's figure for that plan (本次上下文, the preview) is the same.
  await page.getByRole("button", { name: "按当前计划预览" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/context\\?`));
  await expect(page.getByTestId("estimate-tokens")).toHaveText(typed.toLocaleString("en"));
});

test("without JavaScript 按当前计划预览 shows the estimate for the typed plan", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  const title = `预览 ${marker("serial")}`;
  const id = await publishWork(page, baseURL!, { title });
  await visit(`/series-writing?work=${id}`);
  await page.getByRole("textbox", { name: "本章计划" }).fill("林晚去码头。");
  await page.getByRole("button", { name: "按当前计划预览" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/context\\?`));
  await expect(page.getByTestId("context-user")).toContainText("林晚去码头。");
  // 第9章 of a 1-chapter work is refused in Chinese.
  await visit(`/works/${id}/context?chapter=9`);
  await expect(page.getByRole("alert")).toHaveText("续写的章节序号应在 1 到 2 之间");
});
