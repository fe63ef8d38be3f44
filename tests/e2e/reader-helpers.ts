/**
 * Helpers for the reader, purchase and favourites browser tests: authors and their works
 * are made through the real forms (register, login, /submit, /my-works), the way a user
 * would, so these tests need nothing from the database directly.
 */
import { randomBytes } from "node:crypto";
import { expect, type APIRequestContext, type Page, type PlaywrightWorkerArgs } from "@playwright/test";
import { signedInRequest, type Credentials, type SeedFacts } from "./fixtures";

export function sameOrigin(baseURL: string) {
  const origin = new URL(baseURL).origin;
  return { Origin: origin, Referer: `${origin}/` };
}

/** A unique ASCII marker, to find a work's text (or prove its absence) in a page. */
export function marker(prefix: string): string {
  return `${prefix}${randomBytes(4).toString("hex")}`;
}

export interface Author {
  credentials: Credentials;
  request: APIRequestContext;
  baseURL: string;
}

/** A fresh author (its own account) and an API client signed in as them. */
export async function newAuthor(playwright: PlaywrightWorkerArgs["playwright"], baseURL: string): Promise<Author> {
  const { credentials, request } = await signedInRequest(playwright, baseURL);
  return { credentials, request, baseURL };
}

interface ChapterSeed {
  title: string;
  paragraphs: string[];
}

export interface WorkSeed {
  title: string;
  description?: string;
  rating?: "all_ages" | "r18";
  visibility?: "public" | "private";
  /** Published as a multi-chapter TXT (#### separators). */
  chapters: ChapterSeed[];
}

/** Publishes a multi-chapter work through /submit (a TXT upload) and returns its id. */
export async function publishWork(author: Author, seed: WorkSeed): Promise<number> {
  const txt = seed.chapters.map((c) => `####${c.title}\n${c.paragraphs.join("\n")}\n`).join("\n");
  const response = await author.request.post("/submit", {
    multipart: {
      intent: "publish",
      status: "completed",
      type: "multi_chapter",
      title: seed.title,
      description: seed.description ?? `${seed.title}的简介`,
      rating: seed.rating ?? "all_ages",
      visibility: seed.visibility ?? "public",
      separator: "####",
      txt: { name: "work.txt", mimeType: "text/plain", buffer: Buffer.from(txt, "utf8") },
    },
    headers: sameOrigin(author.baseURL),
    maxRedirects: 0,
  });
  expect(response.status(), `publish ${seed.title}: ${response.status() === 302 ? "" : await response.text()}`).toBe(302);
  const tab = seed.visibility === "private" ? "private" : "free";
  const list = await author.request.get(`/my-works?tab=${tab}&q=${encodeURIComponent(seed.title)}`);
  const match = /href="\/works\/(\d+)"/.exec(await list.text());
  expect(match, `work id of ${seed.title}`).not.toBeNull();
  return Number(match![1]);
}

/** A card whose Luhn digit is right, masked 6222 **** **** 0128. */
export const E2E_CARD = "6222021234567890128";

/**
 * Saves a bank card as the author's 收款账户 through its form (decision 210), so they may ask
 * for a payout; the bank's name (≤ 30 字) is what a test finds the payout's row by.
 */
export async function savePayoutAccount(request: APIRequestContext, baseURL: string, bankName: string, holderName = "测试作者"): Promise<void> {
  const saved = await request.post("/income/account", {
    form: { kind: "bank", account: E2E_CARD, bankName, holderName },
    headers: sameOrigin(baseURL),
    maxRedirects: 0,
  });
  expect(saved.status(), `save 收款账户: ${saved.status() === 302 ? "" : await saved.text()}`).toBe(302);
}

/** Makes the author's work paid (docs/product.md D3: free → public-vip with a price). */
export async function setPrice(author: Author, workId: number, price: number): Promise<void> {
  const response = await author.request.post("/my-works", {
    form: { intent: "set-price", workId: String(workId), price: String(price), back: "/my-works?tab=paid" },
    headers: sameOrigin(author.baseURL),
    maxRedirects: 0,
  });
  expect(response.status(), "set price").toBe(302);
}

/**
 * A seeded buyer (fundedBuyer) buys a paid work whole through the forms' own requests:
 * the login form, then the work page's purchase.
 */
export async function buyWhole(
  playwright: PlaywrightWorkerArgs["playwright"],
  baseURL: string,
  buyer: Credentials,
  workId: number,
): Promise<void> {
  const request = await playwright.request.newContext({ baseURL });
  try {
    const headers = sameOrigin(baseURL);
    const login = await request.post("/auth/login", {
      form: { email: buyer.email, password: buyer.password, redirectTo: "/" },
      headers,
      maxRedirects: 0,
    });
    expect(login.status(), "buyer login").toBe(302);
    const bought = await request.post(`/works/${workId}`, { form: { intent: "purchase" }, headers, maxRedirects: 0 });
    expect(bought.status(), "purchase").toBeLessThan(400);
  } finally {
    await request.dispose();
  }
}

/** `n` numbered paragraphs, with empty lines between some (the reader drops them). */
export function numberedParagraphs(n: number, text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(`${text}第${i + 1}段。`);
    if (i % 10 === 9) out.push("", "   ");
  }
  return out;
}

/** The paragraphs currently rendered in the chapter text. */
export function chapterParagraphs(page: Page) {
  return page.getByTestId("chapter-text").locator("p");
}

/**
 * An account with credits for buying. Balances change only through the ledger, and no
 * page can add credits yet (redeem and payment are later issues), so these accounts
 * come from the e2e seed: `facts.accounts.buyers`, each with 1,000 credits, one per
 * test that spends (tests run in parallel and assert exact balances).
 */
export function fundedBuyer(facts: SeedFacts, slot: number): Credentials & { credits: number } {
  const buyers = (facts.accounts as { buyers?: (Credentials & { credits: number })[] }).buyers;
  const buyer = buyers?.[slot];
  if (!buyer) {
    throw new Error(
      `purchase tests need facts.accounts.buyers[${slot}] (a seeded account with credits) from tests/e2e/fixtures/seed.ts`,
    );
  }
  return buyer;
}

/** The balance shown in the top bar. */
export async function shownBalance(page: Page): Promise<number> {
  return Number(await page.getByTestId("credits-balance").textContent());
}

/**
 * Posts to a chapter's comment thread as the author's API client (a 段评 on paragraph `p`,
 * a 本章说 without it, or a hide/mute/like of `comment`); returns the comment id the
 * answer's redirect points at.
 */
export async function commentAs(
  author: Author,
  workId: number,
  at: { chapter: number; p?: number },
  fields: Record<string, string>,
): Promise<number> {
  const query = `chapter=${at.chapter}${at.p === undefined ? "" : `&p=${at.p}`}`;
  const response = await author.request.post(`/works/${workId}/comments?${query}`, {
    form: fields,
    headers: sameOrigin(author.baseURL),
    maxRedirects: 0,
  });
  expect(response.status(), `comment ${fields.intent}: ${response.status() === 302 ? "" : await response.text()}`).toBe(302);
  return Number(/#c-(\d+)$/.exec(response.headers().location ?? "")?.[1]);
}
