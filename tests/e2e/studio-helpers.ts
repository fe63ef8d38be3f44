import type { APIRequestContext } from "@playwright/test";
import { expect } from "./fixtures";

export interface StudioWorkSeed {
  title: string;
  type?: "single_chapter" | "series" | "multi_chapter";
  /** For a multi_chapter work: the chapters of its TXT. */
  chapters?: { title: string; content: string }[];
}

/**
 * Publishes a work for the page's logged-in user by posting the /submit form as a browser
 * without JavaScript does, and returns its id (read from /my-works).
 */
export async function publishWork(page: { request: APIRequestContext }, baseURL: string, seed: StudioWorkSeed): Promise<number> {
  const type = seed.type ?? "series";
  const multipart: Record<string, string | { name: string; mimeType: string; buffer: Buffer }> = {
    intent: "publish",
    status: type === "series" ? "ongoing" : "completed",
    type,
    title: seed.title,
    description: `${seed.title}的简介`,
    rating: "all_ages",
    visibility: "public",
  };
  if (type === "single_chapter") multipart.content = "一段正文。";
  if (type === "series") Object.assign(multipart, { chapterTitle: "第一章 开端", chapterContent: "第一章的正文。" });
  if (type === "multi_chapter") {
    const chapters = seed.chapters ?? [{ title: "第一回", content: "正文一。" }, { title: "第二回", content: "正文二。" }];
    multipart.separator = "####";
    multipart.txt = {
      name: "work.txt",
      mimeType: "text/plain",
      buffer: Buffer.from(chapters.map((c) => `####\n${c.title}\n${c.content}\n`).join("")),
    };
  }
  const origin = new URL(baseURL).origin;
  const response = await page.request.post("/submit", { multipart, headers: { Origin: origin, Referer: `${origin}/submit` }, maxRedirects: 0 });
  expect(response.status(), `publish ${seed.title}`).toBe(302);
  const list = await page.request.get(`/my-works?tab=free&q=${encodeURIComponent(seed.title)}`);
  const html = await list.text();
  const id = /href="\/works\/(\d+)\/settings"/.exec(html)?.[1];
  expect(id, "the new work on /my-works").toBeTruthy();
  return Number(id);
}
