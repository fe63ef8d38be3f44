import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "./fixtures";
import { marker } from "./reader-helpers";

const nojs = { tag: "@nojs" };

const STEPS = ["状态与类型", "作品信息", "可见范围", "封面", "正文"] as const;
type Step = (typeof STEPS)[number];

/** A 西游记 excerpt in GB18030 with CRLF line ends, as a Chinese Windows editor saves it. */
const XIYOUJI = path.resolve("tests/fixtures/corpus/xiyouji-excerpt.gb18030.crlf.txt");
const XIYOUJI_CHAPTERS = [
  ["第一回　灵根育孕源流出　心性修持大道生", "6,913 字"],
  ["第二回　悟彻菩提真妙理　断魔归本合元神", "7,037 字"],
  ["第三回　四海千山皆拱伏　九幽十类尽除名", "530 字"],
] as const;

/** The fieldset of one step: every step is a fieldset named by its legend. */
function section(page: Page, step: Step) {
  return page.getByRole("group", { name: `${STEPS.indexOf(step) + 1}. ${step}` });
}

/**
 * With JavaScript, opens a step from the step list; without it the wizard is one long
 * form with every section visible, so there is nothing to open.
 */
async function openStep(page: Page, step: Step, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) return;
  await stepButton(page, step).click();
  await expect(section(page, step)).toBeVisible();
}

async function fillInfo(page: Page, title: string, description: string) {
  await page.getByLabel(/^作品标题/).fill(title);
  await page.getByLabel(/^作品简介/).fill(description);
}

/** A step in the step list (JavaScript only): its number, then its name. */
function stepButton(page: Page, step: Step) {
  return page.getByRole("button", { name: new RegExp(`^${STEPS.indexOf(step) + 1}\\s*${step}$`) });
}

function publishButton(page: Page) {
  return page.getByRole("button", { name: "发布作品" });
}

/** The work's card on /my-works. */
function card(page: Page, title: string) {
  return page.getByTestId("work-card").filter({ has: page.getByRole("heading", { name: title }) });
}

async function expectLandedOn(page: Page, tab: "paid" | "free" | "private", label: string) {
  await expect(page).toHaveURL(new RegExp(`/my-works\\?tab=${tab}$`));
  await expect(page.getByRole("navigation", { name: "作品分类" }).getByRole("link", { name: label })).toHaveAttribute(
    "aria-current",
    "page",
  );
}

test.describe("/submit", () => {
  test("five steps with free back and forth; publishes a single-chapter work to 未公开", async ({
    loggedInPage: page,
    visit,
  }) => {
    const title = `单章 ${marker("steps")}`;
    await visit("/submit");
    await expect(page.getByRole("heading", { name: "上传作品" })).toBeVisible();
    for (const step of STEPS) {
      await expect(stepButton(page, step)).toBeVisible();
    }
    // Step 1 opens with the defaults: completed, single chapter; no way back, no publish.
    await expect(section(page, "状态与类型")).toBeVisible();
    await expect(section(page, "作品信息")).toBeHidden();
    await expect(page.getByRole("radio", { name: "已完结" })).toBeChecked();
    await expect(page.getByRole("radio", { name: /^单章作品/ })).toBeChecked();
    await expect(page.getByRole("button", { name: "上一步" })).toHaveCount(0);
    await expect(publishButton(page)).toHaveCount(0);

    await page.getByRole("button", { name: "下一步" }).click();
    await expect(section(page, "作品信息")).toBeVisible();
    await expect(section(page, "状态与类型")).toBeHidden();
    await fillInfo(page, title, "一个人走过五个步骤的故事。");
    await page.getByRole("radio", { name: "R-18" }).check();
    await page.getByRole("checkbox", { name: "本作品使用了 AI 生成内容" }).check();

    // Back to step 1 and forward again: what was entered stays.
    await page.getByRole("button", { name: "上一步" }).click();
    await expect(section(page, "状态与类型")).toBeVisible();
    await page.getByRole("button", { name: "下一步" }).click();
    await expect(page.getByLabel(/^作品标题/)).toHaveValue(title);
    await expect(page.getByRole("radio", { name: "R-18" })).toBeChecked();

    await page.getByRole("button", { name: "下一步" }).click();
    await expect(section(page, "可见范围")).toBeVisible();
    await expect(page.getByRole("radio", { name: /^公开/ })).toBeChecked();
    await page.getByRole("radio", { name: /^不公开/ }).check();

    await page.getByRole("button", { name: "下一步" }).click();
    await expect(section(page, "封面")).toBeVisible();
    const cover = section(page, "封面");
    await expect(cover.getByText("默认封面", { exact: true })).toBeVisible();
    const png = await sharp({ create: { width: 200, height: 275, channels: 3, background: "#8a5a44" } }).png().toBuffer();
    await cover.getByLabel(/^上传封面/).setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: png });
    await expect(cover.getByRole("img", { name: "封面预览" })).toBeVisible();
    await cover.getByRole("button", { name: "移除封面，使用默认封面" }).click();
    await expect(cover.getByRole("img", { name: "封面预览" })).toHaveCount(0);
    await expect(cover.getByText("默认封面", { exact: true })).toBeVisible();
    await cover.getByLabel(/^上传封面/).setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: png });
    await expect(cover.getByRole("img", { name: "封面预览" })).toBeVisible();

    // Jump straight to the last step: only the single-chapter body is asked for.
    await stepButton(page, "正文").click();
    await expect(section(page, "正文")).toBeVisible();
    await expect(page.getByRole("button", { name: "下一步" })).toHaveCount(0);
    await expect(page.getByRole("textbox", { name: "章节标题", exact: true })).toBeHidden();
    await expect(page.getByLabel(/^TXT 文件/)).toBeHidden();
    await page.getByLabel(/^正文/).fill("天地玄黄，宇宙洪荒。\n日月盈昃，辰宿列张。");

    // Jump back to step 2 from the list, then publish from step 5.
    await stepButton(page, "作品信息").click();
    await expect(page.getByLabel(/^作品简介/)).toHaveValue("一个人走过五个步骤的故事。");
    await stepButton(page, "正文").click();
    await expect(page.getByLabel(/^正文/)).toHaveValue("天地玄黄，宇宙洪荒。\n日月盈昃，辰宿列张。");
    await publishButton(page).click();

    await expectLandedOn(page, "private", "未公开");
    const published = card(page, title);
    await expect(published).toContainText("20 字");
    await expect(published).toContainText("单章");
    await expect(published.getByText("R-18", { exact: true })).toBeVisible();
    await expect(published.getByText("AI", { exact: true })).toBeVisible();
    await expect(published.locator("img")).toHaveAttribute("src", /covers\//);
  });

  test("every refused publish opens the step with the error, the second in a row too", async ({ loggedInPage: page, visit }) => {
    await visit("/submit");
    await stepButton(page, "正文").click();
    await page.getByLabel(/^正文/).fill("正文在此。");
    await publishButton(page).click();
    await expect(section(page, "作品信息")).toBeVisible();
    await expect(section(page, "作品信息").getByText("请输入作品标题")).toBeVisible();

    // Back to the last step without fixing it, and publish again: the same refusal,
    // the same step again.
    await stepButton(page, "正文").click();
    await expect(section(page, "作品信息")).toBeHidden();
    await publishButton(page).click();
    await expect(section(page, "作品信息")).toBeVisible();
    await expect(section(page, "正文")).toBeHidden();
  });

  test("refuses an empty title, description and body, then publishes to 免费", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }) => {
    const title = `单章 ${marker("single")}`;
    await visit("/submit");
    await openStep(page, "正文", javaScriptEnabled);
    // Blanks get past the browser's own required check; the app's check refuses them.
    if (!javaScriptEnabled) await fillInfo(page, "   ", "  ");
    await publishButton(page).click();
    // With JavaScript the wizard opens the first step with an error.
    await expect(section(page, "作品信息")).toBeVisible();
    await expect(page.getByText("请输入作品标题", { exact: true })).toBeVisible();
    await expect(page.getByText("请输入作品简介", { exact: true })).toBeVisible();
    if (!javaScriptEnabled) await expect(page.getByText("请输入正文内容", { exact: true })).toBeVisible();

    await fillInfo(page, title, "测试校验的作品。");
    await openStep(page, "正文", javaScriptEnabled);
    await page.getByLabel(/^正文/).fill("   ");
    await publishButton(page).click();
    await expect(page.getByText("请输入正文内容", { exact: true })).toBeVisible();
    await expect(page.getByText("请输入作品标题", { exact: true })).toHaveCount(0);

    await page.getByLabel(/^正文/).fill("床前明月光，\n疑是地上霜。");
    await publishButton(page).click();
    await expectLandedOn(page, "free", "免费");
    const published = card(page, title);
    await expect(published).toContainText("12 字");
    await expect(published).toContainText("测试校验的作品。");
    await expect(published.getByText("R-18", { exact: true })).toHaveCount(0);
    await expect(published.getByText("AI", { exact: true })).toHaveCount(0);
  });

  test("ongoing means series; a series publishes its first chapter", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }) => {
    const title = `连载 ${marker("series")}`;
    const ongoing = page.getByRole("radio", { name: "连载中", exact: true });
    const completed = page.getByRole("radio", { name: "已完结" });
    const single = page.getByRole("radio", { name: /^单章作品/ });
    const multi = page.getByRole("radio", { name: /^多章节TXT/ });
    const series = page.getByRole("radio", { name: /^连载\s*连载中的作品/ });
    await visit("/submit");
    await expect(page.getByText("连载中的作品只能选择“连载”；已完结的作品可选单章或多章节。")).toBeVisible();

    if (javaScriptEnabled) {
      // The page keeps the choice consistent as it is made.
      await expect(series).toBeDisabled();
      await ongoing.check();
      await expect(series).toBeChecked();
      await expect(single).toBeDisabled();
      await expect(multi).toBeDisabled();
      await completed.check();
      await expect(single).toBeChecked();
      await expect(series).toBeDisabled();
      await ongoing.check();
      await expect(series).toBeChecked();
    } else {
      // Without JavaScript the server refuses an inconsistent pair.
      await fillInfo(page, title, "规则测试。");
      await ongoing.check();
      await single.check();
      await publishButton(page).click();
      await expect(page.getByText("连载中的作品只能选择连载类型", { exact: true })).toBeVisible();
      await completed.check();
      await series.check();
      await publishButton(page).click();
      await expect(page.getByText("已完结的作品请选择单章或多章节", { exact: true })).toBeVisible();
      await ongoing.check();
    }

    await openStep(page, "作品信息", javaScriptEnabled);
    await fillInfo(page, title, "一部慢慢写的连载。");
    await openStep(page, "正文", javaScriptEnabled);
    if (javaScriptEnabled) await expect(page.getByLabel(/^正文/)).toBeHidden();
    await page.getByRole("textbox", { name: "章节标题", exact: true }).fill("第一章 开端");
    await publishButton(page).click();
    await expect(page.getByText("请填写章节标题和内容", { exact: true })).toBeVisible();

    await page.getByLabel(/^章节内容/).fill("故事从一场雨开始。");
    await publishButton(page).click();
    await expectLandedOn(page, "free", "免费");
    const published = card(page, title);
    await expect(published).toContainText("9 字");
    await expect(published.getByText("连载中", { exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "添加章节" })).toBeVisible();
    await published.getByRole("link", { name: title }).click();
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    await expect(page.getByTestId("toc-list").getByRole("link", { name: "第一章 开端" })).toBeVisible();
  });

  test("imports a multi-chapter TXT: the parsed chapter list before publishing", nojs, async ({
    loggedInPage: page,
    visit,
    javaScriptEnabled,
  }) => {
    const title = `西游记 ${marker("txt")}`;
    const body = section(page, "正文");
    const parse = async () => {
      // With JavaScript choosing the file parses it; without, the author asks for it.
      if (!javaScriptEnabled) await body.getByRole("button", { name: "解析TXT" }).click();
    };
    await visit("/submit");
    await page.getByRole("radio", { name: /^多章节TXT/ }).check();
    await openStep(page, "作品信息", javaScriptEnabled);
    await fillInfo(page, title, "石猴出世，拜师学艺。");
    await openStep(page, "正文", javaScriptEnabled);
    if (javaScriptEnabled) await expect(page.getByLabel(/^正文/)).toBeHidden();
    await expect(body.getByLabel(/^章节分隔符/)).toHaveValue("####");

    // Publishing with no TXT parsed is refused.
    await publishButton(page).click();
    await expect(body.getByText("请上传并解析TXT文件", { exact: true })).toBeVisible();

    // The same text without its separator lines: nothing to split on.
    const withoutSeparators = fs
      .readFileSync(XIYOUJI.replace("gb18030.crlf", "utf8"), "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("####"))
      .slice(0, 20)
      .join("\n");
    await body.getByLabel(/^TXT 文件/).setInputFiles({
      name: "没有分隔符.txt",
      mimeType: "text/plain",
      buffer: Buffer.from(withoutSeparators, "utf8"),
    });
    await parse();
    await expect(body.getByText("未能从TXT文件中解析出任何章节，请检查章节分隔符", { exact: true })).toBeVisible();
    await expect(body.getByTestId("txt-preview")).toHaveCount(0);

    // An empty file is called empty; a Big5 file is refused with the encodings that work.
    await body.getByLabel(/^TXT 文件/).setInputFiles({ name: "空.txt", mimeType: "text/plain", buffer: Buffer.alloc(0) });
    await parse();
    await expect(body.getByText("TXT文件是空的", { exact: true })).toBeVisible();
    await expect(body.getByText("请选择TXT文件", { exact: true })).toHaveCount(0);
    await body.getByLabel(/^TXT 文件/).setInputFiles(XIYOUJI.replace("xiyouji-excerpt.gb18030.crlf", "xiyouji-traditional.big5"));
    await parse();
    await expect(body.getByText(/^无法识别文件的编码.*UTF-8、GBK\/GB18030 或带 BOM 的 UTF-16/)).toBeVisible();

    await body.getByLabel(/^TXT 文件/).setInputFiles(XIYOUJI);
    await parse();
    const preview = body.getByTestId("txt-preview");
    await expect(preview).toContainText("《xiyouji-excerpt.gb18030.crlf.txt》解析出 3 个章节，共 14,480 字");
    await expect(preview.getByRole("listitem")).toHaveText(XIYOUJI_CHAPTERS.map(([t, words]) => `${t}${words}`));
    await expect(body.getByText("未能从TXT文件中解析出任何章节", { exact: false })).toHaveCount(0);
    // The rest of the form is as the author left it.
    await openStep(page, "作品信息", javaScriptEnabled);
    await expect(page.getByLabel(/^作品标题/)).toHaveValue(title);
    await openStep(page, "正文", javaScriptEnabled);

    await publishButton(page).click();
    await expectLandedOn(page, "free", "免费");
    const published = card(page, title);
    await expect(published).toContainText("1.4 万字");
    await expect(published.getByText("多章节", { exact: true })).toBeVisible();
    await published.getByRole("link", { name: title }).click();
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    for (const [chapterTitle] of XIYOUJI_CHAPTERS) {
      await expect(page.getByTestId("toc-list").getByRole("link", { name: chapterTitle })).toBeVisible();
    }
  });

  test("leaving with typed text asks first; submitting does not", async ({ loggedInPage: page, visit }) => {
    await visit("/submit");
    await openStep(page, "作品信息", true);
    await page.getByLabel(/^作品标题/).fill("还没发布的作品");
    const messages: string[] = [];
    page.once("dialog", (d) => {
      messages.push(d.message());
      void d.dismiss();
    });
    await page.getByRole("link", { name: "我的作品" }).click();
    await expect.poll(() => messages).toEqual(["你有尚未保存的内容，确定要离开吗？"]);
    await expect(page).toHaveURL(/\/submit$/);
    await expect(page.getByLabel(/^作品标题/)).toHaveValue("还没发布的作品");
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("link", { name: "我的作品" }).click();
    await expect(page).toHaveURL(/\/my-works/);
  });
});
