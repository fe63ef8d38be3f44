import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

const nojs = { tag: "@nojs" };

/** The page is no wider than a 390 px phone. */
async function fitsPhone(page: import("@playwright/test").Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("on a phone, the author keeps a story bible, a thread and a summary, and sees them in 本次上下文", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const title = `设定集 ${marker("bible")}`;
  const id = await publishWork(page, baseURL!, { title });
  await visit(`/works/${id}/chapters`);
  await page.getByRole("link", { name: "故事设定" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/bible$`));
  await fitsPhone(page);

  // A character with aliases; another taking one of them is refused by name.
  await page.getByLabel("名称", { exact: true }).fill("周伯");
  await page.getByLabel("别名（用逗号或顿号分隔）").fill("老周，周老汉");
  await page.getByRole("button", { name: "添加设定" }).click();
  await expect(page.getByRole("status")).toHaveText("设定已添加");
  // The only entity (the second is refused below); in edit mode its card shows a form.
  const card = page.locator(".bible-list > li").first();
  await expect(card.getByText("别名：老周、周老汉")).toBeVisible();

  await page.getByText("添加角色、地点、物品或势力").click();
  await page.getByLabel("名称", { exact: true }).fill("沈舟");
  await page.getByLabel("别名（用逗号或顿号分隔）").fill("老周");
  await page.getByRole("button", { name: "添加设定" }).click();
  await expect(page.getByRole("alert")).toHaveText("名称或别名「老周」已被「周伯」使用");
  await expect(page.locator(".bible-list > li")).toHaveCount(1);

  // A fact whose range ends before it starts, then one from chapter 1 on.
  await card.getByLabel("事实", { exact: true }).fill("双目失明");
  await card.getByLabel("从第几章起").fill("5");
  await card.getByLabel("到第几章止").fill("2");
  await card.getByRole("button", { name: "添加事实" }).click();
  await expect(page.getByRole("alert")).toHaveText("结束章节不能早于起始章节");
  await card.getByLabel("事实", { exact: true }).fill("双目失明");
  await card.getByLabel("从第几章起").fill("1");
  await card.getByLabel("到第几章止").fill("");
  await card.getByRole("button", { name: "添加事实" }).click();
  await expect(page.getByRole("status")).toHaveText("事实已添加");
  await expect(card.getByText("从第1章起")).toBeVisible();
  await fitsPhone(page);

  // Editing the fact and the entity: each opens its form in place.
  await card.getByRole("link", { name: "编辑事实：双目失明" }).click();
  await card.locator(".bible-facts").getByLabel("事实", { exact: true }).fill("右眼失明");
  await card.locator(".bible-facts").getByRole("button", { name: "保存事实" }).click();
  await expect(page.getByRole("status")).toHaveText("事实已保存");
  await expect(card.getByText("右眼失明")).toBeVisible();
  await card.getByRole("link", { name: "编辑设定：周伯" }).click();
  await card.getByLabel("简介", { exact: true }).fill("老更夫");
  // 续写时: 总是带上 (a plain radio button, no script needed).
  await card.getByRole("radio", { name: "总是带上" }).check();
  await card.getByRole("button", { name: "保存设定" }).click();
  await expect(page.getByRole("status")).toHaveText("设定已保存");
  await expect(card.getByText("老更夫")).toBeVisible();
  await expect(card.getByTestId("entity-prompt-mode")).toHaveText("总是带上");

  // A thread due by chapter 1, which is published: overdue here and in the chapter manager.
  await page.getByRole("link", { name: "伏笔" }).click();
  await page.getByLabel("伏笔", { exact: true }).fill("三年之约");
  await page.getByLabel("埋下于第几章").fill("1");
  await page.getByLabel("最迟第几章回收").fill("1");
  await page.getByRole("button", { name: "添加伏笔" }).click();
  await expect(page.getByRole("status")).toHaveText("伏笔已添加");
  await expect(page.locator(".bible-list > li").filter({ hasText: "三年之约" }).getByText("已逾期")).toBeVisible();
  await fitsPhone(page);
  await visit(`/works/${id}/chapters`);
  await expect(page.getByText("有 1 条伏笔已逾期未回收")).toBeVisible();
  await expect(page.getByText("「三年之约」应在第1章前回收")).toBeVisible();

  // The first chapter's summary.
  await visit(`/works/${id}/bible?tab=summaries`);
  await expect(page.getByText("AI摘要：未开启")).toBeVisible();
  const summary = page.locator(".bible-summary").filter({ hasText: "第一章 开端" });
  await summary.getByRole("textbox").fill("周伯在雨夜失明。");
  await summary.getByRole("button", { name: "保存摘要" }).click();
  await expect(page.getByRole("status")).toHaveText("章节摘要已保存");
  await expect(page.locator(".bible-summary").filter({ hasText: "第一章 开端" }).getByRole("textbox")).toHaveValue("周伯在雨夜失明。");
  await fitsPhone(page);

  // 本次上下文 for chapter 2: the plan names 老周, so his fact in force is sent.
  await page.getByRole("link", { name: "本次上下文 →" }).click();
  await expect(page.getByLabel("续写第几章")).toHaveValue("2");
  await page.getByLabel("本章计划").fill("老周摸黑出门。");
  await page.getByRole("button", { name: "查看本次上下文" }).click();
  // The page before it already shows 周伯 (总是带上): wait for this plan's page, or the next
  // plan could be typed into a box that this answer then replaces.
  await expect(page).toHaveURL(new RegExp(`plan=${encodeURIComponent("老周摸黑出门。")}`));
  const user = page.getByTestId("context-user");
  await expect(user).toContainText("续写第2章");
  await expect(user).toContainText("【周伯】角色（又称：老周、周老汉）：老更夫");
  await expect(user).toContainText("- 从第1章起：右眼失明");
  await expect(user).toContainText("三年之约（第1章埋下，应在第1章前回收，已逾期）");
  await expect(user).toContainText("第1章：周伯在雨夜失明。");
  await expect(page.getByTestId("context-estimate")).toContainText(/预计消耗约 [\d,]+ Tokens/);
  await fitsPhone(page);
  // Marked 总是带上, he is sent when the plan does not name him too, and listed as sent.
  await page.getByLabel("本章计划").fill("雨停了。");
  await page.getByRole("button", { name: "查看本次上下文" }).click();
  await expect(page).toHaveURL(new RegExp(`plan=${encodeURIComponent("雨停了。")}`));
  await expect(page.getByTestId("context-user")).toContainText("【周伯】角色（又称：老周、周老汉）：老更夫");
  await expect(page.getByTestId("context-entities")).toContainText("周伯（角色，总是带上）：从第1章起：右眼失明");
});

/** Opens the adding form (open by itself while the list is empty). */
async function openAdding(page: import("@playwright/test").Page) {
  const adding = page.locator("details.bible-add");
  if (!(await adding.evaluate((d) => (d as HTMLDetailsElement).open))) await adding.locator("summary").click();
}

test("each adding form posts again after a post: a second entity, fact and thread are each added once (one-time tokens, decision 077)", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  const id = await publishWork(page, baseURL!, { title: `连加设定 ${marker("bible")}` });
  await visit(`/works/${id}/bible`);
  for (const name of ["甲角色", "乙角色"]) {
    await openAdding(page);
    await page.getByLabel("名称", { exact: true }).fill(name);
    await page.getByRole("button", { name: "添加设定" }).click();
    await expect(page.getByRole("status")).toHaveText("设定已添加");
  }
  await expect(page.locator(".bible-list > li")).toHaveCount(2);
  const card = page.locator(".bible-list > li").filter({ hasText: "甲角色" });
  for (const fact of ["左手有疤", "怕水"]) {
    await card.getByLabel("事实", { exact: true }).fill(fact);
    await card.getByRole("button", { name: "添加事实" }).click();
    await expect(page.getByRole("status")).toHaveText("事实已添加");
    await expect(card.locator(".bible-facts")).toContainText(fact);
  }
  await expect(card.locator(".bible-facts > li")).toHaveCount(2);

  await page.getByRole("link", { name: "伏笔" }).click();
  await expect(page.getByText("还没有伏笔。")).toBeVisible();
  for (const thread of ["玉佩的来历", "城门的钥匙"]) {
    await openAdding(page);
    await page.getByLabel("伏笔", { exact: true }).fill(thread);
    await page.getByLabel("埋下于第几章").fill("1");
    await page.getByRole("button", { name: "添加伏笔" }).click();
    await expect(page.getByRole("status")).toHaveText("伏笔已添加");
  }
  await expect(page.locator(".bible-list > li")).toHaveCount(2);
});

test("on a phone, the author marks a character dead, publishes a chapter where he speaks, sees the finding with both quotes and waives it", nojs, async ({ loggedInPage: page, visit, baseURL, javaScriptEnabled }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const id = await publishWork(page, baseURL!, { title: `连续性 ${marker("continuity")}` });
  await visit(`/works/${id}/bible`);
  await page.getByLabel("名称", { exact: true }).fill("周伯");
  await page.getByLabel("别名（用逗号或顿号分隔）").fill("老周");
  await page.getByRole("button", { name: "添加设定" }).click();
  await expect(page.getByRole("status")).toHaveText("设定已添加");

  // His ledger: dead from chapter 1 on.
  const ledger = page.getByRole("region", { name: "周伯的状态记录" });
  await ledger.getByText("记录状态变化").click();
  await ledger.getByRole("combobox", { name: "状态" }).selectOption({ label: "生死" });
  await ledger.getByLabel("发生在第几章").fill("1");
  await ledger.getByLabel(/^内容/).fill("死亡");
  await ledger.getByRole("button", { name: "记录" }).click();
  await expect(page.getByRole("status")).toHaveText("状态已记录");
  await expect(page.getByRole("region", { name: "周伯的状态记录" }).getByText("生死：死亡")).toBeVisible();
  await fitsPhone(page);

  // Chapter 2, published at once, has him speak (by his alias).
  const origin = new URL(baseURL!).origin;
  const posted = await page.request.post(`/works/${id}/chapters/new`, {
    form: { title: "第二章 夜归", content: "夜深了。\n老周说：“我回来了。”", release: "now" },
    headers: { Origin: origin },
    maxRedirects: 0,
  });
  expect(posted.status(), await posted.text()).toBe(302);
  const chapterId = /chapter=(\d+)/.exec(posted.headers().location ?? "")?.[1];
  expect(chapterId).toBeTruthy();

  // The editor shows the sentence and the fact with its chapter, linked to the bible.
  await visit(`/works/${id}/chapters/${chapterId}`);
  const panel = page.locator("#continuity");
  await expect(panel.getByRole("heading", { name: "连续性检查（1 处待处理）" })).toBeVisible();
  const finding = panel.getByTestId("continuity-finding");
  await expect(finding).toContainText("周伯已在第1章死亡，本章却有言行");
  await expect(finding).toContainText("「老周说：“我回来了。”」");
  await expect(finding.getByRole("link", { name: "生死：死亡" })).toHaveAttribute("href", new RegExp(`/works/${id}/bible\\?entity=\\d+#e-\\d+`));
  await expect(finding.getByText("第1章", { exact: true })).toBeVisible();
  await fitsPhone(page);
  // axe runs as a script in the page: with JavaScript on only.
  if (javaScriptEnabled) await expectNoSeriousViolations(page, "the chapter editor with a continuity finding");

  // 有意安排 with a note: back in the editor, shown as waived, and on the work's list.
  await finding.getByLabel("说明（可选）").fill("托梦");
  await finding.getByRole("button", { name: "标为有意安排" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已标为有意安排" })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/chapters/${chapterId}#continuity$`));
  await expect(page.locator("#continuity").getByText("已标为有意安排：托梦")).toBeVisible();
  await expect(page.locator("#continuity").getByRole("heading", { name: "连续性检查", exact: true })).toBeVisible();
  await visit(`/works/${id}/continuity?show=waived`);
  await expect(page.getByRole("link", { name: "有意安排 1" })).toBeVisible();
  await expect(page.getByRole("link", { name: "第2章《第二章 夜归》" })).toBeVisible();
  await fitsPhone(page);
});
