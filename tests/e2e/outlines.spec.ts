import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";
import { publishWork } from "./studio-helpers";

/**
 * 大纲 (issue 33 part 1, decisions 255-256): the author writes a 总纲 and a 卷纲, has the AI
 * (the test provider) draft the 卷's 细纲 in batches in the background, edits a beat, and
 * writes the chapter from its 细纲 in 连载续写, which shows the beats covered and the 字 per
 * beat. With JavaScript and without (@nojs): every form is a plain post.
 */
const nojs = { tag: "@nojs" };

test("the author drafts 细纲 for a volume with AI, edits a beat, writes the chapter from it and sees the beats covered", nojs, async ({ loggedInPage: page, visit, baseURL }) => {
  test.slow();
  const title = `大纲 ${marker("outline")}`;
  const id = await publishWork(page, baseURL!, { title });
  await visit(`/works/${id}/chapters`);
  await page.getByRole("navigation", { name: "作品管理" }).getByRole("link", { name: "大纲" }).click();
  await expect(page).toHaveURL(new RegExp(`/works/${id}/outline$`));

  await page.getByRole("form", { name: "总纲" }).getByRole("textbox").fill("林晚寻找写信的人，最后与沈舟重建小镇。");
  await page.getByRole("button", { name: "保存总纲" }).click();
  await expect(page.getByRole("status").filter({ hasText: "总纲已保存" })).toBeVisible();

  // A 卷 of chapters 2-4; a span that ends before it starts is refused first.
  const create = page.getByRole("form", { name: "新建卷纲" });
  await create.getByLabel("卷名").fill("第一卷 雨夜");
  await create.getByLabel("从第几章").fill("4");
  await create.getByLabel("到第几章").fill("2");
  await create.getByRole("button", { name: "新建卷纲" }).click();
  await expect(page.getByRole("alert")).toHaveText("章节范围应为 1 到 100000 之间的整数，且起始章不大于结束章");
  await page.getByRole("form", { name: "新建卷纲" }).getByLabel("从第几章").fill("2");
  await page.getByRole("form", { name: "新建卷纲" }).getByLabel("到第几章").fill("4");
  await page.getByRole("form", { name: "新建卷纲" }).getByLabel("卷纲（这一卷的主线、转折和结尾）").fill("雨夜来信，河岸重逢。");
  await page.getByRole("form", { name: "新建卷纲" }).getByRole("button", { name: "新建卷纲" }).click();
  await expect(page.getByRole("status").filter({ hasText: "卷纲已保存" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "「第一卷 雨夜」细纲（第2–4章）" })).toBeVisible();

  // 让AI起草细纲, two chapters a batch: the background job drafts all three.
  await page.getByLabel("每批章数（1–10）").fill("2");
  await page.getByRole("button", { name: "让AI起草细纲" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已开始生成细纲" })).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("outline-job")).toHaveText("AI已起草完这一卷的细纲。", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  const beats = page.getByRole("textbox", { name: "第2章细纲" });
  await expect(beats).toHaveValue("第2章开场：林晚收到一封没有署名的信 | 400\n第2章中段：她在河边等到深夜 | 600\n第2章结尾：巷口的人影开口 | 500");
  await expect(page.getByRole("textbox", { name: "第4章细纲" })).toHaveValue(/^第4章开场/);

  // Editing a beat: a budget out of range is refused with the text kept, then the edit is saved.
  await beats.fill("第2章开场：林晚收到一封没有署名的信 | 400\n她在河边等到天亮 | 10\n第2章结尾：巷口的人影开口 | 500");
  await page.locator("#chapter-2").getByRole("button", { name: "保存细纲" }).click();
  await expect(page.getByRole("alert")).toHaveText("第 2 个节拍的字数应为 50 到 5000 之间的整数");
  await expect(page.getByRole("textbox", { name: "第2章细纲" })).toHaveValue(/她在河边等到天亮 \| 10/);
  await page.getByRole("textbox", { name: "第2章细纲" }).fill("第2章开场：林晚收到一封没有署名的信 | 400\n她在河边等到天亮 | 300\n第2章结尾：巷口的人影开口 | 500");
  await page.locator("#chapter-2").getByRole("button", { name: "保存细纲" }).click();
  await expect(page.getByRole("status").filter({ hasText: "第2章细纲已保存" })).toBeVisible();
  await expect(page.locator("#chapter-2")).toContainText("（3 个节拍，约 1200 字，第 2 版）");

  // 连载续写 from the 细纲: the beats are the plan; the text covers each, counted per beat.
  await page.getByRole("link", { name: "按细纲续写第2章" }).click();
  await expect(page).toHaveURL(new RegExp(`/series-writing\\?work=${id}&chapter=2$`));
  await expect(page.getByRole("textbox", { name: "本章计划" })).toHaveValue(/【节拍2】（约300字）她在河边等到天亮/);
  await page.getByRole("button", { name: "生成下一章" }).click();
  await expect(page.getByRole("status").filter({ hasText: "扣除" })).toBeVisible({ timeout: 15_000 });
  const coverage = page.getByTestId("beat-coverage");
  await expect(coverage.getByRole("heading")).toHaveText("细纲节拍：已写到 3 / 3 个");
  // The test provider writes a tenth of each budget under its marker.
  await expect(coverage.getByRole("row")).toHaveText([/节拍计划字数实际字数状态/, /^1\. .*40040已写到$/, /^2\. 她在河边等到天亮30030已写到$/, /^3\. .*50050已写到$/]);
  await page.getByRole("button", { name: "存为草稿" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已存为存稿章节" })).toBeVisible();
  await page.getByRole("link", { name: "打开章节" }).click();
  await expect(page.locator("textarea[name=content]")).not.toHaveValue(/【节拍/);
});
