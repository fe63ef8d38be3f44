import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { outlineJobs, outlines, storyEntities, works } from "~/db/schema";
import { BeatsError, checkBeats, OUTLINE_LIMITS, type Beat } from "~/schemas/outline";
import { defaultProvider } from "~/server/ai/config.server";
import type { ChatPrompt } from "~/server/ai/provider.server";
import type { ReportedUsage } from "~/server/ai/sse.server";
import { countChars, tokensFor, tokensForChars } from "~/utils/ai-tokens";
import { leaseNextJob, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { LedgerError, refundGenerationTokens, reserveGenerationTokens, settleGenerationTokens } from "~/server/economy/ledger.server";
import { writeChapterOutline } from "./outlines.server";

/**
 * AI 细纲 drafting in resumable batches (docs/decisions/255), in the shape of the summary
 * jobs (summary-jobs.server.ts, decision 128): a job is claimed in a short transaction
 * (`FOR UPDATE SKIP LOCKED`, then a lease), the provider is called outside any
 * transaction for the job's next `batch` chapters, and that batch is finished in one
 * transaction that checks the lease is still its own, settles the tokens, writes each
 * chapter's 细纲 (the replaced one kept as a version) and moves `next_chapter` on. The job
 * stays pending until its last chapter is drafted: a process that dies mid-batch loses
 * only that batch, and whichever process claims the job after the lease resumes from
 * `next_chapter`. An answer that is not the expected JSON is refunded and retried with
 * backoff, its reason shown, up to OUTLINE_JOB_ATTEMPTS times.
 */

/** @internal */
export const OUTLINE_JOB_ATTEMPTS = 3;
const OUTLINE_LEASE_SECONDS = 300;
const OUTLINE_CALL_TIMEOUT_MS = 180_000;
/** The story bible's share of the prompt, in characters. */
const BIBLE_CHARS = 4_000;
const retryDelaySeconds = (attempt: number) => 60 * 4 ** Math.max(0, attempt - 1);

/** @internal */
export const OUTLINE_JOB_MESSAGES = {
  noTokens: "Tokens余额不足，细纲生成已停止（未扣费）",
  dailyCap: "今日AI生成已达每日上限，细纲生成已停止（未扣费）",
  unreadable: "AI返回的内容不是预期的JSON格式，本批已退还Tokens",
  badChapter: (chapter: number, why: string) => `AI返回的第${chapter}章细纲有误（${why}），本批已退还Tokens`,
  missingChapter: (chapter: number) => `AI返回的内容缺少第${chapter}章的细纲，本批已退还Tokens`,
  gone: "卷纲已删除，已停止",
  gaveUp: (reason: string) => `多次尝试失败，已放弃：${reason}`,
  unavailable: "AI服务暂时不可用",
} as const;

interface Claimed {
  id: number;
  workId: number;
  volumeId: number;
  userId: string;
  nextChapter: number;
  toChapter: number;
  batch: number;
  attempts: number;
}

/** Claims the next due job (a lease), or null; several processes may call it at once. @internal */
export async function claimOutlineJob(): Promise<Claimed | null> {
  type Row = { id: string | number; work_id: string | number; volume_id: string | number; user_id: string; next_chapter: number; to_chapter: number; batch: number; attempts: number };
  const job = await leaseNextJob<Row>(
    db,
    sql`${outlineJobs}`,
    sql`id, work_id, volume_id, user_id, next_chapter, to_chapter, batch, attempts`,
    OUTLINE_LEASE_SECONDS,
  );
  if (!job) return null;
  return {
    id: Number(job.id),
    workId: Number(job.work_id),
    volumeId: Number(job.volume_id),
    userId: job.user_id,
    nextChapter: job.next_chapter,
    toChapter: job.to_chapter,
    batch: job.batch,
    attempts: job.attempts,
  };
}

type Ending = { state: "skipped" | "failed" | "retry"; reason: string } | { state: "advance"; next: number };

/** Ends this attempt of a job this process holds (the lease's attempt number matches); false when it is no longer ours. */
async function finish(tx: Executor, job: Claimed, end: Ending): Promise<boolean> {
  const done = end.state === "advance" && end.next > job.toChapter;
  const state = end.state === "advance" ? (done ? "done" : "pending") : end.state === "retry" ? "pending" : end.state;
  const rows = rowsOf(
    await tx.execute(sql`
      update ${outlineJobs}
      set state = ${state}, locked_until = null, updated_at = now(),
          reason = ${end.state === "advance" ? null : end.reason},
          next_chapter = ${end.state === "advance" ? Math.min(end.next, job.toChapter + 1) : job.nextChapter},
          attempts = ${end.state === "advance" ? 0 : job.attempts},
          next_attempt_at = ${end.state === "retry" ? sql`now() + make_interval(secs => ${retryDelaySeconds(job.attempts)})` : sql`now()`}
      where id = ${job.id} and attempts = ${job.attempts} and state = 'pending' and next_chapter = ${job.nextChapter}
      returning id`),
  );
  return rows.length > 0;
}

/** The JSON answer: {"细纲": [{"章": n, "节拍": [{"内容", "字数"}]}]}, one entry per asked chapter. @internal */
export function parseOutlineReply(reply: string, chapters: number[]): Map<number, Beat[]> {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  let json: unknown;
  try {
    if (start < 0 || end <= start) throw new Error("no JSON object");
    json = JSON.parse(reply.slice(start, end + 1));
  } catch {
    throw new DomainError(OUTLINE_JOB_MESSAGES.unreadable, 502);
  }
  const list = json && typeof json === "object" ? (json as Record<string, unknown>)["细纲"] : null;
  if (!Array.isArray(list)) throw new DomainError(OUTLINE_JOB_MESSAGES.unreadable, 502);
  const byChapter = new Map<number, unknown>();
  for (const item of list) {
    if (!item || typeof item !== "object") continue;
    const o = item as Record<string, unknown>;
    const n = Number(o["章"]);
    if (chapters.includes(n) && !byChapter.has(n)) byChapter.set(n, o["节拍"]);
  }
  const out = new Map<number, Beat[]>();
  for (const n of chapters) {
    const beats = byChapter.get(n);
    if (!Array.isArray(beats)) throw new DomainError(OUTLINE_JOB_MESSAGES.missingChapter(n), 502);
    try {
      out.set(
        n,
        checkBeats(beats.map((b) => (b && typeof b === "object" ? { text: (b as Record<string, unknown>)["内容"], words: (b as Record<string, unknown>)["字数"] } : { text: "", words: 0 }))),
      );
    } catch (error) {
      if (error instanceof BeatsError) throw new DomainError(OUTLINE_JOB_MESSAGES.badChapter(n, error.message), 502);
      throw error;
    }
  }
  return out;
}

const clip = (text: string, chars: number) => (countChars(text) > chars ? `${Array.from(text).slice(0, chars).join("")}…` : text);

/** The drafting prompt: the 总纲, the 卷纲, the bible's entities, the 细纲 before the batch, the chapters asked. */
async function outlinePrompt(job: Claimed, chapters: number[]): Promise<ChatPrompt & { chars: number }> {
  const [[work], [series], [volume], entities, [previous]] = await Promise.all([
    db.select({ title: works.title }).from(works).where(eq(works.id, job.workId)),
    db.select({ body: outlines.body }).from(outlines).where(and(eq(outlines.workId, job.workId), eq(outlines.kind, "series"))),
    db.select().from(outlines).where(eq(outlines.id, job.volumeId)),
    db.select({ name: storyEntities.name, description: storyEntities.description }).from(storyEntities).where(eq(storyEntities.workId, job.workId)).orderBy(asc(storyEntities.id)).limit(200),
    db
      .select({ chapter: outlines.fromChapter, beats: outlines.beats })
      .from(outlines)
      .where(and(eq(outlines.workId, job.workId), eq(outlines.kind, "chapter"), lt(outlines.fromChapter, chapters[0]), gte(outlines.fromChapter, chapters[0] - 1))),
  ]);
  const bible = clip(entities.map((e) => (e.description ? `${e.name}：${e.description}` : e.name)).join("\n"), BIBLE_CHARS);
  const system = "你是一位经验丰富的网络小说策划编辑，负责为连载小说编写章节细纲。你只输出合法的 JSON，不输出任何其他文字。";
  const user = [
    `作品：《${work?.title ?? ""}》`,
    `总纲：\n${series?.body || "（未填写）"}`,
    `卷纲「${volume?.title ?? ""}」（第${volume?.fromChapter}章至第${volume?.toChapter}章）：\n${volume?.body || "（未填写）"}`,
    `故事设定：\n${bible || "（无）"}`,
    previous ? `上一章（第${previous.chapter}章）细纲：\n${previous.beats.map((b, i) => `${i + 1}. ${b.text}（约${b.words}字）`).join("\n")}` : "",
    `请为第${chapters[0]}章到第${chapters.at(-1)}章写细纲：每章 3 到 8 个节拍，每个节拍写清发生的事（${OUTLINE_LIMITS.beatText}字以内）和预计字数（${OUTLINE_LIMITS.minWords}到${OUTLINE_LIMITS.maxWords}之间的整数）。`,
    `只输出如下格式的 JSON（不要使用代码块）：\n{"细纲": [{"章": ${chapters[0]}, "节拍": [{"内容": "这个节拍发生的事", "字数": 500}]}]}`,
  ]
    .filter(Boolean)
    .join("\n\n");
  return { system, user, chars: countChars(system) + countChars(user) };
}

function settlement(usage: ReportedUsage | null, promptTokens: number, reply: string) {
  return usage
    ? { ...usage, metering: "actual" as const, outputChars: countChars(reply) }
    : { inputTokens: promptTokens, outputTokens: tokensFor(reply), metering: "estimate" as const, outputChars: countChars(reply) };
}

class LostLease extends Error {}

/** Runs one batch of a claimed job. Returns what became of it. */
async function runOutlineBatch(job: Claimed): Promise<"advanced" | "skipped" | "retry" | "failed" | "lost"> {
  const [volume] = await db.select({ title: outlines.title }).from(outlines).where(eq(outlines.id, job.volumeId));
  if (!volume) return (await finish(db, job, { state: "skipped", reason: OUTLINE_JOB_MESSAGES.gone })) ? "skipped" : "lost";
  const last = Math.min(job.toChapter, job.nextChapter + job.batch - 1);
  const chapters = Array.from({ length: last - job.nextChapter + 1 }, (_, i) => job.nextChapter + i);
  const label = `细纲：${volume.title} 第${chapters[0]}-${last}章`.slice(0, 200);
  let reservation: { transactionId: number } | null = null;
  let promptTokens = 0;
  const refund = () =>
    db.transaction((tx) => refundGenerationTokens(tx, job.userId, reservation!.transactionId, promptTokens, `细纲生成失败，退还Tokens：${volume.title}`.slice(0, 200)));
  try {
    const [prompt, provider] = await Promise.all([outlinePrompt(job, chapters), defaultProvider()]);
    const promptChars = provider.promptChars(prompt);
    promptTokens = tokensForChars(promptChars);
    try {
      reservation = await reserveGenerationTokens(db, job.userId, promptTokens, { description: label, model: provider.model, plotId: null, promptChars }, { keep: 1 });
    } catch (error) {
      if (error instanceof LedgerError) {
        const reason = error.status === 429 ? OUTLINE_JOB_MESSAGES.dailyCap : OUTLINE_JOB_MESSAGES.noTokens;
        return (await finish(db, job, { state: "skipped", reason })) ? "skipped" : "lost";
      }
      throw error;
    }
    const { text: reply, usage } = await provider.completeWithUsage(prompt, AbortSignal.timeout(OUTLINE_CALL_TIMEOUT_MS));
    const drafted = parseOutlineReply(reply, chapters);
    const done = await db
      .transaction(async (tx) => {
        if (!(await finish(tx, job, { state: "advance", next: last + 1 }))) throw new LostLease();
        await settleGenerationTokens(tx, job.userId, reservation!.transactionId, settlement(usage, promptTokens, reply));
        for (const [chapter, beats] of drafted) await writeChapterOutline(tx, job.workId, chapter, beats, "ai");
        return true;
      })
      .catch((error) => {
        if (error instanceof LostLease) return false;
        throw error;
      });
    if (!done) {
      await refund();
      return "lost";
    }
    return "advanced";
  } catch (error) {
    if (reservation) await refund();
    const reason = error instanceof DomainError ? error.message : OUTLINE_JOB_MESSAGES.unavailable;
    if (!(error instanceof DomainError)) console.error("outline job failed", job.id, error);
    const gaveUp = job.attempts >= OUTLINE_JOB_ATTEMPTS;
    await finish(db, job, gaveUp ? { state: "failed", reason: OUTLINE_JOB_MESSAGES.gaveUp(reason) } : { state: "retry", reason });
    return gaveUp ? "failed" : "retry";
  }
}

/** Runs due batches until none is left (or `max` ran); returns how many this call ran. */
export async function runOutlineJobs(max = 50): Promise<number> {
  let ran = 0;
  while (ran < max) {
    const job = await claimOutlineJob();
    if (!job) break;
    await runOutlineBatch(job);
    ran++;
  }
  return ran;
}
