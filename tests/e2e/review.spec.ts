/**
 * 先审后发 in a real browser, JavaScript on and off (docs/product.md#review, decision 196):
 * an author on the 先审名单 publishes a chapter → readers cannot see it and its followers
 * are not told → a 审核员 claims it and sends it back (退回修改) with a reason → the author
 * reads the reason beside the chapter, revises it and resubmits → the 审核员 approves →
 * the chapter is out and the follower is told. The e2e site releases at once (its seed
 * turns the count rule off so that the other specs' new authors publish in parallel), so
 * the 超级管理员 puts this author on the list, as an operator would a new author.
 */
import { expect, logIn, test, waitForHydration } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { newAdminContext } from "./fixtures/new-admin";
import { marker, newAuthor, publishWork } from "./reader-helpers";

test("a chapter waits for review, is sent back with a reason, revised and approved; only then readers and followers see it @nojs", async ({
  page,
  browser,
  baseURL,
  playwright,
  javaScriptEnabled,
  loggedInPage: reader,
  visit,
}) => {
  // Four parties in three browsers, the review round trip twice.
  test.slow();
  const go = async (target: typeof page, url: string) => {
    await target.goto(url);
    if (javaScriptEnabled) await waitForHydration(target);
  };
  const author = await newAuthor(playwright, baseURL!);
  const title = `先审 ${marker("review")}`;
  const chapterTitle = `第二章 ${marker("held")}`;
  const workId = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["开头。"] }] });

  // A reader follows the work.
  await visit(`/works/${workId}`, reader);
  await reader.getByRole("button", { name: "☆ 关注" }).click();
  await expect(reader.getByRole("button", { name: "★ 已关注" })).toBeVisible();

  // The 超级管理员 adds a 审核员 and puts the author on the 先审名单.
  const adminContext = await browser.newContext({ baseURL, javaScriptEnabled });
  const session = await adminSession(baseURL!);
  await adminContext.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, session)]);
  const admin = await adminContext.newPage();
  const reviewerEmail = `reviewer-${marker("r").toLowerCase()}@example.com`;
  await go(admin, "/admin/admins");
  const add = admin.locator("form", { has: admin.getByRole("button", { name: "添加" }) });
  await add.getByLabel("邮箱").fill(reviewerEmail);
  await add.getByLabel("角色").selectOption({ label: "审核员" });
  await add.getByLabel("初始密码").fill("reviewer-password-1");
  await add.getByRole("button", { name: "添加" }).click();
  await expect(admin.getByTestId("notice")).toHaveText("管理员已添加");
  await go(admin, `/admin/users?q=${encodeURIComponent(author.credentials.email)}`);
  await admin.getByRole("link", { name: "编辑" }).click();
  await admin.getByRole("button", { name: "加入先审名单" }).click();
  await expect(admin.getByTestId("user-review-required")).toContainText("在先审名单中");

  // The author publishes a chapter: it waits, 审核中 in the studio.
  const authorContext = await browser.newContext({ baseURL, javaScriptEnabled });
  await logIn(authorContext, baseURL!, author.credentials);
  const studio = await authorContext.newPage();
  await go(studio, `/works/${workId}/chapters/new`);
  await studio.getByLabel("章节标题").fill(chapterTitle);
  await studio.getByLabel("章节内容").fill("有错别字的正文。");
  await studio.getByLabel("立即发布").check();
  await studio.getByRole("button", { name: "保存" }).click();
  await expect(studio.getByText("章节已提交审核：审核通过后才会发布，定时发布也要等审核通过")).toBeVisible();
  const row = studio.locator(".chapter-row").filter({ hasText: chapterTitle });
  await expect(row.locator(".chapter-state")).toHaveText("审核中");

  // Readers cannot see it; the follower is not told.
  expect(await (await reader.request.get(`/works/${workId}/feed.xml`)).text()).not.toContain(chapterTitle);
  await go(reader, "/notifications");
  await expect(reader.getByTestId("inbox-line").filter({ hasText: title })).toHaveCount(0);

  // The 审核员 signs in (landing on the queue), claims the chapter and sends it back.
  const reviewerContext = await browser.newContext({ baseURL, javaScriptEnabled });
  const reviewer = await reviewerContext.newPage();
  await go(reviewer, "/xbbadmin");
  await reviewer.getByLabel("邮箱").fill(reviewerEmail);
  await reviewer.getByLabel("密码").fill("reviewer-password-1");
  await reviewer.getByRole("button", { name: "登录" }).click();
  await expect(reviewer).toHaveURL(/\/admin\/review$/);
  await expect(reviewer.getByLabel("管理菜单").getByText("用户管理")).toHaveCount(0);
  await reviewer.getByRole("link", { name: new RegExp(chapterTitle) }).click();
  await expect(reviewer.getByTestId("review-text")).toContainText("有错别字的正文。");
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已领取");
  // axe runs in the page: with JavaScript on (the accessibility spec's way).
  if (javaScriptEnabled) await expectNoSeriousViolations(reviewer, "/admin/review/:id, claimed");
  await reviewer.getByRole("button", { name: "退回修改" }).click();
  await expect(reviewer.getByText("退回修改或拒绝时请填写原因，作者会看到")).toBeVisible();
  await reviewer.getByLabel(/原因/).fill("第一句有错别字，请改正");
  await reviewer.getByRole("button", { name: "退回修改" }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已退回修改，作者会看到原因");

  // The author reads the reason beside the chapter, revises and resubmits.
  await go(studio, `/works/${workId}/chapters`);
  await expect(row.getByRole("note")).toHaveText("审核退回修改：第一句有错别字，请改正 申诉");
  await row.locator("a.chapter-title").click();
  await expect(studio.getByRole("note")).toHaveText("审核退回修改：第一句有错别字，请改正 申诉");
  if (javaScriptEnabled) await waitForHydration(studio);
  await studio.getByLabel("正文").fill("改好的正文。");
  await studio.getByLabel("立即发布").check();
  await studio.getByRole("button", { name: "保存" }).click();
  await expect(studio.getByText("章节已提交审核：审核通过后才会发布，定时发布也要等审核通过")).toBeVisible();
  await expect(row.locator(".chapter-state")).toHaveText("审核中");

  // The 审核员 approves the revised text.
  await go(reviewer, "/admin/review");
  await reviewer.getByRole("link", { name: new RegExp(chapterTitle) }).click();
  await expect(reviewer.getByTestId("review-text")).toContainText("改好的正文。");
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已领取");
  await reviewer.getByRole("button", { name: "通过" }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已通过，章节已发布");

  // Out: readers see it, the follower is told.
  await go(reader, `/works/${workId}?chapter=2`);
  await expect(reader.getByText("改好的正文。")).toBeVisible();
  expect(await (await reader.request.get(`/works/${workId}/feed.xml`)).text()).toContain(chapterTitle);
  await expect(async () => {
    await go(reader, "/notifications");
    await expect(reader.getByTestId("inbox-line").filter({ hasText: title })).toContainText(chapterTitle, { timeout: 500 });
  }).toPass();

  await Promise.all([adminContext.close(), authorContext.close(), reviewerContext.close()]);
});

test("a trusted author's chapter and work description with a 审核 word wait, and the 审核员 sees the word marked", async ({ browser, baseURL, playwright }) => {
  const origin = { Origin: new URL(baseURL!).origin };
  const word = `待审${marker("w")}`;
  // The 超级管理员 adds the word (level 审核) by the back office's own form.
  const session = await adminSession(baseURL!);
  const admin = await playwright.request.newContext({ baseURL, storageState: { cookies: [poolCookie(ADMIN_COOKIE, baseURL!, session)], origins: [] } });
  const posted = await admin.post("/admin/screening", { form: { intent: "add", word, category: "其他", level: "review" }, headers: origin, maxRedirects: 0 });
  expect(posted.status(), await posted.text()).toBe(302);
  await admin.dispose();

  // A trusted author (the e2e site releases at once) publishes a work whose second chapter holds the word.
  const author = await newAuthor(playwright, baseURL!);
  const title = `含词 ${marker("t")}`;
  const workId = await publishWork(author, {
    title,
    chapters: [
      { title: "第一章", paragraphs: ["干净的开头。"] },
      { title: "第二章", paragraphs: [`他说：${word}。`] },
    ],
  });
  const contents = await (await author.request.get(`/works/${workId}`)).text();
  expect(contents).toContain("第一章");
  expect((await author.request.get(`/works/${workId}?chapter=2`)).status()).toBe(404);

  const { context: reviewerContext } = await newAdminContext(browser, baseURL!, { role: "reviewer", label: marker("m") });
  const reviewer = await reviewerContext.newPage();
  await reviewer.goto("/admin/review");
  await reviewer.getByRole("row").filter({ hasText: title }).getByRole("link").first().click();
  const mark = reviewer.getByTestId("review-text").locator("mark.review-hit");
  await expect(mark).toHaveText(word);
  await expect(mark).toHaveAttribute("title", `审核：${word}`);
  await expect(reviewer.getByText("含待审词语")).toBeVisible();

  // The author puts the word in the work's description (decision 214): visitors keep the old
  // one until the 审核员 passes the 作品信息 item.
  const description = `新的简介说到${word}。`;
  const saved = await author.request.post(`/works/${workId}/settings`, {
    multipart: { title, description, rating: "all_ages", tags: "", cover: "keep" },
    headers: origin,
    maxRedirects: 0,
  });
  expect(saved.status(), await saved.text()).toBe(302);
  const visitor = await playwright.request.newContext({ baseURL });
  expect(await (await visitor.get(`/works/${workId}`)).text()).not.toContain(description);
  await reviewer.goto("/admin/review");
  await reviewer.getByRole("row").filter({ hasText: "作品信息" }).filter({ hasText: title }).getByRole("link").first().click();
  await expect(reviewer.getByTestId("review-text").locator("mark.review-hit")).toHaveText(word);
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByText("由你领取")).toBeVisible();
  await reviewer.getByRole("button", { name: "通过，读者看到这些信息", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已通过，读者现在看到该作品的这些信息");
  expect(await (await visitor.get(`/works/${workId}`)).text()).toContain(description);
  await Promise.all([visitor.dispose(), reviewerContext.close()]);
});

test("跟踪审读 samples a trusted author's chapter that went out; an author appeals a 退回修改 and the 总编辑 grants it", async ({ browser, baseURL, playwright }) => {
  test.slow();
  const origin = { Origin: new URL(baseURL!).origin };
  const sampled = `抽检${marker("s")}`;
  const held = `待审${marker("h")}`;
  // The 超级管理员 adds a 替换 word and a 审核 word by the back office's own form.
  const session = await adminSession(baseURL!);
  const admin = await playwright.request.newContext({ baseURL, storageState: { cookies: [poolCookie(ADMIN_COOKIE, baseURL!, session)], origins: [] } });
  for (const [word, level] of [[sampled, "replace"], [held, "review"]]) {
    const posted = await admin.post("/admin/screening", { form: { intent: "add", word, category: "其他", level }, headers: origin, maxRedirects: 0 });
    expect(posted.status(), await posted.text()).toBe(302);
  }
  await admin.dispose();

  // A trusted author's work: chapter 2 (a 替换 word) goes out and is drawn for 跟踪审读; chapter 3 (a 审核 word) waits.
  const author = await newAuthor(playwright, baseURL!);
  const title = `抽检申诉 ${marker("t")}`;
  const workId = await publishWork(author, {
    title,
    chapters: [
      { title: "第一章", paragraphs: ["干净的开头。"] },
      { title: "第二章 抽检", paragraphs: [`路边有${sampled}。`] },
      { title: "第三章 申诉", paragraphs: [`他说：${held}。`] },
    ],
  });
  expect((await author.request.get(`/works/${workId}?chapter=2`)).status()).toBe(200);
  expect((await author.request.get(`/works/${workId}?chapter=3`)).status()).toBe(404);

  // A 审核员 finds both in the queue, each with its kind.
  const { context: reviewerContext } = await newAdminContext(browser, baseURL!, { role: "reviewer", label: marker("rv") });
  const reviewer = await reviewerContext.newPage();
  await reviewer.goto("/admin/review");
  const rows = reviewer.getByTestId("review-row").filter({ hasText: title });
  await expect(rows.filter({ hasText: "第二章 抽检" })).toContainText("跟踪审读（含词库词语）");
  await rows.filter({ hasText: "第二章 抽检" }).getByRole("link").click();
  await expect(reviewer.getByRole("heading", { level: 1 })).toContainText("跟踪审读");
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已领取");
  await reviewer.getByLabel(/原因/).fill("路边的描写请改掉");
  await reviewer.getByRole("button", { name: "要求作者修改" }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已通知作者修改，章节仍对读者可见");
  expect((await author.request.get(`/works/${workId}?chapter=2`)).status()).toBe(200);

  // On the list, 领取下一篇 would take whatever is oldest: wait for this item's page first.
  await rows.filter({ hasText: "第三章 申诉" }).getByRole("link").click();
  await expect(reviewer.getByTestId("review-text")).toContainText(held);
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已领取");
  await reviewer.getByLabel(/原因/).fill("用词不妥");
  await reviewer.getByRole("button", { name: "退回修改" }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已退回修改，作者会看到原因");

  // The author reads both in the inbox, and appeals the 退回修改 from the editor.
  const authorContext = await browser.newContext({ baseURL, storageState: await author.request.storageState() });
  const studio = await authorContext.newPage();
  await studio.goto("/notifications");
  await expect(studio.getByTestId("inbox-line").filter({ hasText: "第二章 抽检" })).toContainText("审核通知：章节「第二章 抽检」在跟踪审读中发现问题，请尽快修改。原因：路边的描写请改掉");
  await expect(studio.getByTestId("inbox-line").filter({ hasText: "第三章 申诉" })).toContainText("被退回修改，请修改后重新发布。原因：用词不妥");
  await studio.goto(`/works/${workId}/chapters`);
  const row = studio.locator(".chapter-row").filter({ hasText: "第三章 申诉" });
  await row.getByRole("link", { name: "申诉", exact: true }).click();
  await studio.getByLabel(/申诉理由/).fill("这是人物的口头禅，并无不妥");
  await studio.getByRole("button", { name: "提交申诉" }).click();
  await expect(studio.getByText("申诉已提交，总编辑会尽快处理")).toBeVisible();
  await expect(studio.getByRole("note")).toContainText("（申诉处理中）");

  // The 审核员 cannot take it; the 总编辑 grants it and the chapter goes out.
  await reviewer.goto("/admin/review");
  await reviewer.getByTestId("review-row").filter({ hasText: title }).filter({ hasText: "申诉" }).getByRole("link").click();
  await expect(reviewer.getByText("申诉由总编辑处理。")).toBeVisible();
  await expect(reviewer.getByRole("button", { name: "领取", exact: true })).toHaveCount(0);
  const { context: chiefContext } = await newAdminContext(browser, baseURL!, { role: "chief_editor", label: marker("ce") });
  const chief = await chiefContext.newPage();
  await chief.goto(reviewer.url());
  await expect(chief.getByTestId("appeal-note")).toHaveText("这是人物的口头禅，并无不妥");
  await chief.getByRole("button", { name: "领取", exact: true }).click();
  await expect(chief.getByTestId("notice")).toHaveText("已领取");
  await chief.getByRole("button", { name: "申诉成立，发布" }).click();
  await expect(chief.getByTestId("notice")).toHaveText("已通过，章节已发布");
  expect((await author.request.get(`/works/${workId}?chapter=3`)).status()).toBe(200);
  await studio.goto("/notifications");
  await expect(studio.getByTestId("inbox-line").filter({ hasText: "（申诉成立）" })).toContainText("章节「第三章 申诉」已通过审核并发布");

  await Promise.all([reviewerContext.close(), authorContext.close(), chiefContext.close()]);
});

test("an author appeals a 退回修改 of their work's information from its settings; the 总编辑 refuses it @nojs", async ({ browser, baseURL, playwright, javaScriptEnabled }) => {
  const origin = { Origin: new URL(baseURL!).origin };
  const word = `待审${marker("aw")}`;
  const session = await adminSession(baseURL!);
  const admin = await playwright.request.newContext({ baseURL, storageState: { cookies: [poolCookie(ADMIN_COOKIE, baseURL!, session)], origins: [] } });
  const posted = await admin.post("/admin/screening", { form: { intent: "add", word, category: "其他", level: "review" }, headers: origin, maxRedirects: 0 });
  expect(posted.status(), await posted.text()).toBe(302);
  await admin.dispose();

  // A trusted author's new description holds a 审核 word: it waits (decision 214), and a 审核员 sends it back.
  const author = await newAuthor(playwright, baseURL!);
  const title = `作品申诉 ${marker("wa")}`;
  const workId = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["开头。"] }] });
  const saved = await author.request.post(`/works/${workId}/settings`, {
    multipart: { title, description: `简介说到${word}。`, rating: "all_ages", tags: "", cover: "keep" },
    headers: origin,
    maxRedirects: 0,
  });
  expect(saved.status(), await saved.text()).toBe(302);
  const { context: reviewerContext } = await newAdminContext(browser, baseURL!, { role: "reviewer", label: marker("wr"), javaScriptEnabled });
  const reviewer = await reviewerContext.newPage();
  await reviewer.goto("/admin/review");
  await reviewer.getByTestId("review-row").filter({ hasText: title }).filter({ hasText: "作品信息" }).getByRole("link").first().click();
  await reviewer.getByRole("button", { name: "领取", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已领取");
  await reviewer.getByLabel(/原因/).fill("简介用词不妥");
  await reviewer.getByRole("button", { name: "退回修改", exact: true }).click();
  await expect(reviewer.getByTestId("notice")).toHaveText("已退回作者修改，读者仍看不到这些信息");

  // The author reads the reason beside the work's settings and appeals it there, once.
  const authorContext = await browser.newContext({ baseURL, javaScriptEnabled, storageState: await author.request.storageState() });
  const studio = await authorContext.newPage();
  await studio.goto(`/works/${workId}/settings`);
  const note = studio.getByTestId("work-review-note");
  await expect(note).toContainText("作品信息被退回修改：简介用词不妥");
  if (javaScriptEnabled) await waitForHydration(studio);
  await note.getByRole("link", { name: "申诉", exact: true }).click();
  await studio.getByLabel(/申诉理由/).fill("这是书中地名，并无不妥");
  await studio.getByRole("button", { name: "提交申诉" }).click();
  await expect(studio.getByText("申诉已提交，总编辑会尽快处理")).toBeVisible();
  await expect(note).toContainText("（申诉处理中）");

  // The 总编辑 refuses it: the author sees the decision stand, with no second appeal.
  const { context: chiefContext } = await newAdminContext(browser, baseURL!, { role: "chief_editor", label: marker("wc"), javaScriptEnabled });
  const chief = await chiefContext.newPage();
  await chief.goto("/admin/review");
  await chief.getByTestId("review-row").filter({ hasText: title }).filter({ hasText: "申诉" }).getByRole("link").first().click();
  await expect(chief.getByTestId("appeal-note")).toHaveText("这是书中地名，并无不妥");
  await chief.getByRole("button", { name: "领取", exact: true }).click();
  await expect(chief.getByTestId("notice")).toHaveText("已领取");
  await chief.getByLabel(/原因/).fill("地名也请换一个写法");
  await chief.getByRole("button", { name: "驳回申诉", exact: true }).click();
  await expect(chief.getByTestId("notice")).toHaveText("已驳回申诉，维持原审核结果");
  await studio.goto(`/works/${workId}/settings`);
  await expect(note).toContainText("作品信息的申诉已驳回：地名也请换一个写法");
  await expect(note.getByRole("link", { name: "申诉", exact: true })).toHaveCount(0);

  await Promise.all([reviewerContext.close(), authorContext.close(), chiefContext.close()]);
});
