import { expect, test } from "./fixtures";
import { chapterParagraphs, marker, newAuthor, numberedParagraphs, publishWork } from "./reader-helpers";

const nojs = { tag: "@nojs" };

test("reads a chapter with dark mode, remembered across a reload and applied before any script runs", async ({
  page,
  visit,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("dark");
  const title = `夜读 ${text}`;
  const id = await publishWork(author, {
    title,
    chapters: [
      { title: "第一章 启程", paragraphs: numberedParagraphs(20, text) },
      { title: "第二章 归来", paragraphs: [`归来 ${text}`] },
    ],
  });

  // A visitor's chapter is the page a CDN may keep; a signed-in reader's view is theirs and
  // records progress when opened: kept nowhere (decision 263).
  const chapterResponse = await page.request.get(`/works/${id}?chapter=1`);
  expect(chapterResponse.headers()["cache-control"]).toBe("public, max-age=0, s-maxage=30, stale-while-revalidate=60");
  expect((await author.request.get(`/works/${id}?chapter=1`)).headers()["cache-control"]).toBe("private, no-store");

  await visit(`/works/${id}`);
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.getByText(`作者：`)).toBeVisible();
  const toc = page.getByTestId("toc-list");
  await expect(toc.getByRole("link")).toHaveText(["第一章 启程", "第二章 归来"]);
  // The 100-character preview of each chapter.
  await expect(toc.locator(".toc-preview").first()).toHaveText(/^dark\w{8}第1段。.*…$/);
  expect(Array.from((await toc.locator(".toc-preview").first().textContent())!).length).toBe(101);

  await page.getByRole("link", { name: "开始阅读" }).click();
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
  await expect(page.getByRole("heading", { name: "第一章 启程" })).toBeVisible();
  await expect(chapterParagraphs(page)).toHaveCount(20); // the empty lines are dropped
  await expect(chapterParagraphs(page).first()).toHaveText(`${text}第1段。`);

  // The switch applies at once and saves the visitor's choice in a cookie (decision 106).
  let saved = page.waitForResponse((response) => response.url().endsWith("/reader-settings") && response.ok());
  await page.getByRole("button", { name: "☾ 夜间模式" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await saved;
  expect((await page.context().cookies()).map((cookie) => cookie.name)).toContain("inkstone_reader");

  // Reload with the app's JavaScript held back: the page is dark before any of it runs.
  await page.route(/\/assets\/.+\.js$/, (route) => route.abort());
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe("rgb(28, 27, 25)");
  await page.unroute(/\/assets\/.+\.js$/);

  await visit(`/works/${id}?chapter=1`);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  saved = page.waitForResponse((response) => response.url().endsWith("/reader-settings") && response.ok());
  await page.getByRole("button", { name: "☀ 日间模式" }).click();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", "dark");
  await saved;
  expect(await (await page.request.get(`/works/${id}?chapter=1`)).text()).not.toContain('data-theme="dark"');

  // Previous / next chapter.
  await page.getByRole("navigation", { name: "章节导航" }).getByRole("link", { name: "下一章" }).click();
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByTestId("chapter-text")).toHaveText(`归来 ${text}`);
  await expect(page.getByText("已是最后一章")).toBeVisible();
  await page.getByRole("link", { name: "上一章" }).click();
  await expect(page).toHaveURL(`/works/${id}?chapter=1`);
});

test("a long chapter arrives 50 paragraphs at a time", nojs, async ({ page, visit, javaScriptEnabled, playwright, baseURL, request }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("long");
  const id = await publishWork(author, {
    title: `长篇 ${text}`,
    chapters: [{ title: "第一章", paragraphs: numberedParagraphs(130, text) }],
  });

  // The server sends only the first 50 paragraphs.
  const html = await (await request.get(`/works/${id}?chapter=1`)).text();
  expect(html).toContain(`${text}第50段。`);
  expect(html).not.toContain(`${text}第51段。`);

  await visit(`/works/${id}?chapter=1`);
  await expect(chapterParagraphs(page)).toHaveCount(50);
  if (javaScriptEnabled) {
    // More arrive as the end of the text nears the bottom of the window.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(chapterParagraphs(page)).toHaveCount(100);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(chapterParagraphs(page)).toHaveCount(130);
    await expect(chapterParagraphs(page).last()).toHaveText(`${text}第130段。`);
    await expect(page.getByText("继续下滑加载更多")).toHaveCount(0);
  } else {
    await page.getByRole("link", { name: "继续阅读下面的内容" }).click();
    await expect(page).toHaveURL(`/works/${id}?chapter=1&from=50`);
    await expect(chapterParagraphs(page)).toHaveCount(50);
    await expect(chapterParagraphs(page).first()).toHaveText(`${text}第51段。`);
    await page.getByRole("link", { name: "继续阅读下面的内容" }).click();
    await expect(chapterParagraphs(page)).toHaveCount(30);
    await expect(page.getByRole("link", { name: "继续阅读下面的内容" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "从本章开头阅读" })).toBeVisible();
  }
});

test("a failed batch shows 加载失败，请重试 and a retry button that loads it", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("retry");
  const id = await publishWork(author, { title: `重试 ${text}`, chapters: [{ title: "第一章", paragraphs: numberedParagraphs(80, text) }] });

  await visit(`/works/${id}?chapter=1`);
  await page.route(/\/paragraphs\?/, (route) => route.fulfill({ status: 500, body: "boom" }));
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const failure = page.getByRole("alert").filter({ hasText: "加载失败，请重试" });
  await expect(failure).toBeVisible();
  await expect(chapterParagraphs(page)).toHaveCount(50);

  await page.unroute(/\/paragraphs\?/);
  await failure.getByRole("button", { name: "重试" }).click();
  await expect(chapterParagraphs(page)).toHaveCount(80);
  await expect(failure).toHaveCount(0);
});

test("继续阅读 goes back to where a signed-in reader stopped", async ({ loggedInPage: page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("resume");
  const id = await publishWork(author, {
    title: `续读 ${text}`,
    chapters: [
      { title: "第一章", paragraphs: ["开篇"] },
      { title: "第二章", paragraphs: numberedParagraphs(60, text) },
    ],
  });

  await visit(`/works/${id}`);
  await expect(page.getByRole("link", { name: "开始阅读" })).toBeVisible();
  await visit(`/works/${id}?chapter=2`);
  // Wait for the save's answer, not only its request: the next page must see it.
  const saved = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(`/works/${id}/progress`));
  await page.evaluate(() => document.getElementById("p-30")!.scrollIntoView({ block: "start" }));
  const response = await saved;
  expect(response.status()).toBe(204);
  const paragraph = Number(new URLSearchParams(response.request().postData() ?? "").get("paragraph"));
  expect(paragraph).toBeGreaterThanOrEqual(25);

  await visit(`/works/${id}`);
  const resume = page.getByRole("link", { name: "继续阅读" });
  await expect(resume).toHaveAttribute("href", `/works/${id}?chapter=2&from=${paragraph}#p-${paragraph}`);
  await resume.click();
  await expect(page.locator(`#p-${paragraph}`)).toBeInViewport();
  await expect(page.locator(`#p-${paragraph}`)).toHaveText(`${text}第${paragraph + 1}段。`);
});

test("an r18 work asks a visitor to log in and a user with R-18 off to turn it on", nojs, async ({
  page,
  context,
  visit,
  logInAs,
  user,
  playwright,
  baseURL,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const secret = marker("adultbody");
  const id = await publishWork(author, {
    title: `成人 ${marker("adult")}`,
    rating: "r18",
    chapters: [{ title: "第一章", paragraphs: [secret] }],
  });

  await visit(`/works/${id}?chapter=1`);
  await expect(page.getByText("该作品含有 R-18 内容，请登录后查看。")).toBeVisible();
  await expect(page.getByRole("link", { name: "登录" }).last()).toHaveAttribute(
    "href",
    `/works/${id}?auth=login&redirectTo=${encodeURIComponent(`/works/${id}`)}`,
  );
  expect(await page.content()).not.toContain(secret);

  await logInAs(context, user);
  await visit(`/works/${id}`);
  await expect(page.getByText("“浏览与显示”中开启“显示 R-18 内容”")).toBeVisible();
  await expect(page.getByRole("link", { name: "设置" }).last()).toHaveAttribute("href", "/settings");
  expect(await page.content()).not.toContain(secret);
});

test("a missing work offers 返回首页; /work/:id redirects to /works/:id", nojs, async ({ page, visit, request }) => {
  await visit("/works/987654321");
  await expect(page.getByRole("heading", { name: "作品不存在" })).toBeVisible();
  await page.getByRole("link", { name: "返回首页" }).click();
  await expect(page).toHaveURL(/\/$/);

  const moved = await request.get("/work/987654321?chapter=2", { maxRedirects: 0 });
  expect(moved.status()).toBe(301);
  expect(moved.headers()["location"]).toBe("/works/987654321?chapter=2");
});

test("a search engine finds a description, the canonical address, cards and JSON-LD; an R-18 work says noindex", async ({ playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("seo");
  const id = await publishWork(author, {
    title: `搜索可见 ${text}`,
    description: `一个关于渡河的故事 ${text}。`,
    chapters: [{ title: "第一章 起程", paragraphs: ["天刚亮。"] }],
  });
  // As a crawler reads it: a visitor's GET, no script run.
  const visitor = await playwright.request.newContext({ baseURL });
  const head = async (path: string) => {
    const html = await (await visitor.get(path)).text();
    return html.slice(0, html.indexOf("</head>"));
  };
  const attr = (html: string, pattern: RegExp) => pattern.exec(html)?.[1]?.replace(/&amp;/g, "&");

  const chapterHead = await head(`/works/${id}?chapter=1`);
  const url = `${baseURL}/works/${id}?chapter=1`;
  expect(attr(chapterHead, /<meta name="description" content="([^"]*)"/)).toBe(`《搜索可见 ${text}》第一章 起程。一个关于渡河的故事 ${text}。`);
  expect(attr(chapterHead, /<link rel="canonical" href="([^"]*)"/)).toBe(url);
  expect(attr(chapterHead, /<meta property="og:url" content="([^"]*)"/)).toBe(url);
  expect(attr(chapterHead, /<meta property="og:image" content="([^"]*)"/)).toMatch(new RegExp(`^${baseURL}/covers/${id}\\.webp\\?v=`));
  expect(chapterHead).not.toContain('name="robots"');
  const ld = JSON.parse(attr(chapterHead, /<script type="application\/ld\+json">([\s\S]*?)<\/script>/)!);
  const byType = Object.fromEntries(ld["@graph"].map((node: { "@type": string }) => [node["@type"], node]));
  expect(byType.Book).toMatchObject({ name: `搜索可见 ${text}`, url: `${baseURL}/works/${id}`, inLanguage: "zh-CN" });
  expect(byType.Chapter).toMatchObject({ position: 1, url, isPartOf: { "@id": `${baseURL}/works/${id}#book` } });
  expect(byType.BreadcrumbList.itemListElement.map((item: { item: string }) => item.item)).toEqual([`${baseURL}/`, `${baseURL}/works/${id}`, url]);

  const r18 = await publishWork(author, { title: `成人 ${text}`, rating: "r18", chapters: [{ title: "第一章", paragraphs: ["正文。"] }] });
  const gated = await head(`/works/${r18}`);
  expect(gated).toContain('<meta name="robots" content="noindex"/>');
  expect(gated).not.toContain('rel="canonical"');
  await visitor.dispose();
});
