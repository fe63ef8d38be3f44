import type { Page } from "@playwright/test";
import { expect, test, textbox } from "./fixtures";

/**
 * Exact metering and AI labels in the browser (docs/product.md D15): a generation's
 * receipt in the token history, and the AI生成 badge a work gets once its author
 * publishes text generated here. The rules themselves are tested in
 * tests/integration/ai-metering.test.ts and ai-labels.test.ts.
 */
/** A free-writing project with one character and one plot, its plot open: returns the editor. */
async function readyPlot(page: Page, visit: (path: string) => Promise<unknown>) {
  await visit("/free-writing");
  await page.getByRole("button", { name: "开始自由创作" }).click();
  await expect(page).toHaveURL(/\?project=[0-9a-f-]{36}$/);
  const theme = page.getByRole("region", { name: /整体设定/ });
  await theme.getByRole("textbox").fill("民国时期的江南小镇。");
  await theme.getByRole("button", { name: "保存设定" }).click();
  await expect(theme.getByRole("textbox")).toHaveValue("民国时期的江南小镇。");
  await page.getByRole("link", { name: "添加角色" }).click();
  const character = page.getByRole("form", { name: "添加角色" });
  await textbox(character, "姓名").fill("林晚");
  await textbox(character, "性格").fill("倔强");
  await textbox(character, "外貌").fill("清瘦");
  await character.getByRole("button", { name: "保存角色" }).click();
  // Saved before the plot form opens, or the form has no 林晚 to tick.
  await expect(page.getByRole("list", { name: "角色列表" }).getByText("林晚", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: "添加情节" }).click();
  const plot = page.getByRole("form", { name: "添加情节" });
  await textbox(plot, "标题").fill("雨夜来信");
  await textbox(plot, "概要").fill("林晚收到一封信。");
  await textbox(plot, "环境").fill("梅雨季");
  await plot.getByRole("spinbutton", { name: "预计字数" }).fill("400");
  await plot.getByRole("checkbox", { name: "林晚" }).check();
  await plot.getByRole("button", { name: "保存情节" }).click();
  await page.getByRole("link", { name: "雨夜来信", exact: true }).click();
  return page.getByRole("region", { name: "正文：雨夜来信" });
}

test("a generation's receipt in the token history, then its text published carries the AI生成 badge", async ({ loggedInPage: page, visit, baseURL }) => {
  test.slow();
  const editor = await readyPlot(page, visit);
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  const charge = editor.getByTestId("charge");
  await expect(charge).toContainText("实际用量", { timeout: 20_000 });
  const shown = /本次消耗 (\d+) Tokens（实际用量：输入 (\d+) \+ 输出 (\d+)）/.exec((await charge.textContent()) ?? "")!;
  const generated = await editor.getByRole("textbox", { name: "情节正文" }).inputValue();

  // The token history tags the row 实际 and links its receipt.
  await visit("/credits?tab=tokens");
  const row = page.getByTestId("token-history").getByRole("row").filter({ hasText: "AI生成：雨夜来信" });
  await expect(row.getByText("实际", { exact: true })).toBeVisible();
  await row.getByRole("link", { name: "回执" }).click();
  await expect(page.getByRole("heading", { name: "生成回执" })).toBeVisible();
  const receipt = page.getByTestId("receipt");
  await expect(receipt.getByTestId("receipt-metering")).toHaveText("实际用量（服务商报告）");
  await expect(receipt.getByTestId("receipt-input")).toHaveText(shown[2]);
  await expect(receipt.getByTestId("receipt-output")).toHaveText(shown[3]);
  await expect(receipt.getByTestId("receipt-charged")).toHaveText(`${shown[1]} Tokens`);
  await expect(receipt).toContainText("inkstone-fake");

  // Publishing that text: the work and its chapter are labelled AI生成 for readers.
  const title = `AI标签${Date.now().toString(36)}`;
  const origin = new URL(baseURL!).origin;
  const posted = await page.request.post("/submit", {
    form: { status: "completed", type: "single_chapter", title, description: "由 AI 生成的短篇", rating: "all_ages", visibility: "public", content: generated },
    headers: { Origin: origin, Referer: `${origin}/submit` },
    maxRedirects: 0,
  });
  expect(posted.status()).toBe(302);
  await visit(`/works?${new URLSearchParams({ q: title, ai: "generated" })}`);
  const card = page.getByTestId("work-card").filter({ hasText: title });
  await expect(card.getByText("AI生成", { exact: true })).toBeVisible();
  await card.getByRole("link", { name: title }).click();
  await expect(page.getByRole("banner").or(page.locator(".reader-header")).getByText("AI生成", { exact: true }).first()).toBeVisible();
  await visit(`/works?${new URLSearchParams({ q: title, ai: "none" })}`);
  await expect(page.getByText("未找到相关作品")).toBeVisible();
});

test("a refunded generation's receipt does not read as a deduction", async ({ loggedInPage: page, visit }) => {
  test.slow();
  const editor = await readyPlot(page, visit);
  // The test provider answers 500 to a prompt carrying this mark: every attempt fails, all is refunded.
  const theme = page.getByRole("region", { name: /整体设定/ });
  await theme.getByRole("textbox").fill("〔fake:status:500〕民国时期的江南小镇。");
  await theme.getByRole("button", { name: "保存设定" }).click();
  await expect(theme.getByRole("textbox")).toHaveValue("〔fake:status:500〕民国时期的江南小镇。");
  await editor.getByRole("button", { name: "生成", exact: true }).click();
  await expect(page.getByText("API服务器错误")).toBeVisible({ timeout: 20_000 });

  await visit("/credits?tab=tokens");
  const row = page.getByTestId("token-history").getByRole("row").filter({ hasText: "AI生成：雨夜来信" });
  await row.getByRole("link", { name: "回执" }).click();
  const receipt = page.getByTestId("receipt");
  await expect(receipt.getByTestId("receipt-status")).toContainText("已全部退还");
  await expect(receipt.getByTestId("receipt-charged")).toHaveText("0 Tokens");
  await expect(receipt.getByRole("term").filter({ hasText: "实际扣除" })).toBeVisible();
  await expect(receipt).not.toContainText("本次扣除");
});
