import { createHash } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { plotVersions, profiles, textCandidates, textOperations, writingPlots, writingProjects } from "~/db/schema";
import {
  OPERATION_LIMITS,
  OPERATION_MESSAGES,
  TEXT_OPERATION_LABELS,
  WRITING_LIMITS,
  WRITING_MESSAGES,
  type OperationInput,
  type TextOperation,
} from "~/schemas/writing";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { pgErrorCode, UNIQUE_VIOLATION } from "~/server/platform/db-utils.server";
import { DomainError, domainErrorOf } from "~/server/platform/errors.server";
import {
  applyEditsToContext,
  loadGenerationContext,
  readSessionGenerationContext,
  type GenerationContext,
} from "./writing-projects.server";
import { defaultProviderFrom } from "./config.server";
import { openGeneration, outputLimit, type Generation, type GenerationResult, type GenerationSink } from "./generation.server";
import { recordGeneratedText } from "~/server/catalog/ai-labels.server";
import { loadPrompts, renderLoadedPrompt, type PromptCode } from "./prompt-templates.server";
import { describeCharacter } from "./render";
import { countChars } from "~/utils/ai-tokens";

/**
 * The editor's operations on a selection (docs/product.md D15, decision 130): 续写 from the
 * cursor, 改写 / 扩写 / 缩写 / 润色 on a selection, each with 1 to 3 candidates. Every
 * candidate is one generation on the shared metered path (`openGeneration`: reservation,
 * held output, settled on the reported usage, refunded on a provider failure), with its
 * own ledger row and receipt. Candidates are kept until the author accepts one (it becomes
 * a version of the plot, made current) or rejects them all.
 *
 * Two tabs, or a form posted twice, never pay twice for one request: the operation row is
 * created once per (user, request key), and its candidate rows with it, so a second
 * request with the same key starts no generation. Accepting takes the plot's row lock,
 * and an operation is accepted (or rejected) once; a text changed since the operation was
 * based on it is refused rather than overwritten.
 */

const OPERATION_PROMPTS: Record<TextOperation, PromptCode> = {
  rewrite: "P05",
  expand: "P06",
  condense: "P07",
  polish: "P08",
  continue: "P09",
};

const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
const textHash = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Non-empty lines, numbered from 1, with their offsets: the paragraphs a form without JavaScript names. */
function paragraphsOf(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let at = 0;
  for (const line of text.split("\n")) {
    if (line.trim()) out.push({ start: at, end: at + line.length });
    at += line.length + 1;
  }
  return out;
}

/** The range an operation works on, from the selection (with JavaScript) or a paragraph number. @internal */
export function operationRange(content: string, input: Pick<OperationInput, "operation" | "start" | "end" | "paragraph">): { start: number; end: number } {
  const continuing = input.operation === "continue";
  let start: number;
  let end: number;
  if (input.start !== undefined && input.end !== undefined) {
    start = Math.min(input.start, input.end);
    end = Math.max(input.start, input.end);
    if (end > content.length) throw new DomainError(OPERATION_MESSAGES.selectionRange, 400, "start");
    // A selection never splits a surrogate pair.
    const splits = (i: number) => i > 0 && i < content.length && /[\uDC00-\uDFFF]/.test(content[i]) && /[\uD800-\uDBFF]/.test(content[i - 1]);
    if (splits(start) || splits(end)) throw new DomainError(OPERATION_MESSAGES.selectionRange, 400, "start");
    if (continuing) start = end;
  } else {
    if (!content.trim()) throw new DomainError(OPERATION_MESSAGES.noText, 400);
    const paragraphs = paragraphsOf(content);
    if (input.paragraph === undefined || input.paragraph === "") {
      start = continuing ? content.length : 0;
      end = content.length;
    } else {
      const p = paragraphs[input.paragraph - 1];
      if (!p) throw new DomainError(OPERATION_MESSAGES.paragraph(paragraphs.length), 400, "paragraph");
      start = continuing ? p.end : p.start;
      end = p.end;
    }
  }
  if (continuing) {
    if (!content.slice(0, start).trim()) throw new DomainError(OPERATION_MESSAGES.needTextBefore, 400);
  } else {
    if (!content.slice(start, end).trim()) throw new DomainError(OPERATION_MESSAGES.needSelection, 400);
    if (countChars(content.slice(start, end)) > OPERATION_LIMITS.selection) throw new DomainError(OPERATION_MESSAGES.selectionTooLong, 400);
  }
  return { start, end };
}

/** How long a candidate should be: 续写 a fixed length, the others relative to the selection. */
function expectedWords(kind: TextOperation, sourceChars: number): number {
  if (kind === "continue") return OPERATION_LIMITS.continueWords;
  if (kind === "expand") return Math.max(2 * sourceChars, 50);
  if (kind === "condense") return Math.max(Math.ceil(sourceChars / 2), 10);
  return Math.max(sourceChars, 10);
}

const tail = (text: string, n: number) => Array.from(text).slice(-n).join("");
const head = (text: string, n: number) => Array.from(text).slice(0, n).join("");

/** Records a candidate's text when its generation settles, or its failure when refunded. */
function candidateSink(userId: string, candidateId: string, source: string): GenerationSink {
  return {
    async settle(tx, outcome) {
      // The generation log (decision 126), without the author's own text the candidate kept.
      await recordGeneratedText(tx, userId, outcome.content, source);
      await tx
        .update(textCandidates)
        .set({
          status: "ready",
          content: outcome.content,
          model: outcome.model,
          tokensCharged: outcome.tokensCharged,
          endReason: outcome.endReason,
          transactionId: outcome.transactionId,
        })
        .where(eq(textCandidates.id, candidateId));
      return candidateId;
    },
    async refunded(tx, message) {
      await tx.update(textCandidates).set({ status: "failed", error: message }).where(eq(textCandidates.id, candidateId));
    },
  };
}

export type OperationEvent =
  | { event: "text"; index: number; text: string }
  | { event: "done"; index: number; summary: Omit<GenerationResult, "text"> }
  | { event: "error"; index: number; message: string };

export interface OperationStart {
  operationId: string;
  /** Each candidate's model and reserved prompt cost, or why it did not start. */
  candidates: ({ index: number; model: string; promptTokens: number } | { index: number; error: string })[];
  balance: number;
}

export class OperationRun {
  constructor(
    readonly info: OperationStart,
    private readonly generations: { index: number; generation: Generation }[],
    private readonly userId: string,
  ) {}

  abort() {
    for (const g of this.generations) g.generation.abort();
  }

  /** Streams every candidate at once; resolves with the balance when all have settled or failed. */
  async run(onEvent: (e: OperationEvent) => void): Promise<{ balance: number }> {
    await Promise.all(
      this.generations.map(({ index, generation }) =>
        generation
          .run((text) => onEvent({ event: "text", index, text }))
          .then(({ text: _text, ...summary }) => onEvent({ event: "done", index, summary }))
          .catch((error) => onEvent({ event: "error", index, message: domainErrorOf(error, AI_MESSAGES.generationFailed).message })),
      ),
    );
    const [row] = await db.select({ tokens: profiles.tokens }).from(profiles).where(eq(profiles.id, this.userId));
    return { balance: Number(row?.tokens ?? 0) };
  }
}

/** A request key used before: the operation it made (409 for the stream, a redirect for the page). */
export class OperationSubmitted extends DomainError {
  constructor(readonly operationId: string) {
    super(OPERATION_MESSAGES.submitted, 409);
    this.name = "OperationSubmitted";
  }
}

/**
 * Checks the request (the AI configuration, the selection in the text on screen), then
 * saves that text (when it differs), records the
 * operation and its candidates, and opens one metered generation per candidate. Throws
 * DomainError (the request, login, balance), AiError (configuration, provider) when no
 * candidate could start, and then nothing is left behind; `OperationSubmitted` for a key
 * already used.
 */
export async function startOperation(
  user: string | { sessionId: string },
  input: OperationInput,
  signal?: AbortSignal,
): Promise<OperationRun> {
  let userId: string;
  let balanceHint: number | undefined;
  let context: GenerationContext;
  if (typeof user === "string") {
    userId = user;
    context = await loadGenerationContext(userId, input.projectId, { plotId: input.plotId, content: input.content });
  } else {
    const read = await readSessionGenerationContext(user.sessionId, input.projectId, { plotId: input.plotId, content: input.content });
    if (!read.sessionUser) throw new DomainError(WRITING_MESSAGES.needLogin, 401);
    userId = read.sessionUser.id;
    balanceHint = read.sessionUser.tokens;
    context = await loadGenerationContext(userId, input.projectId, { read: read.context });
  }
  const plotMeta = context.plots.find((p) => p.id === input.plotId);
  if (!plotMeta) throw new DomainError(WRITING_MESSAGES.plotMissing, 404);
  const [earlier] = await db
    .select({ id: textOperations.id })
    .from(textOperations)
    .where(and(eq(textOperations.userId, userId), eq(textOperations.requestKey, input.requestKey)));
  if (earlier) throw new OperationSubmitted(earlier.id);
  // Everything that can refuse the request is checked before the text on screen is saved
  // over the plot: a refused operation writes nothing, no version either (issue 28).
  const provider = defaultProviderFrom(context.apiConfig);
  if (input.content !== undefined) {
    operationRange(input.content, input);
    context = await applyEditsToContext(userId, input.projectId, input.plotId, context, { content: input.content });
  }

  const code = OPERATION_PROMPTS[input.operation];
  const template = (await loadPrompts([code])).get(code);

  // The operation and its candidate rows, once per request key, on the text as saved now.
  let created: { operationId: string; candidateIds: string[]; content: string; start: number; end: number };
  try {
    created = await db.transaction(async (tx) => {
      const [plot] = await tx
        .select({ content: writingPlots.content })
        .from(writingPlots)
        .where(and(eq(writingPlots.id, input.plotId), eq(writingPlots.projectId, input.projectId)))
        .for("update");
      if (!plot) throw new DomainError(WRITING_MESSAGES.plotMissing, 404);
      const { start, end } = operationRange(plot.content, input);
      const [operation] = await tx
        .insert(textOperations)
        .values({
          userId,
          plotId: input.plotId,
          requestKey: input.requestKey,
          kind: input.operation,
          selectionStart: start,
          selectionEnd: end,
          source: input.operation === "continue" ? "" : plot.content.slice(start, end),
          baseHash: textHash(plot.content),
          candidateCount: input.count,
        })
        .returning({ id: textOperations.id });
      const rows = await tx
        .insert(textCandidates)
        .values(Array.from({ length: input.count }, (_, index) => ({ operationId: operation.id, index })))
        .returning({ id: textCandidates.id, index: textCandidates.index });
      rows.sort((a, b) => a.index - b.index);
      return { operationId: operation.id, candidateIds: rows.map((r) => r.id), content: plot.content, start, end };
    });
  } catch (error) {
    if (pgErrorCode(error) === UNIQUE_VIOLATION) {
      const [row] = await db
        .select({ id: textOperations.id })
        .from(textOperations)
        .where(and(eq(textOperations.userId, userId), eq(textOperations.requestKey, input.requestKey)));
      if (row) throw new OperationSubmitted(row.id);
    }
    throw error;
  }

  const { operationId, candidateIds, content, start, end } = created;
  const source = content.slice(start, end);
  const forget = () => db.delete(textOperations).where(eq(textOperations.id, operationId));
  let generations: { index: number; generation: Generation }[];
  const failures: { index: number; error: unknown }[] = [];
  try {
    const prompt = renderLoadedPrompt(code, template, {
      synopsis: context.theme.trim() || "无",
      "character-setting": context.characters.map(describeCharacter).join("\n\n") || "无",
      "key-moment": `${plotMeta.title}：${plotMeta.summary}`,
      "selected-text": source,
      "preceding-text": tail(content.slice(0, start), OPERATION_LIMITS.before) || "无",
      "following-text": head(content.slice(end), OPERATION_LIMITS.after) || "无",
      "expected-word-count": String(expectedWords(input.operation, countChars(source))),
    });
    const label = TEXT_OPERATION_LABELS[input.operation];
    const words = expectedWords(input.operation, countChars(source));
    const opened = await Promise.all(
      candidateIds.map(async (candidateId, index) => {
        try {
          const generation = await openGeneration(
            {
              userId,
              plotId: input.plotId,
              plotTitle: `${plotMeta.title}（${label}）`,
              description: `AI${label}：${plotMeta.title}（候选${index + 1}/${input.count}）`,
              prompt,
              promptTokens: 0,
              expectedWords: words,
              maxChars: outputLimit(words),
            },
            provider,
            { balanceHint, signal, sink: candidateSink(userId, candidateId, source) },
          );
          return { index, generation };
        } catch (error) {
          failures.push({ index, error });
          await db
            .update(textCandidates)
            .set({ status: "failed", error: domainErrorOf(error, AI_MESSAGES.generationFailed).message })
            .where(eq(textCandidates.id, candidateId));
          return null;
        }
      }),
    );
    generations = opened.filter((g): g is { index: number; generation: Generation } => g !== null);
  } catch (error) {
    await forget();
    throw error;
  }
  if (generations.length === 0) {
    // Nothing started (every reservation was refused or refunded): nothing is left behind.
    await forget();
    throw failures.sort((a, b) => a.index - b.index)[0].error;
  }
  const first = generations[0].generation.info;
  return new OperationRun(
    {
      operationId,
      candidates: candidateIds.map((_, index) => {
        const g = generations.find((x) => x.index === index);
        if (g) return { index, model: g.generation.info.model, promptTokens: g.generation.info.promptTokens };
        return { index, error: domainErrorOf(failures.find((f) => f.index === index)?.error, AI_MESSAGES.generationFailed).message };
      }),
      balance: Math.min(...generations.map((g) => g.generation.info.balance), first.balance),
    },
    generations,
    userId,
  );
}

/** An operation of the user's project, with its candidates in order (the page shows it as differences). */
export async function getOperation(userId: string, projectId: string, operationId: string) {
  if (!isUuid(operationId) || !isUuid(projectId)) throw new DomainError(OPERATION_MESSAGES.operationMissing, 404);
  const [row] = await db
    .select({ operation: textOperations })
    .from(textOperations)
    .innerJoin(writingPlots, eq(writingPlots.id, textOperations.plotId))
    .innerJoin(writingProjects, eq(writingProjects.id, writingPlots.projectId))
    .where(and(eq(textOperations.id, operationId), eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)));
  if (!row) throw new DomainError(OPERATION_MESSAGES.operationMissing, 404);
  const candidates = await db
    .select({
      id: textCandidates.id,
      index: textCandidates.index,
      status: textCandidates.status,
      content: textCandidates.content,
      model: textCandidates.model,
      tokensCharged: textCandidates.tokensCharged,
      endReason: textCandidates.endReason,
      error: textCandidates.error,
      transactionId: textCandidates.transactionId,
    })
    .from(textCandidates)
    .where(eq(textCandidates.operationId, operationId))
    .orderBy(asc(textCandidates.index));
  return { ...row.operation, candidates };
}

async function lockOperation(tx: Executor, userId: string, projectId: string, operationId: string) {
  if (!isUuid(operationId) || !isUuid(projectId)) throw new DomainError(OPERATION_MESSAGES.operationMissing, 404);
  // The plot's row first (every write of its text takes it), then the operation's.
  const [plot] = await tx
    .select({ id: writingPlots.id, content: writingPlots.content })
    .from(writingPlots)
    .innerJoin(writingProjects, eq(writingProjects.id, writingPlots.projectId))
    .where(
      and(
        eq(writingProjects.id, projectId),
        eq(writingProjects.userId, userId),
        sql`${writingPlots.id} = (select plot_id from text_operations where id = ${operationId} and user_id = ${userId})`,
      ),
    )
    .for("update", { of: writingPlots });
  if (!plot) throw new DomainError(OPERATION_MESSAGES.operationMissing, 404);
  const [operation] = await tx.select().from(textOperations).where(eq(textOperations.id, operationId)).for("update");
  if (!operation) throw new DomainError(OPERATION_MESSAGES.operationMissing, 404);
  if (operation.status !== "open") throw new DomainError(OPERATION_MESSAGES.operationClosed, 409);
  return { plot, operation };
}

/**
 * Accepts one candidate: the selection is replaced by it (续写: it is inserted at the
 * cursor) and the result becomes a new version of the plot, made current, as a finished
 * generation does. Once per operation; refused when the text changed since.
 */
export async function acceptCandidate(userId: string, projectId: string, operationId: string, index: number): Promise<{ plotId: string; versionId: string }> {
  return db.transaction(async (tx) => {
    const { plot, operation } = await lockOperation(tx, userId, projectId, operationId);
    if (!Number.isSafeInteger(index) || index < 0) throw new DomainError(OPERATION_MESSAGES.candidateMissing, 404);
    const [candidate] = await tx
      .select()
      .from(textCandidates)
      .where(and(eq(textCandidates.operationId, operationId), eq(textCandidates.index, index)));
    if (!candidate) throw new DomainError(OPERATION_MESSAGES.candidateMissing, 404);
    if (candidate.status !== "ready" || !candidate.content) throw new DomainError(OPERATION_MESSAGES.candidateEmpty, 409);
    if (textHash(plot.content) !== operation.baseHash) throw new DomainError(OPERATION_MESSAGES.textChanged, 409);
    const content = plot.content.slice(0, operation.selectionStart) + candidate.content + plot.content.slice(operation.selectionEnd);
    if (content.length > WRITING_LIMITS.plotContent) throw new DomainError(OPERATION_MESSAGES.tooLongAfter, 400);
    const [version] = await tx
      .insert(plotVersions)
      .values({
        plotId: plot.id,
        kind: "generation",
        operation: operation.kind,
        content,
        model: candidate.model,
        tokensCharged: candidate.tokensCharged,
        outputChars: countChars(candidate.content),
        endReason: candidate.endReason,
        transactionId: candidate.transactionId,
      })
      .returning({ id: plotVersions.id });
    await tx.update(writingPlots).set({ content, currentVersionId: version.id, updatedAt: new Date() }).where(eq(writingPlots.id, plot.id));
    await tx.update(writingProjects).set({ updatedAt: new Date() }).where(eq(writingProjects.id, projectId));
    await tx
      .update(textOperations)
      .set({ status: "accepted", acceptedIndex: index, versionId: version.id })
      .where(eq(textOperations.id, operationId));
    return { plotId: plot.id, versionId: version.id };
  });
}

/** Rejects every candidate: the text stays as it was (they were paid for; they are not kept on offer). */
export async function rejectOperation(userId: string, projectId: string, operationId: string): Promise<{ plotId: string }> {
  return db.transaction(async (tx) => {
    const { plot } = await lockOperation(tx, userId, projectId, operationId);
    await tx.update(textOperations).set({ status: "rejected" }).where(eq(textOperations.id, operationId));
    return { plotId: plot.id };
  });
}
