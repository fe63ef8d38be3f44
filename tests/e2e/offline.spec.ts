import { expect, test, waitForHydration } from "./fixtures";
import { marker, newAuthor, numberedParagraphs, publishWork } from "./reader-helpers";

/**
 * 离线阅读 (decision 244) on a 390 px phone: a reader keeps a work's chapters, loses the network,
 * opens one and goes on to the next inside the site, reads it to its end (the later batch of text comes from the device too), gets
 * the offline page for anything else, and their position reaches the server once online.
 * Signing out leaves nothing of theirs on the device. Without JavaScript the button says it needs it. Which chapters may be kept (free or
 * owned) is tested on the server: tests/integration/offline-reading.test.ts.
 */
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, serviceWorkers: "allow" });

test("a reader keeps chapters, reads one offline, and the position syncs when back online", { tag: "@nojs" }, async ({
  loggedInPage: page,
  context,
  visit,
  playwright,
  baseURL,
  javaScriptEnabled,
}) => {
  const author = await newAuthor(playwright, baseURL!);
  const text = marker("offline");
  const id = await publishWork(author, {
    title: `离线 ${text}`,
    chapters: [
      { title: "第一章", paragraphs: ["开篇第一段。"] },
      { title: "第二章 夜路", paragraphs: numberedParagraphs(60, text) },
      { title: "第三章", paragraphs: ["尾声。"] },
    ],
  });

  // The home-screen app: the page names its manifest, the manifest its icons.
  await visit(`/works/${id}`);
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
  const manifest = await (await page.request.get("/manifest.webmanifest")).json();
  expect(manifest).toMatchObject({ name: "砚台", display: "standalone", start_url: "/" });
  expect(manifest.icons.map((i: { purpose: string }) => i.purpose)).toEqual(["any", "any", "maskable"]);

  if (!javaScriptEnabled) {
    // Without JavaScript the page is as before; the button says what it would need.
    await expect(page.getByRole("button", { name: "离线阅读" })).toBeDisabled();
    await expect(page.getByText("需要启用 JavaScript")).toBeVisible();
    return;
  }
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.getByRole("button", { name: "离线阅读" }).click();
  await expect(page.getByRole("status").filter({ hasText: "已保存 3 章到本机" })).toBeVisible();

  // Offline: a kept chapter opens from its address, and 下一章 inside the site leads to the next one.
  await context.setOffline(true);
  await page.goto(`/works/${id}?chapter=1`);
  await expect(page.getByText("开篇第一段。")).toBeVisible();
  await waitForHydration(page);
  await page.getByRole("navigation", { name: "章节导航" }).getByRole("link", { name: "下一章" }).click();
  await expect(page.getByRole("heading", { name: "第二章 夜路" })).toBeVisible();
  await expect(page).toHaveURL(`/works/${id}?chapter=2`);
  await expect(page.getByText(`${text}第1段。`)).toBeVisible();
  await waitForHydration(page);
  // The rest of the chapter (its second batch) was kept too.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(page.getByText(`${text}第60段。`)).toBeAttached();
  // Reading on: the position is kept on the device while the network is gone.
  await page.evaluate(() => document.getElementById("p-30")!.scrollIntoView({ block: "start" }));
  const pending = () =>
    page.evaluate(() => (JSON.parse(localStorage.getItem("inkstone-pending-progress") ?? "null") as { places: Record<string, { paragraph: number }> } | null)?.places);
  await expect.poll(async () => (await pending())?.[id]?.paragraph).toBeLessThanOrEqual(35);
  const paragraph = (await pending())![id].paragraph;
  expect(paragraph).toBeGreaterThanOrEqual(25);

  // A page not kept: the offline page, in Chinese.
  await page.goto("/search");
  await expect(page.getByRole("heading", { name: "当前处于离线状态" })).toBeVisible();

  // Online again: the next page sends the kept position, and 继续阅读 goes there.
  await context.setOffline(false);
  const synced = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(`/works/${id}/progress`));
  await visit(`/works/${id}`);
  expect((await synced).status()).toBe(204);
  await expect.poll(pending).toBeUndefined();
  await visit(`/works/${id}`);
  await expect(page.getByRole("link", { name: "继续阅读" })).toHaveAttribute("href", `/works/${id}?chapter=2&from=${paragraph}#p-${paragraph}`);
  await expect(page.getByRole("status").filter({ hasText: "本机已保存第 1–3 章中的 3 章" })).toBeVisible();

  // 退出登录: nothing of this reader's stays on the device.
  await page.locator(".avatar-menu summary").click();
  await page.getByRole("button", { name: "退出登录" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect.poll(() => page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith("inkstone-offline-")))).toEqual([]);
  await context.setOffline(true);
  await page.goto(`/works/${id}?chapter=2`);
  await expect(page.getByRole("heading", { name: "当前处于离线状态" })).toBeVisible();
  await context.setOffline(false);
});
