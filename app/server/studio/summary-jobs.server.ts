import { and, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapters, prompts, storyEntities, storyEntityNames, storyProposals, summaryJobs, works } from "~/db/schema";
import { BIBLE_LIMITS, BIBLE_MESSAGES, ENTITY_KIND_LABELS, ENTITY_KINDS, SUMMARY_REQUEST_IDS, type EntityKind } from "~/schemas/bible";
import { defaultProvider } from "~/server/ai/config.server";
import { renderLoadedPrompt } from "~/server/ai/prompt-templates.server";
import type { ReportedUsage } from "~/server/ai/sse.server";
import { countChars, tokensFor, tokensForChars } from "~/utils/ai-tokens";
import { leaseNextJob, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { LedgerError, refundGenerationTokens, reserveGenerationTokens, settleGenerationTokens } from "~/server/economy/ledger.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { checkFact, normalizeName, saveChapterSummary } from "./bible.server";
import { describeEntry } from "./continuity";
import { ladderOf, saveState } from "./continuity.server";
import { ENTITY_STATE_KINDS, STATE_KIND_LABELS, STATE_LIMITS, type ItemAction, type StateKind } from "~/schemas/continuity-rules";

/**
 * AI summaries and proposed facts after publication (docs/product.md#story-bible,
 * docs/decisions/128). The publishing transaction writes one job per chapter when the
 * work has them on; every app process runs the jobs (summary-poller.server.ts). A job is
 * claimed in a short transaction (`FOR UPDATE SKIP LOCKED`, then a lease: `locked_until`
 * and the attempt number), the provider is called outside any transaction, and the job
 * is finished in one transaction that first checks the lease is still its own, then
 * settles the tokens and writes the proposals: a job's effects happen once, whatever the
 * processes. A failure is retried with backoff up to SUMMARY_JOB_ATTEMPTS times; an author
 * without tokens is skipped with the reason shown, and charged nothing.
 */

/** @internal */
export const SUMMARY_JOB_ATTEMPTS = 5;
/** A claimed job not finished by then (a process died) is claimed again. */
const SUMMARY_LEASE_SECONDS = 300;
/** The provider's answer may take this long. */
const SUMMARY_CALL_TIMEOUT_MS = 120_000;
/** The most chapter text sent for a summary. */
const SUMMARY_CHAPTER_CHARS = 20_000;
/** Backoff after the n-th failed attempt: 1, 4, 16, 64 minutes. */
function retryDelaySeconds(attempt: number): number {
  return 60 * 4 ** Math.max(0, attempt - 1);
}

/** @internal */
export const SUMMARY_MESSAGES = {
  noTokens: "Tokens余额不足，已跳过本章的AI摘要（未扣费）",
  dailyCap: "今日AI生成已达每日上限，已跳过本章的AI摘要（未扣费）",
  turnedOff: "作品已关闭AI摘要，已跳过",
  unpublished: "章节已不再发布，已跳过",
  unreadable: "AI返回的内容无法识别",
  gaveUp: (reason: string) => `多次尝试失败，已放弃：${reason}`,
} as const;

/** Called by onChaptersPublished in the publishing transaction: one job per chapter when the work has AI summaries on. */
export async function enqueueSummaryJobs(tx: Executor, workId: number, chapterIds: number[]): Promise<void> {
  if (chapterIds.length === 0) return;
  await tx.execute(sql`
    insert into ${summaryJobs} (work_id, chapter_id, user_id)
    select w.id, c.id, w.user_id from ${works} w join ${chapters} c on c.work_id = w.id
    where w.id = ${workId} and w.ai_summaries and c.id = any(${`{${chapterIds.join(",")}}`}::bigint[])
    on conflict (chapter_id) do nothing`);
}

/**
 * 让AI补写摘要 (连载续写 and 本次上下文 list the chapters a continuation has no summary for,
 * decision 155): turns the work's AI summaries on (a job of a work with them off is skipped)
 * and queues a job for each of the given published chapters that still has no summary,
 * again for one whose earlier job failed or was skipped. Returns how many were queued.
 */
export async function requestChapterSummaries(userId: string, workId: number, chapterIds: number[]): Promise<number> {
  await getOwnedWork(userId, workId);
  const ids = [...new Set(chapterIds.filter((id) => Number.isSafeInteger(id) && id > 0))].slice(0, SUMMARY_REQUEST_IDS);
  return db.transaction(async (tx) => {
    await tx.update(works).set({ aiSummaries: true }).where(and(eq(works.id, workId), eq(works.userId, userId)));
    if (ids.length === 0) return 0;
    const queued = rowsOf(
      await tx.execute(sql`
        insert into ${summaryJobs} (work_id, chapter_id, user_id)
        select w.id, c.id, w.user_id from ${works} w join ${chapters} c on c.work_id = w.id
        where w.id = ${workId} and w.user_id = ${userId} and c.state = 'published' and c.kind = 'chapter'
          and c.id = any(${`{${ids.join(",")}}`}::bigint[])
          and not exists (select 1 from chapter_summaries s where s.chapter_id = c.id)
        on conflict (chapter_id) do update
          set state = 'pending', attempts = 0, reason = null, locked_until = null, next_attempt_at = now(), updated_at = now()
          where ${summaryJobs}.state in ('failed', 'skipped')
        returning id`),
    );
    return queued.length;
  });
}


/** @internal */
export interface ParsedSummary {
  summary: string;
  facts: { name: string; kind: EntityKind | null; content: string }[];
  /** Proposed ledger entries (decision 248): the character's name and the entry, unchecked until accepted. */
  states: { name: string; state: ProposedState }[];
}

/** A proposed ledger entry as stored in story_proposals.state. */
interface ProposedState {
  kind: StateKind;
  value: string;
  num: number | null;
  action: ItemAction | null;
  note: string;
}

const STATE_KIND_BY_LABEL = new Map<string, StateKind>([...ENTITY_STATE_KINDS.map((k) => [STATE_KIND_LABELS[k], k] as const), ["等级", "realm"], ["知道", "knowledge"]]);
const ACTION_BY_LABEL = new Map<string, ItemAction>([["获得", "gained"], ["得到", "gained"], ["失去", "lost"], ["丢失", "lost"], ["交给", "given"], ["交给他人", "given"], ["赠予", "given"]]);

/** One item of P10's 状态 list, or null when it names no character or no known kind. */
function parseProposedState(o: Record<string, unknown>): { name: string; state: ProposedState } | null {
  const str = (k: string) => (typeof o[k] === "string" ? (o[k] as string).trim() : typeof o[k] === "number" ? String(o[k]) : "");
  const name = normalizeName(str("名称"));
  const kind = STATE_KIND_BY_LABEL.get(str("类型"));
  const value = Array.from(str("值")).slice(0, STATE_LIMITS.value).join("");
  if (!name || Array.from(name).length > BIBLE_LIMITS.name || !kind || !value) return null;
  const action = kind === "item" ? (ACTION_BY_LABEL.get(str("动作")) ?? null) : null;
  if (kind === "item" && !action) return null;
  const age = kind === "age" ? Number(value.replace(/岁$/u, "")) : null;
  if (kind === "age" && !Number.isSafeInteger(age)) return null;
  const life = kind === "life" ? (value === "死亡" ? "dead" : value === "存活" ? "alive" : null) : null;
  if (kind === "life" && !life) return null;
  return { name, state: { kind, value: life ?? (kind === "age" ? "" : value), num: age, action, note: Array.from(str("备注")).slice(0, STATE_LIMITS.note).join("") } };
}

const KIND_BY_LABEL = new Map<string, EntityKind>(ENTITY_KINDS.map((k) => [ENTITY_KIND_LABELS[k], k]));

/** P10's reply: JSON (possibly in a code block) with 摘要 and 设定 [{名称, 类型, 内容}]. @internal */
export function parseSummaryReply(reply: string): ParsedSummary {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object");
  const json = JSON.parse(reply.slice(start, end + 1)) as Record<string, unknown>;
  const summary = typeof json["摘要"] === "string" ? json["摘要"].trim() : "";
  if (!summary) throw new Error("no summary");
  const list = Array.isArray(json["设定"]) ? json["设定"] : [];
  const facts: ParsedSummary["facts"] = [];
  for (const item of list.slice(0, 30)) {
    if (!item || typeof item !== "object") continue;
    const o = item as Record<string, unknown>;
    const name = typeof o["名称"] === "string" ? normalizeName(o["名称"]) : "";
    const content = typeof o["内容"] === "string" ? o["内容"].trim() : "";
    if (!name || !content || Array.from(name).length > BIBLE_LIMITS.name) continue;
    facts.push({ name, kind: (typeof o["类型"] === "string" && KIND_BY_LABEL.get(o["类型"].trim())) || null, content: Array.from(content).slice(0, BIBLE_LIMITS.fact).join("") });
  }
  const states: ParsedSummary["states"] = [];
  for (const item of (Array.isArray(json["状态"]) ? json["状态"] : []).slice(0, 30)) {
    const parsed = item && typeof item === "object" ? parseProposedState(item as Record<string, unknown>) : null;
    if (parsed) states.push(parsed);
  }
  return { summary: Array.from(summary).slice(0, BIBLE_LIMITS.summary).join(""), facts, states };
}

interface Claimed {
  id: number;
  workId: number;
  chapterId: number;
  userId: string;
  attempts: number;
}

/** Claims the next due job (a lease), or null. Several processes may call it at once. @internal */
export async function claimSummaryJob(): Promise<Claimed | null> {
  type Row = { id: string | number; work_id: string | number; chapter_id: string | number; user_id: string; attempts: number };
  const job = await leaseNextJob<Row>(db, sql`${summaryJobs}`, sql`id, work_id, chapter_id, user_id, attempts`, SUMMARY_LEASE_SECONDS);
  if (!job) return null;
  return { id: Number(job.id), workId: Number(job.work_id), chapterId: Number(job.chapter_id), userId: job.user_id, attempts: job.attempts };
}

/** Ends a job this process holds (the lease's attempt number matches); false when it is no longer ours. */
async function finish(tx: Executor, job: Claimed, state: "done" | "skipped" | "failed" | "retry", reason: string | null): Promise<boolean> {
  const rows = rowsOf(
    await tx.execute(sql`
      update ${summaryJobs}
      set state = ${state === "retry" ? "pending" : state}, reason = ${reason}, locked_until = null, updated_at = now(),
          next_attempt_at = case when ${state} = 'retry' then now() + make_interval(secs => ${retryDelaySeconds(job.attempts)}) else next_attempt_at end
      where id = ${job.id} and attempts = ${job.attempts} and state = 'pending'
      returning id`),
  );
  return rows.length > 0;
}

/** A failed attempt: retried later, or failed for good after SUMMARY_JOB_ATTEMPTS. */
async function failed(job: Claimed, reason: string): Promise<void> {
  if (job.attempts >= SUMMARY_JOB_ATTEMPTS) await finish(db, job, "failed", SUMMARY_MESSAGES.gaveUp(reason));
  else await finish(db, job, "retry", reason);
}

/** Runs one claimed job to its end. Returns what became of it. */
async function runSummaryJob(job: Claimed): Promise<"done" | "skipped" | "retry" | "failed" | "lost"> {
  const [row] = await db
    .select({ title: chapters.title, content: chapters.content, state: chapters.state, position: chapters.position, workTitle: works.title, on: works.aiSummaries })
    .from(chapters)
    .innerJoin(works, eq(works.id, chapters.workId))
    .where(eq(chapters.id, job.chapterId));
  if (!row || row.state !== "published") return (await finish(db, job, "skipped", SUMMARY_MESSAGES.unpublished)) ? "skipped" : "lost";
  if (!row.on) return (await finish(db, job, "skipped", SUMMARY_MESSAGES.turnedOff)) ? "skipped" : "lost";

  let reservation: { transactionId: number } | null = null;
  let promptTokens = 0;
  try {
    const [[number], names, [template], provider] = await Promise.all([
      rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from ${chapters} where work_id = ${job.workId} and state = 'published' and kind = 'chapter' and (position, id) <= (${row.position}, ${job.chapterId})`),
      ),
      db
        .select({ entityId: storyEntityNames.entityId, name: storyEntityNames.name, isAlias: storyEntityNames.isAlias })
        .from(storyEntityNames)
        .where(eq(storyEntityNames.workId, job.workId))
        .orderBy(storyEntityNames.entityId, storyEntityNames.isAlias, storyEntityNames.name)
        .limit(1000),
      db.select({ system: prompts.systemContent, user: prompts.userContent }).from(prompts).where(eq(prompts.code, "P10")),
      defaultProvider(),
    ]);
    const ladder = await ladderOf(job.workId);
    const prompt = renderLoadedPrompt("P10", template, {
      "work-title": row.workTitle,
      "chapter-number": String(number.n),
      "chapter-title": row.title,
      "chapter-text": Array.from(row.content).slice(0, SUMMARY_CHAPTER_CHARS).join(""),
      "known-entities": knownEntities(names) || "（无）",
      "realm-ladder": ladder.join("、") || "（未设定）",
    });
    const promptChars = provider.promptChars(prompt);
    promptTokens = tokensForChars(promptChars);
    try {
      reservation = await reserveGenerationTokens(
        db,
        job.userId,
        promptTokens,
        { description: `章节摘要：${row.title}`.slice(0, 200), model: provider.model, plotId: null, promptChars },
        { keep: 1 },
      );
    } catch (error) {
      if (error instanceof LedgerError) {
        const reason = error.status === 429 ? SUMMARY_MESSAGES.dailyCap : SUMMARY_MESSAGES.noTokens;
        return (await finish(db, job, "skipped", reason)) ? "skipped" : "lost";
      }
      throw error;
    }
    const { text: reply, usage } = await provider.completeWithUsage(prompt, AbortSignal.timeout(SUMMARY_CALL_TIMEOUT_MS));
    let parsed: ParsedSummary;
    try {
      parsed = parseSummaryReply(reply);
    } catch {
      throw new DomainError(SUMMARY_MESSAGES.unreadable, 502);
    }
    const done = await db
      .transaction(async (tx) => {
        if (!(await finish(tx, job, "done", null))) throw new LostLease();
        await settleGenerationTokens(tx, job.userId, reservation!.transactionId, settlement(usage, promptTokens, reply));
        await tx.insert(storyProposals).values([
          { workId: job.workId, chapterId: job.chapterId, kind: "summary" as const, content: parsed.summary },
          ...parsed.facts.map((f) => ({
            workId: job.workId,
            chapterId: job.chapterId,
            kind: "fact" as const,
            entityName: f.name,
            entityKind: f.kind,
            content: f.content,
            fromChapter: number.n,
          })),
          ...parsed.states.map((p) => ({
            workId: job.workId,
            chapterId: job.chapterId,
            kind: "state" as const,
            entityName: p.name,
            entityKind: "character" as const,
            content: describeEntry({ id: 0, entityId: 0, chapter: number.n, ...p.state }),
            fromChapter: number.n,
            state: p.state,
          })),
        ]);
        return true;
      })
      .catch((error) => {
        if (error instanceof LostLease) return false;
        throw error;
      });
    if (!done) {
      await refund(job, reservation.transactionId, promptTokens, row.title);
      return "lost";
    }
    return "done";
  } catch (error) {
    if (reservation) await refund(job, reservation.transactionId, promptTokens, row.title);
    const reason = error instanceof DomainError ? error.message : "AI服务暂时不可用";
    if (!(error instanceof DomainError)) console.error("summary job failed", job.id, error);
    await failed(job, reason);
    return job.attempts >= SUMMARY_JOB_ATTEMPTS ? "failed" : "retry";
  }
}

class LostLease extends Error {}

/** 周伯（老周、周老汉）、林晚: each entity's name with its aliases, for P10. */
function knownEntities(rows: { entityId: number; name: string; isAlias: boolean }[]): string {
  const byEntity = new Map<number, string[]>();
  for (const r of rows) byEntity.set(r.entityId, [...(byEntity.get(r.entityId) ?? []), r.name]);
  return [...byEntity.values()].map(([name, ...aliases]) => (aliases.length ? `${name}（${aliases.join("、")}）` : name)).join("、");
}

/** What a completed (not streamed) call is charged: the provider's usage, else the estimate (summaries, the AI 审读). */
export function settlement(usage: ReportedUsage | null, promptTokens: number, reply: string) {
  return usage
    ? { ...usage, metering: "actual" as const, outputChars: countChars(reply) }
    : { inputTokens: promptTokens, outputTokens: tokensFor(reply), metering: "estimate" as const, outputChars: countChars(reply) };
}

async function refund(job: Claimed, transactionId: number, promptTokens: number, title: string) {
  await db.transaction((tx) => refundGenerationTokens(tx, job.userId, transactionId, promptTokens, `章节摘要失败，退还Tokens：${title}`.slice(0, 200)));
}

/** Runs due jobs until none is left (or `max` ran); returns how many this call ran. */
export async function runSummaryJobs(max = 50): Promise<number> {
  let ran = 0;
  while (ran < max) {
    const job = await claimSummaryJob();
    if (!job) break;
    await runSummaryJob(job);
    ran++;
  }
  return ran;
}

// --- The author's answers --------------------------------------------------------------

/**
 * Accepts a proposal: a summary becomes the chapter's summary; a fact is added to the
 * entity with that name or alias (a new one, of the proposed kind or 角色, when none has
 * it) from the chapter it was proposed for. The proposal goes in the same transaction.
 */
export async function acceptProposal(userId: string, workId: number, proposalId: number): Promise<void> {
  await getOwnedWork(userId, workId);
  await db.transaction(async (tx) => {
    const [p] = await tx
      .delete(storyProposals)
      .where(and(eq(storyProposals.id, proposalId), eq(storyProposals.workId, workId)))
      .returning();
    if (!p) throw new DomainError(BIBLE_MESSAGES.proposalNotFound, 404);
    if (p.kind === "summary") {
      await saveChapterSummary(userId, workId, p.chapterId, p.content, tx);
      return;
    }
    if (p.kind === "state") {
      // A ledger entry goes to the character of that name or alias, checked like the author's own (decision 248).
      const name = normalizeName(p.entityName ?? "");
      const [known] = await tx
        .select({ entityId: storyEntityNames.entityId })
        .from(storyEntityNames)
        .where(and(eq(storyEntityNames.workId, workId), eq(storyEntityNames.name, name)));
      let entityId = known?.entityId;
      if (!entityId) {
        const [created] = await tx.insert(storyEntities).values({ workId, kind: "character", name }).returning({ id: storyEntities.id });
        entityId = created.id;
        const named = await tx.insert(storyEntityNames).values({ workId, name, entityId, isAlias: false }).onConflictDoNothing().returning({ name: storyEntityNames.name });
        if (named.length === 0) throw new DomainError(BIBLE_MESSAGES.nameTaken(name, name), 409);
      }
      await saveState(userId, workId, { entityId, chapter: p.fromChapter, ...(p.state as ProposedState) }, "ai", tx);
      return;
    }
    const fact = checkFact({ content: p.content, fromChapter: p.fromChapter });
    const name = normalizeName(p.entityName ?? "");
    const [known] = await tx
      .select({ entityId: storyEntityNames.entityId })
      .from(storyEntityNames)
      .where(and(eq(storyEntityNames.workId, workId), eq(storyEntityNames.name, name)));
    let entityId = known?.entityId;
    if (!entityId) {
      const [created] = await tx.insert(storyEntities).values({ workId, kind: p.entityKind ?? "character", name }).returning({ id: storyEntities.id });
      entityId = created.id;
      // Another tab may have just given the name to an entity: then this answer is refused whole.
      const named = await tx.insert(storyEntityNames).values({ workId, name, entityId, isAlias: false }).onConflictDoNothing().returning({ name: storyEntityNames.name });
      if (named.length === 0) throw new DomainError(BIBLE_MESSAGES.nameTaken(name, name), 409);
    }
    await tx.execute(sql`insert into story_facts (work_id, entity_id, content, from_chapter, source) values (${workId}, ${entityId}, ${fact.content}, ${fact.fromChapter}, 'ai')`);
  });
}

export async function rejectProposal(userId: string, workId: number, proposalId: number): Promise<void> {
  await getOwnedWork(userId, workId);
  const rows = await db
    .delete(storyProposals)
    .where(and(eq(storyProposals.id, proposalId), eq(storyProposals.workId, workId)))
    .returning({ id: storyProposals.id });
  if (rows.length === 0) throw new DomainError(BIBLE_MESSAGES.proposalNotFound, 404);
}

