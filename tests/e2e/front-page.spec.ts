/**
 * The operator's front page (docs/product.md#front-page, decision 198), with and without
 * JavaScript: a 运营 makes a 编辑推荐 row of two works (one by its number, one found by its
 * title) and a 公告; a visitor sees both on the home page; a signed-in reader finds the 公告
 * in the inbox and marks it read; the 运营 removes a work from the rankings and it leaves
 * the home page's 新书 row while staying in the curated row.
 */
import { expect, test, textbox } from "./fixtures";
import { newAdminContext } from "./fixtures/new-admin";
import { marker, newAuthor, publishWork } from "./reader-helpers";

test("a 运营 curates the home page: a 编辑推荐 row and a 公告 reach visitors and the inbox; a work removed from rankings leaves 新书 @nojs", async ({
  loggedInPage: reader,
  visit,
  browser,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const text = marker("荐");
  const author = await newAuthor(playwright, baseURL!);
  const [first, second] = [`推荐甲 ${text}`, `推荐乙 ${text}`];
  const firstId = await publishWork(author, { title: first, chapters: [{ title: "第一章", paragraphs: ["第一段。"] }] });
  await publishWork(author, { title: second, chapters: [{ title: "第一章", paragraphs: ["第一段。"] }] });

  const ops = await (await newAdminContext(browser, baseURL!, { role: "operator", label: marker("front"), javaScriptEnabled })).context.newPage();
  const open = async (url: string) => visit(url, ops);

  // 编辑推荐: a new row, the first work by its number, the second found by its title.
  const rowName = `编辑推荐${text.slice(-4)}`;
  await open("/admin/front-page");
  await textbox(ops, "新推荐位名称").fill(rowName);
  await ops.getByRole("button", { name: "新建推荐位" }).click();
  await expect(ops.getByRole("heading", { level: 1, name: `推荐位：${rowName}` })).toBeVisible();
  await textbox(ops, "作品编号").fill(String(firstId));
  await ops.getByRole("button", { name: "添加", exact: true }).first().click();
  await expect(ops.getByTestId("curated-work-admin")).toHaveCount(1);
  // The same work again is refused, in words, and nothing changes.
  await textbox(ops, "作品编号").fill(String(firstId));
  await ops.getByRole("button", { name: "添加", exact: true }).first().click();
  await expect(ops.getByRole("alert")).toContainText("该作品已在这个推荐位中");
  await ops.getByRole("searchbox", { name: "按标题查找作品" }).fill(second);
  await ops.getByRole("button", { name: "查找" }).click();
  await ops.getByRole("button", { name: `添加《${second}》` }).click();
  await expect(ops.getByTestId("curated-work-admin")).toHaveCount(2);
  await expect(ops.getByTestId("curated-work-admin").nth(1)).toContainText(second);

  // 公告.
  const title = `维护公告 ${text}`;
  await open("/admin/announcements");
  await textbox(ops, "标题").first().fill(title);
  await textbox(ops, "内容").first().fill("今晚 23:00 停机维护一小时。");
  await ops.getByRole("button", { name: "发布" }).click();
  await expect(ops.getByTestId("announcement-admin").filter({ hasText: title })).toContainText("显示中");

  // A visitor's home page: the 公告 and the row with both works, in order.
  const visitorContext = await browser.newContext({ baseURL, javaScriptEnabled });
  const visitor = await visitorContext.newPage();
  const row = visitor.getByRole("region", { name: rowName });
  // The visitors' page cache drops on the change's event, from another connection: reload until it has.
  await expect(async () => {
    await visit("/", visitor);
    await expect(row).toBeVisible({ timeout: 1_000 });
  }).toPass();
  await expect(visitor.getByTestId("announcements")).toContainText(title);
  await expect(row.getByTestId("work-card")).toHaveText([new RegExp(first), new RegExp(second)]);
  await visitorContext.close();

  // A signed-in reader: the 公告 at the top of the inbox, unread until marked read.
  await visit("/notifications", reader);
  const notice = reader.getByTestId("announcement").filter({ hasText: title });
  await expect(notice).toContainText("未读");
  await notice.getByRole("button", { name: `将公告“${title}”标为已读` }).click();
  await expect(reader.getByText("已标为已读")).toBeVisible();
  await expect(notice).not.toContainText("未读");

  // Rankings: the first work is in the home page's 新书 row; removed from the rankings, it
  // leaves 新书 but stays in the curated row.
  await visit("/", reader);
  const inNewest = reader.getByTestId("newest").getByTestId("work-card").filter({ hasText: first });
  await expect(inNewest).toHaveCount(1);
  await open(`/admin/rankings?work=${firstId}`);
  await textbox(ops, "原因").fill("刷榜嫌疑");
  await ops.getByRole("button", { name: "移出排行" }).click();
  await expect(ops.getByTestId("ranking-removal").filter({ hasText: first })).toContainText("刷榜嫌疑");
  await visit("/", reader);
  await expect(inNewest).toHaveCount(0);
  await expect(reader.getByRole("region", { name: rowName }).getByTestId("work-card").filter({ hasText: first })).toHaveCount(1);
  await ops.context().close();
});
