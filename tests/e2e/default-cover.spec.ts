import { expect, test } from "./fixtures";
import { marker, newAuthor, publishWork } from "./reader-helpers";

test("a work without a cover shows one drawn for it, on its card and its page", async ({ page, visit, playwright, baseURL }) => {
  const author = await newAuthor(playwright, baseURL!);
  const title = `无封面 ${marker("cover")}`;
  const id = await publishWork(author, { title, chapters: [{ title: "第一章", paragraphs: ["正文"] }] });

  await visit(`/works/${id}`);
  const cover = page.getByRole("img", { name: `《${title}》封面` });
  await expect(cover).toHaveAttribute("src", new RegExp(`^/covers/${id}\\.webp\\?v=`));
  await expect.poll(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(400);

  await visit(`/works?q=${encodeURIComponent(title)}`);
  const card = page.getByTestId("work-card").filter({ hasText: title });
  const cardCover = card.locator(".work-cover img");
  await expect(cardCover).toHaveAttribute("src", new RegExp(`^/covers/${id}\\.webp\\?v=`));
  await expect.poll(() => cardCover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(400);
});
