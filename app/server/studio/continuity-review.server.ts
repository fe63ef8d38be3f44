import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { continuityFindings, prompts } from "~/db/schema";
import { CONTINUITY_MESSAGES } from "~/schemas/continuity-rules";
import { STUDIO_MESSAGES } from "~/schemas/studio";
import { defaultProvider } from "~/server/ai/config.server";
import { renderLoadedPrompt } from "~/server/ai/prompt-templates.server";
import { refundGenerationTokens, reserveGenerationTokens, settleGenerationTokens } from "~/server/economy/ledger.server";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { DomainError } from "~/server/platform/errors.server";
import { tokensForChars } from "~/utils/ai-tokens";
import { describeEntry } from "./continuity";
import { ledgerUpTo, numberedChapters } from "./continuity.server";
import { settlement } from "./summary-jobs.server";

/**
 * The optional AI 审读 of one chapter (docs/product.md#continuity, docs/decisions/258): the
 * author asks for it on /works/:id/continuity; P11 gets the chapter and the state ledger up
 * to it and answers JSON findings, which replace the chapter's earlier AI findings beside
 * the deterministic ones (source 'ai', shown as AI 审读, waivable like the others; a save
 * leaves them). Charged like a summary: reserved before the call, settled on the
 * provider's usage with the findings in one transaction; refunded when the provider fails
 * or the answer is not the expected JSON, with nothing written.
 */

/** The most chapter text sent. */
const REVIEW_CHAPTER_CHARS = 20_000;
/** The most findings kept from one answer, and their lengths. */
const REVIEW_FINDINGS = 20;
const QUOTE_CHARS = 200;
const MESSAGE_CHARS = 300;
const REVIEW_CALL_TIMEOUT_MS = 120_000;

const AI_REVIEW_RULE = "ai-review";

const cut = (text: string, max: number) => {
  const chars = Array.from(text.trim());
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : chars.join("");
};

/** P11's answer: {"问题": [{"引文", "说明"}]}. Throws on anything else (no JSON object, no 问题 list). @internal */
export function parseReviewReply(reply: string): { quote: string; message: string }[] {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object");
  const json = JSON.parse(reply.slice(start, end + 1)) as Record<string, unknown>;
  const list = json["问题"];
  if (!Array.isArray(list)) throw new Error("no 问题 list");
  const found: { quote: string; message: string }[] = [];
  for (const item of list) {
    if (!item || typeof item !== "object") continue;
    const o = item as Record<string, unknown>;
    const message = typeof o["说明"] === "string" ? cut(o["说明"], MESSAGE_CHARS) : "";
    if (!message) continue;
    found.push({ quote: typeof o["引文"] === "string" ? cut(o["引文"], QUOTE_CHARS) : "", message });
    if (found.length === REVIEW_FINDINGS) break;
  }
  return found;
}

/**
 * Asks the AI to review a chapter, by id or by its reader number (a published chapter);
 * returns the chapter and how many findings the AI made.
 */
export async function aiReviewChapter(userId: string, workId: number, which: { chapterId: number } | { number: string }): Promise<{ chapterId: number; found: number }> {
  const work = await getOwnedWork(userId, workId);
  let chapterId: number;
  if ("chapterId" in which) chapterId = which.chapterId;
  else {
    const n = Number(which.number.trim());
    const row = which.number.trim() && Number.isSafeInteger(n) && n >= 1 ? await getChapterByOrder(workId, n) : null;
    if (!row) throw new DomainError(CONTINUITY_MESSAGES.reviewChapter, 400, "chapter");
    chapterId = row.id;
  }
  const [chapter] = await numberedChapters(db, workId, [chapterId]);
  if (!chapter) throw new DomainError(STUDIO_MESSAGES.chapterNotFound, 404);
  if (chapter.kind !== "chapter") throw new DomainError(CONTINUITY_MESSAGES.reviewNotice, 400);
  if (!chapter.text.trim()) throw new DomainError(CONTINUITY_MESSAGES.reviewEmpty, 400);
  const [ledger, [template], provider] = await Promise.all([
    ledgerUpTo(db, workId, chapter.number),
    db.select({ system: prompts.systemContent, user: prompts.userContent }).from(prompts).where(eq(prompts.code, "P11")),
    defaultProvider(),
  ]);
  const nameOf = new Map(ledger.entities.map((e) => [e.id, e.names.length > 1 ? `${e.names[0]}（又称：${e.names.slice(1).join("、")}）` : e.names[0]]));
  const lines = [
    ...ledger.entities.filter((e) => !ledger.states.some((s) => s.entityId === e.id)).map((e) => `${nameOf.get(e.id)}`),
    ...ledger.states
      .slice()
      .sort((a, b) => a.chapter - b.chapter || a.id - b.id)
      .map((s) => `第${s.chapter}章起 ${s.entityId === null ? "" : `${nameOf.get(s.entityId) ?? ""} `}${describeEntry(s)}`),
  ];
  if (ledger.ladder.length) lines.unshift(`境界阶梯（从低到高）：${ledger.ladder.join("、")}`);
  const prompt = renderLoadedPrompt("P11", template, {
    "work-title": work.title,
    "chapter-number": String(chapter.number),
    "chapter-title": chapter.title,
    "chapter-text": Array.from(chapter.text).slice(0, REVIEW_CHAPTER_CHARS).join(""),
    ledger: lines.join("\n") || "（无）",
  });
  const promptChars = provider.promptChars(prompt);
  const promptTokens = tokensForChars(promptChars);
  const description = `连续性AI审读：${chapter.title}`.slice(0, 200);
  // 余额不足 / 每日上限: the ledger's own message, nothing reserved.
  const reservation = await reserveGenerationTokens(db, userId, promptTokens, { description, model: provider.model, plotId: null, promptChars }, { keep: 1 });
  const refund = () => db.transaction((tx) => refundGenerationTokens(tx, userId, reservation.transactionId, promptTokens, `连续性AI审读失败，退还Tokens：${chapter.title}`.slice(0, 200)));
  let reply: string;
  let usage;
  try {
    ({ text: reply, usage } = await provider.completeWithUsage(prompt, AbortSignal.timeout(REVIEW_CALL_TIMEOUT_MS)));
  } catch (error) {
    await refund();
    throw error;
  }
  let found: { quote: string; message: string }[];
  try {
    found = parseReviewReply(reply);
  } catch {
    await refund();
    throw new DomainError(CONTINUITY_MESSAGES.reviewUnreadable, 502);
  }
  await db.transaction(async (tx) => {
    await settleGenerationTokens(tx, userId, reservation.transactionId, settlement(usage ?? null, promptTokens, reply));
    await tx.delete(continuityFindings).where(and(eq(continuityFindings.chapterId, chapterId), eq(continuityFindings.source, "ai")));
    const seen = new Set<string>();
    const rows = found
      .map((f) => ({ ...f, key: `ai:${createHash("sha1").update(`${f.quote}\n${f.message}`).digest("hex").slice(0, 16)}` }))
      .filter((f) => !seen.has(f.key) && seen.add(f.key));
    if (rows.length) {
      await tx.insert(continuityFindings).values(
        rows.map((f) => ({ workId, chapterId, chapterNumber: chapter.number, rule: AI_REVIEW_RULE, source: "ai" as const, key: f.key, entityId: null, message: f.message, quote: f.quote, facts: [] })),
      );
    }
  });
  return { chapterId, found: found.length };
}
