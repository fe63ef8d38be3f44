import { expect, freshUser, signedInRequest, test } from "./fixtures";
import { ADMIN_COOKIE, adminSession, poolCookie } from "./fixtures/account-pool";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker, sameOrigin } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/**
 * 书评区 (issue 32 part 4, decision 211): a reader writes a review with a rating, the author
 * marks it 精华 and replies, and the work page shows the average once enough readers rated;
 * a reader reports another's review and an operator hides it from 书评举报.
 * The other four ratings are posted by API clients of pool accounts (no browser, no scrypt).
 */

const nojs = { tag: "@nojs" };

test.describe("书评区", () => {
  test("a reader reviews with a rating; the author marks 精华 and replies; the work shows its average from 5 ratings; a reported review is hidden from 书评举报", nojs, async ({
    loggedInPage: author,
    visit,
    baseURL,
    browser,
    playwright,
    logInAs,
    javaScriptEnabled,
  }) => {
    const title = `书评 ${marker("review")}`;
    const id = await publishWork(author, baseURL!, { title });

    // The reader: the work page has too few ratings for an average, and the way to the 书评区.
    const context = await browser.newContext({ baseURL, javaScriptEnabled });
    const reader = await context.newPage();
    await logInAs(context, await freshUser(playwright, baseURL!));
    await visit(`/works/${id}`, reader);
    await expect(reader.getByTestId("rating-summary")).toContainText("评分人数不足");
    await reader.getByRole("link", { name: "书评区" }).click();
    await expect(reader.getByRole("heading", { level: 1, name: "书评区" })).toBeVisible();
    const write = reader.getByRole("form", { name: "写书评" });
    await write.getByLabel("评分").selectOption("9");
    await write.getByLabel("书评内容").fill("节奏明快，人物鲜活，期待后续的发展。");
    await write.getByRole("button", { name: "发表书评" }).click();
    await expect(reader.getByTestId("review-notice")).toHaveText("书评已发表。");
    await expect(reader.getByTestId("my-review")).toContainText("9 分");

    // The author: 设为精华, then a reply.
    await visit(`/works/${id}/reviews`, author);
    const review = author.getByTestId("review-list").getByTestId("book-review").first();
    await expect(review).toContainText("节奏明快");
    await review.getByRole("button", { name: "设为精华" }).click();
    await expect(review.locator(".badge-featured")).toHaveText("精华");
    await review.getByText("回复", { exact: true }).click();
    await review.getByRole("textbox", { name: "回复内容" }).fill("谢谢你的喜欢，下一卷更精彩！");
    await review.getByRole("button", { name: "发表回复" }).click();
    await expect(author.getByTestId("review-notice")).toHaveText("回复已保存。");
    await expect(review.getByTestId("author-reply")).toContainText("谢谢你的喜欢");

    // Four more readers rate 7: five ratings, (9 + 4 × 7) / 5 = 7.4.
    for (let i = 0; i < 4; i++) {
      const { request } = await signedInRequest(playwright, baseURL!);
      const answer = await request.post(`/works/${id}/reviews`, {
        form: { intent: "post", rating: "7", body: `第${i + 1}位读者：故事好看，文笔流畅。` },
        headers: sameOrigin(baseURL!),
        maxRedirects: 0,
      });
      expect(answer.status()).toBe(302);
      await request.dispose();
    }
    await visit(`/works/${id}`, reader);
    await expect(reader.getByTestId("rating-summary")).toContainText("评分 7.4");
    await expect(reader.getByTestId("rating-summary")).toContainText("5 人评分");
    await visit(`/works/${id}/reviews`, reader);
    await expect(reader.getByTestId("my-review").getByTestId("author-reply")).toContainText("下一卷更精彩");
    if (javaScriptEnabled) {
      await expectNoSeriousViolations(reader, "the 书评区, a reader's view");
      await visit(`/works/${id}/reviews`, author);
      await expectNoSeriousViolations(author, "the 书评区, the author's view");
    }

    // The reader reports another reader's review; an operator hides it in 书评举报, and the
    // average goes back to too few ratings.
    const reported = reader.getByTestId("book-review").filter({ hasText: "第1位读者" });
    await reported.getByText("举报", { exact: true }).click();
    await reported.getByLabel("举报理由").fill("与作品无关的广告");
    await reported.getByRole("button", { name: "提交举报" }).click();
    await expect(reader.getByTestId("review-notice")).toHaveText("举报已收到，我们会尽快处理。");
    const office = await browser.newContext({ baseURL, javaScriptEnabled });
    await office.addCookies([poolCookie(ADMIN_COOKIE, baseURL!, await adminSession(baseURL!))]);
    const operator = await office.newPage();
    await visit("/admin/book-review-reports", operator);
    // Other tests' reports share the queue: this work's card only.
    const ours = () => operator.getByTestId("reported-review").filter({ hasText: title }).filter({ hasText: "第1位读者" });
    const card = ours();
    await expect(card).toContainText("与作品无关的广告");
    await expect(card).toContainText("评分 7/10");
    if (javaScriptEnabled) await expectNoSeriousViolations(operator, "书评举报 with a reported review");
    await card.getByRole("button", { name: "隐藏" }).click();
    await expect(operator.getByTestId("notice")).toHaveText("书评已隐藏");
    await expect(ours()).toHaveCount(0);
    await visit(`/works/${id}`, reader);
    await expect(reader.getByTestId("rating-summary")).toContainText("评分人数不足");
    await office.close();
    await context.close();
  });
});
