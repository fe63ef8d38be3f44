import { expect, test } from "./fixtures";
import { expectNoSeriousViolations } from "./fixtures/axe";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/**
 * The author's voice: 作者的话 (issue 32, decision 202) and a 请假条 (decision 203); the 文风
 * sample and the 套话 sent with 连载续写 (issue 33 part 2, decision 257), and the continuity
 * page's AI 审读 (decision 258).
 */

const nojs = { tag: "@nojs" };

test.describe("the author's voice", () => {
  test("an author writes 作者的话 and a 请假条; a reader sees the note under the chapter and the notice in its 目录 group", nojs, async ({
    loggedInPage: page,
    visit,
    baseURL,
    browser,
    javaScriptEnabled,
  }) => {
    const title = `作者的话 ${marker("voice")}`;
    const id = await publishWork(page, baseURL!, { title });
    const manager = await (await page.request.get(`/works/${id}/chapters`)).text();
    const chapterId = Number(new RegExp(`href="/works/${id}/chapters/(\\d+)"`).exec(manager)?.[1]);
    expect(chapterId, "the first chapter's editor link").toBeGreaterThan(0);

    // 作者的话 beside the text in the editor, saved with 保存.
    await visit(`/works/${id}/chapters/${chapterId}`);
    await page.getByLabel("作者的话").fill("感谢各位读者的支持，明天加更！");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("章节已保存")).toBeVisible();

    // A 请假条 from the new-chapter form.
    await visit(`/works/${id}/chapters/new`);
    await page.getByRole("radio", { name: "请假条" }).check();
    await page.getByLabel("章节标题").fill("今天请假一天");
    await page.getByLabel("章节内容").fill("家里有事，明天补更两章。");
    await page.getByRole("button", { name: "保存" }).click();
    await expect(page.getByText("章节已发布")).toBeVisible();
    await expect(page.locator(".badge-notice", { hasText: "请假条" })).toBeVisible();

    // A visitor: the 目录 counts one chapter and lists the 请假条 in its own group.
    const visitor = await browser.newContext({ baseURL, javaScriptEnabled });
    const reader = await visitor.newPage();
    await visit(`/works/${id}`, reader);
    await expect(reader.getByRole("heading", { name: /目录/ })).toContainText("共 1 章");
    const leave = reader.getByTestId("toc-notices-leave");
    await expect(leave.getByRole("heading", { name: "请假条" })).toBeVisible();
    await leave.getByRole("link", { name: "今天请假一天" }).click();
    await expect(reader.getByRole("heading", { level: 1, name: "今天请假一天" })).toBeVisible();
    await expect(reader.getByTestId("chapter-text")).toHaveText("家里有事，明天补更两章。");

    // The chapter itself, with 作者的话 in its own box under the text.
    await visit(`/works/${id}?chapter=1`, reader);
    const note = reader.getByTestId("author-note");
    await expect(note.getByRole("heading", { name: "作者的话" })).toBeVisible();
    await expect(note).toContainText("感谢各位读者的支持，明天加更！");
    await expect(reader.getByTestId("chapter-text")).not.toContainText("感谢各位读者");
    // 下一章 does not lead into the 请假条.
    await expect(reader.getByText("已是最后一章")).toBeVisible();
    await visitor.close();
  });

  test("an author adds a 文风 passage and their own 套话, sees both in 本次上下文, and an unreadable AI 审读 is refunded", nojs, async ({ loggedInPage: page, visit, baseURL, javaScriptEnabled }) => {
    const id = await publishWork(page, baseURL!, { title: `文风 ${marker("voice")}` });

    await visit(`/works/${id}/bible?tab=voice`);
    await page.getByLabel("样本文字").fill("老周的烟袋锅子一明一灭，像夜里不肯睡的萤火。");
    await page.getByRole("button", { name: "加入文风样本" }).click();
    await expect(page.getByText("已加入文风样本")).toBeVisible();
    await expect(page.getByTestId("voice-passages")).toContainText("老周的烟袋锅子一明一灭");
    await expect(page.getByTestId("default-cliches")).toContainText("深吸一口气");

    // A duplicate is refused with the phrase named; then the list is saved.
    await page.getByLabel("自己的套话").fill("心头一颤\n心头一颤");
    await page.getByRole("button", { name: "保存套话" }).click();
    await expect(page.getByText("套话「心头一颤」重复了")).toBeVisible();
    await page.getByLabel("自己的套话").fill("心头一颤");
    await page.getByRole("button", { name: "保存套话" }).click();
    await expect(page.getByText("套话已保存：自定义 1 条")).toBeVisible();
    if (javaScriptEnabled) await expectNoSeriousViolations(page, "the story bible's 文风 tab");

    // 本次上下文 shows the sample with its cost, and the 套话.
    await visit(`/works/${id}/context`);
    const voice = page.getByTestId("context-voice");
    await expect(voice).toContainText("文风样本：发送 1 / 1 段");
    await expect(voice).toContainText("心头一颤");
    await expect(page.getByTestId("context-user")).toContainText("老周的烟袋锅子一明一灭");
    if (javaScriptEnabled) await expectNoSeriousViolations(page, "本次上下文 with a 文风 sample");

    // The test provider answers a story, not the JSON P11 asks for: said plainly, refunded.
    await visit(`/works/${id}/continuity`);
    await page.getByLabel("审读第几章").fill("1");
    await page.getByRole("button", { name: "请AI审读" }).click();
    await expect(page.getByText("AI返回的内容不是约定的格式，无法识别，已退还本次Tokens")).toBeVisible();
  });
});
