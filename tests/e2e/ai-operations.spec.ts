import type { Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { listenToConsole } from "./fixtures/site-pages";
import { expect, test, textbox } from "./fixtures";
import { publishWork } from "./studio-helpers";

/**
 * The editor's operations on a selection and 存为章节 (decision 130) in the browser, against
 * the test provider. The rules (metering per candidate, one charge per request, bad input)
 * are tested in tests/integration/ai-operations.test.ts.
 */
const OWN = "山中无甲子，寒尽不知年。老人每日清晨上山砍柴，傍晚挑着柴下山。\n村口的孩子们总围着他，听他讲山里的故事。\n那一年冬天来得特别早，第一场雪落下时，他没有下山。";
const PART = "村口的孩子们总围着他，听他讲山里的故事。";

/** A free-writing project with one character and one plot whose text is OWN, saved: returns the editor. */
async function plotWithText(page: Page, visit: (path: string) => Promise<unknown>) {
  await visit("/free-writing");
  await page.getByRole("button", { name: "开始自由创作" }).click();
  await expect(page).toHaveURL(/\?project=[0-9a-f-]{36}$/);
  await page.getByRole("link", { name: "添加角色" }).click();
  const character = page.getByRole("form", { name: "添加角色" });
  await textbox(character, "姓名").fill("老人");
  await textbox(character, "性格").fill("沉默");
  await textbox(character, "外貌").fill("驼背");
  await character.getByRole("button", { name: "保存角色" }).click();
  await expect(page.getByRole("list", { name: "角色列表" }).getByText("老人", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: "添加情节" }).click();
  const plot = page.getByRole("form", { name: "添加情节" });
  await textbox(plot, "标题").fill("山中");
  await textbox(plot, "概要").fill("老人没有下山。");
  await textbox(plot, "环境").fill("冬天的山村");
  await plot.getByRole("checkbox", { name: "老人" }).check();
  await plot.getByRole("button", { name: "保存情节" }).click();
  await page.getByRole("link", { name: "山中", exact: true }).click();
  const editor = page.getByRole("region", { name: "正文：山中" });
  await textbox(editor, "情节正文").fill(OWN);
  await editor.getByRole("button", { name: "保存正文" }).click();
  await expect(textbox(editor, "情节正文")).toHaveValue(OWN);
  return editor;
}

test("select a sentence, 润色 with 2 candidates, see the differences, accept one: a new version", async ({ loggedInPage: page, visit }) => {
  test.slow();
  const editor = await plotWithText(page, visit);
  const text = textbox(editor, "情节正文");
  // Select the sentence as a user would: focus, then a selection range in the text.
  await text.evaluate((el: HTMLTextAreaElement, part) => {
    el.focus();
    const start = el.value.indexOf(part);
    el.setSelectionRange(start, start + part.length);
  }, PART);
  await editor.getByRole("combobox", { name: "操作" }).selectOption({ label: "润色" });
  await editor.getByRole("combobox", { name: "候选数" }).selectOption("2");
  await editor.getByRole("button", { name: "生成候选" }).click();

  const candidates = page.getByRole("region", { name: "润色候选" });
  await expect(candidates.getByRole("button", { name: "采用候选2" })).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/[?&]op=[0-9a-f-]{36}/);
  const first = candidates.getByRole("article", { name: "候选1" });
  // Differences against the selection: insertions and deletions, named for screen readers.
  await expect(first.locator(".diff-text ins").first()).toBeVisible();
  await expect(first.locator(".diff-text del").first()).toContainText("［删去：");
  await expect(first.getByText(/新增 \d+ 字，删去 \d+ 字/)).toBeVisible();
  await expect(first.getByRole("link", { name: "明细" })).toHaveAttribute("href", /^\/credits\/receipts\/\d+$/);
  const receipt = await first.getByRole("link", { name: "明细" }).getAttribute("href");
  await expectNoSeriousViolations(page, "/free-writing with operation candidates");

  const candidate = (await first.locator(".diff-text").evaluate((el) => {
    const clone = el.cloneNode(true) as HTMLElement;
    clone.querySelectorAll("del, .sr-only").forEach((n) => n.remove());
    return clone.textContent ?? "";
  })).trim();
  await first.getByRole("button", { name: "采用候选1" }).click();
  await expect(text).toHaveValue(OWN.replace(PART, candidate));
  await expect(page.getByRole("region", { name: "版本记录" }).getByRole("cell", { name: /^AI润色 · / })).toBeVisible();

  // The candidate's receipt: the one page the accessibility test leaves to this one (it
  // takes a generation; tests/e2e/fixtures/site-pages.ts), checked the same way.
  const heard = listenToConsole(page);
  await visit(receipt!);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSeriousViolations(page, receipt!, ["heading-order", "region"]);
  expect(heard.stop(), `console of ${receipt}`).toEqual([]);
});

test("without JavaScript: 润色 a paragraph by number, accept, then 存为章节 as a 存稿 chapter", { tag: "@nojs" }, async ({ loggedInPage: page, visit, baseURL }) => {
  test.slow();
  const workId = await publishWork(page, baseURL!, { title: `存章连载${Date.now().toString(36)}` });
  const editor = await plotWithText(page, visit);
  await editor.getByRole("combobox", { name: "操作" }).selectOption({ label: "润色" });
  await editor.getByRole("spinbutton", { name: "段落编号" }).fill("9");
  await editor.getByRole("button", { name: "生成候选" }).click();
  await expect(editor.getByRole("alert")).toHaveText("请输入1到3之间的段落编号（留空为全文）");

  await editor.getByRole("spinbutton", { name: "段落编号" }).fill("2");
  await editor.getByRole("button", { name: "生成候选" }).click();
  const candidates = page.getByRole("region", { name: "润色候选" });
  await expect(candidates.getByRole("button", { name: "采用候选1" })).toBeVisible({ timeout: 20_000 });
  await expect(candidates.locator(".diff-text ins").first()).toBeVisible();
  await candidates.getByRole("button", { name: "采用候选1" }).click();
  await expect(page.getByRole("region", { name: "版本记录" }).getByRole("cell", { name: /^AI润色 · / })).toBeVisible();
  // With JavaScript the editor takes the accepted text from the revalidated data a moment
  // after the version list shows it: wait for it rather than read it once.
  const body = textbox(page.getByRole("region", { name: "正文：山中" }), "情节正文");
  await expect(body).not.toHaveValue(new RegExp(PART)); // PART has no pattern characters
  await expect(body).not.toHaveValue("");

  const panel = page.getByRole("region", { name: "存为章节" });
  await panel.getByRole("button", { name: "存为章节" }).click();
  await expect(panel.getByText("请选择作品")).toHaveCount(2); // the empty option and the message
  await panel.getByRole("combobox", { name: "作品（新章节）" }).selectOption(String(workId));
  await textbox(panel, "章节标题（新章节，留空则用情节标题）").fill("第二章 下山");
  await panel.getByRole("button", { name: "存为章节" }).click();
  await expect(panel.getByRole("status")).toContainText("已存为存稿章节");
  const link = panel.getByRole("link", { name: "打开章节" });
  await expect(link).toHaveAttribute("href", new RegExp(`^/works/${workId}/chapters/\\d+$`));
  await link.click();
  await expect(page.getByRole("textbox", { name: "章节标题" })).toHaveValue("第二章 下山");
});
