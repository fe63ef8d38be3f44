/**
 * The 敏感词库 page in a real browser, with JavaScript and without (@nojs): an operator adds
 * a word and imports a TXT (docs/product.md#screening); a reader's comment holding the
 * imported word, spaced and in traditional characters, is refused with the word named.
 */
import type { BrowserContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { marker, newAuthor, publishWork } from "./reader-helpers";

process.env.ADMIN_EMAIL ??= "e2e-admin@example.com";
process.env.ADMIN_PASSWORD ??= "e2e-admin-password";

/** An administrator's session: one the seed made while there are any, else the login form's post. */
async function adminLogIn(context: BrowserContext, baseURL: string) {
  await context.addCookies([poolCookie(ADMIN_COOKIE, baseURL, await adminSession(baseURL))]);
}

test("an operator adds a word and imports a TXT; a comment with the imported word is refused", { tag: "@nojs" }, async ({
  browser,
  baseURL,
  javaScriptEnabled,
  loggedInPage: page,
  visit,
  playwright,
}) => {
  const tag = marker("w");
  const admin = await browser.newContext({ baseURL, javaScriptEnabled });
  await adminLogIn(admin, baseURL!);
  const office = await admin.newPage();
  await office.goto("/admin/screening");
  await expect(office.getByRole("heading", { name: "敏感词库" })).toBeVisible();

  const addForm = office.locator("form", { has: office.getByRole("button", { name: "添加", exact: true }) });
  await addForm.getByRole("textbox", { name: "词语" }).fill(`添加词${tag}`);
  await addForm.getByRole("combobox", { name: "级别" }).selectOption("替换");
  await addForm.getByRole("button", { name: "添加", exact: true }).click();
  await expect(office.getByText("词语已添加")).toBeVisible();
  await expect(office.getByTestId("screening-word").filter({ hasText: `添加词${tag}` })).toContainText("替换");

  const importForm = office.locator("form", { has: office.getByRole("button", { name: "导入", exact: true }) });
  await importForm.getByLabel("词库文件").setInputFiles({
    name: "words.txt",
    mimeType: "text/plain",
    buffer: Buffer.from(`# 测试词库\n导入词${tag}\t广告\t禁止\n`, "utf8"),
  });
  await importForm.getByRole("button", { name: "导入", exact: true }).click();
  await expect(office.getByText("已导入：新增1个词语，更新0个词语")).toBeVisible();
  await expect(office.getByTestId("screening-word").filter({ hasText: `导入词${tag}` })).toContainText("禁止");

  // A GBK file is refused whole, naming the problem.
  await importForm.getByLabel("词库文件").setInputFiles({ name: "gbk.txt", mimeType: "text/plain", buffer: Buffer.from([0xb7, 0xa8, 0xc2, 0xd6, 0x0a]) });
  await importForm.getByRole("button", { name: "导入", exact: true }).click();
  await expect(office.getByText("文件不是UTF-8编码（可能是GBK），请另存为UTF-8后再导入")).toBeVisible();
  await admin.close();

  const author = await newAuthor(playwright, baseURL!);
  const id = await publishWork(author, { title: `词库 ${tag}`, chapters: [{ title: "第一章", paragraphs: [`${tag}唯一的一段。`] }] });
  await visit(`/works/${id}/comments?chapter=1`);
  await page.getByRole("textbox", { name: "评论内容" }).fill(`我要说：導 入 詞 ${tag.toUpperCase()}`);
  await page.getByRole("button", { name: "发表" }).click();
  await expect(page.getByText(`评论含有禁止使用的词语：「导入词${tag}」，请修改后再提交`)).toBeVisible();
  await expect(page.getByTestId("comment")).toHaveCount(0);
});
