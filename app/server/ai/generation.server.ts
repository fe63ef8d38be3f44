import { db, type Executor } from "~/db/client.server";
import { WRITING_MESSAGES } from "~/schemas/writing";
import { DomainError } from "~/server/platform/errors.server";
import {
  holdGenerationTokens,
  refundGenerationTokens,
  reserveGenerationTokens,
  settleGenerationTokens,
  TOKEN_MESSAGES,
} from "~/server/economy/ledger.server";
import {
  applyEditsToContext,
  loadGenerationContext,
  readSessionGenerationContext,
  saveGeneratedVersion,
  type GenerationContext,
  type WritingKind,
} from "./writing-projects.server";
import { defaultProviderFrom } from "./config.server";
import { AiError } from "./ai-errors.server";
import { CallAbortedError, withUsage, type TextStream } from "./http.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { recordGeneratedText } from "~/server/catalog/ai-labels.server";
import { renderLoadedPrompt } from "./prompt-templates.server";
import type { AiProvider, ChatPrompt } from "./provider.server";
import { generationValues, referenceSample } from "./render";
import { affordablePrefix, countChars, tokensForChars } from "~/utils/ai-tokens";

/**
 * One generation of a plot's text (docs/product.md: States and actions, Rules, Messages, Constants, D7):
 *
 * 1. `startGeneration` checks docs/product.md's preconditions in order, renders P01 (free
 *    writing) or P03 (imitation), finds the default provider, checks the balance covers
 *    the prompt, reserves the prompt's cost and opens the provider's stream. Anything
 *    that fails here fails before a byte is sent, and a reservation is refunded.
 * 2. `run` passes the text on as it arrives and charges the output as it streams: it
 *    holds output tokens ahead in blocks (one transaction per block, not per chunk) and
 *    cuts the text at what the balance (and the daily cap) covers, stopping cleanly when
 *    it is spent. The closing transaction settles the charge (decision 125) on the usage
 *    the provider reported when the whole answer was delivered, else on the estimate
 *       ceil(prompt chars / 4) + ceil(output chars sent / 4)
 *    (an abort, a cut at the balance or the length limit: only what was delivered), and
 *    saves the text as a new version of the plot, made current.
 * A provider failure refunds everything (no tokens for failed work, and the page puts
 * the old text back); a browser that goes away is charged for what was sent to it.
 */

/**
 * Output tokens held per transaction: 500 tokens cover 2,000 characters. The reservation
 * holds a smaller first block with the prompt, so the first text needs no transaction of
 * its own and a second generation of the same user is not starved by a large hold.
 * @internal
 */
export const OUTPUT_HOLD_TOKENS = 500;
/** @internal */
export const FIRST_HOLD_TOKENS = 100;

type Basis = Pick<GenerationResult, "inputTokens" | "outputTokens" | "metering">;

export type EndReason = "complete" | "tokens-exhausted" | "daily-cap" | "aborted" | "limit";

export interface GenerationInfo {
  plotId: string;
  model: string;
  promptTokens: number;
  /** The balance after the prompt's reservation. */
  balance: number;
}

export interface GenerationResult {
  reason: EndReason;
  text: string;
  /** The prompt's estimated cost (what was reserved). */
  promptTokens: number;
  /** What the charge rests on: the provider's reported usage (actual) or the estimate. */
  metering: "actual" | "estimate";
  inputTokens: number;
  outputTokens: number;
  outputChars: number;
  charged: number;
  /**
   * Tokens of the provider's reported usage that the balance or the daily cap could not
   * cover, and that were not charged (decision 153): the page says so in one line.
   */
  uncovered: number;
  balance: number;
  versionId: string | null;
  /** What to tell the user besides the text (tokens ran out, length limit, usage not covered). */
  notice?: string;
}

/**
 * A failure of ours (not the user's, not the provider's), logged where it happened and
 * told to the user with 500: 扣除Tokens失败, 生成失败，请重试 (decision 182).
 */
class GenerationFailure extends DomainError {
  constructor(message: string) {
    super(message, 500);
    this.name = "GenerationFailure";
  }
}

/** The longest text one generation may produce: far beyond any plot, but not endless. */
export function outputLimit(expectedWords: number): number {
  return Math.max(10 * expectedWords, 20_000);
}

export interface Prepared {
  userId: string;
  plotId: string;
  /** Names the generation in the ledger: `AI生成：<label>`, `生成失败，退还Tokens：<label>`. */
  plotTitle: string;
  prompt: ChatPrompt & { chars: number };
  promptTokens: number;
  expectedWords: number;
  /** The ledger row's description (default `AI生成：<plotTitle>`). */
  description?: string;
  /** The longest text it may produce (default outputLimit(expectedWords)). */
  maxChars?: number;
  /** Characters of the reference text's sample in the prompt (短篇仿写; the page shows it). */
  referenceChars?: number;
}

/** What the settling transaction does with the delivered text, besides the charge. */
export interface GenerationOutcome {
  content: string;
  model: string;
  tokensCharged: number;
  promptChars: number;
  outputChars: number;
  endReason: EndReason;
  transactionId: number;
  /** The line saying what of the reported usage was not charged (decision 153), if any. */
  uncoveredNotice?: string;
}

/**
 * Where a generation's text goes: a plot's new version (today's 生成), or a candidate of an
 * operation on a selection (decision 130). `settle` runs in the transaction that settles
 * the charge and returns the id the `done` event carries; `refunded` in the refund's.
 */
export interface GenerationSink {
  settle(tx: Executor, outcome: GenerationOutcome): Promise<string | null>;
  refunded?(tx: Executor, message: string): Promise<void>;
}

/**
 * A sink for text kept by its caller (a serial's continuation, decision 141): the delivered
 * text joins the generation log the AI labels read (decision 126), then `keep` stores it.
 */
export function generationLogSink(userId: string, keep: (tx: Executor, outcome: GenerationOutcome) => Promise<string | null>, refunded?: GenerationSink["refunded"]): GenerationSink {
  return {
    async settle(tx, outcome) {
      await recordGeneratedText(tx, userId, outcome.content);
      return keep(tx, outcome);
    },
    refunded,
  };
}

/** Today's 生成: the text joins the generation log and becomes the plot's current version. */
function plotVersionSink(userId: string, plotId: string): GenerationSink {
  return generationLogSink(userId, (tx, outcome) => saveGeneratedVersion(tx, plotId, outcome));
}

/**
 * Section 5's preconditions, in its order, then the prompt. Exported for the page,
 * which shows the estimated prompt cost before the author presses 生成.
 */
export async function prepareGeneration(userId: string, projectId: string, plotId: string | undefined, kind?: WritingKind) {
  return prepareFrom(userId, await loadGenerationContext(userId, projectId, { kind, plotId }), plotId);
}

function prepareFrom(userId: string, context: GenerationContext, plotId: string | undefined): Prepared {
  const { kind: projectKind, theme, characters, plots, prompts } = context;
  if (!theme.trim()) throw new DomainError(WRITING_MESSAGES.needTheme, 400);
  if (characters.length === 0) throw new DomainError(WRITING_MESSAGES.needCharacter, 400);
  const plot = plotId ? plots.find((p) => p.id === plotId) : undefined;
  if (plot && plot.characterIds.length === 0) throw new DomainError(WRITING_MESSAGES.needPlotCharacter, 400);
  if (!plotId) throw new DomainError(WRITING_MESSAGES.needPlot, 400);
  if (!plot) throw new DomainError(WRITING_MESSAGES.plotMissing, 404);
  const code = projectKind === "free" ? "P01" : "P03";
  // 短篇仿写 sends a bounded sample of the reference text (decision 155): where the template
  // puts {|reference-sample|}, else after the rest, so a template edited before it existed
  // still shows the model the style it is asked to imitate.
  const sample = code === "P03" ? referenceSample(context.referenceText) : "";
  let prompt = renderLoadedPrompt(code, prompts[code], generationValues({ theme, characters, plots, plot, referenceSample: sample }));
  const template = prompts[code];
  if (sample && template && !`${template.system}${template.user}`.includes("{|reference-sample|}")) {
    const user = `${prompt.user}\n\n${REFERENCE_SAMPLE_HEADING}\n${sample}`;
    prompt = { system: prompt.system, user, chars: countChars(prompt.system) + countChars(user) };
  }
  return {
    userId,
    plotId: plot.id,
    plotTitle: plot.title,
    prompt,
    promptTokens: tokensForChars(prompt.chars),
    expectedWords: plot.expectedWords,
    referenceChars: countChars(sample),
  };
}

/** The heading of the sample appended to a P03 template without {|reference-sample|}. */
const REFERENCE_SAMPLE_HEADING = "【参考作品节选（仅供模仿文风，不要照抄）】";

export class Generation {
  constructor(
    private readonly prepared: Prepared,
    private readonly transactionId: number,
    private readonly upstream: TextStream,
    readonly info: GenerationInfo,
    /** The caller's signal combined with `internal`: either ends the upstream call. */
    private readonly signal: AbortSignal,
    private readonly internal: AbortController,
    private readonly model: string,
    /** Output tokens the reservation already held. */
    private readonly initialHold: number,
    private readonly sink: GenerationSink = plotVersionSink(prepared.userId, prepared.plotId),
  ) {}

  /** The reader went away (the response stream was cancelled). */
  abort() {
    this.internal.abort();
  }

  /**
   * Streams to `onText` until the provider ends, the balance is spent, the output limit
   * is reached, the reader goes away or the provider fails; then settles or refunds.
   * Rejects only with a provider failure (everything refunded) or an empty answer.
   */
  async run(onText: (text: string) => void): Promise<GenerationResult> {
    const { userId, promptTokens, plotId } = this.prepared;
    const limit = this.prepared.maxChars ?? outputLimit(this.prepared.expectedWords);
    const parts: string[] = [];
    let sentChars = 0;
    // Output tokens held so far (the reservation took the first block with the prompt).
    let held = this.initialHold;
    let spent = false;
    // The daily cap, not the balance, stopped a hold.
    let capped = false;
    let reason: EndReason | undefined;
    let failure: unknown;

    // The next block is held in the background once half of the current one is used, so
    // the text rarely waits for the database; it waits only when it outruns the hold.
    let pending: Promise<void> | null = null;
    let holdError: unknown;
    const hold = (wanted: number) => {
      pending ??= holdGenerationTokens(db, userId, this.transactionId, wanted)
        .then((result) => {
          held += result.taken;
          if (result.taken < wanted) {
            spent = true;
            capped = result.capped;
          }
        })
        .catch((error) => {
          holdError = error;
          spent = true;
        })
        .finally(() => {
          pending = null;
        });
      return pending;
    };

    try {
      for await (const delta of this.upstream) {
        if (this.signal.aborted) {
          reason = "aborted";
          break;
        }
        let piece = delta;
        let chars = countChars(piece);
        if (sentChars + chars > limit) {
          piece = Array.from(piece).slice(0, limit - sentChars).join("");
          chars = countChars(piece);
          reason = "limit";
        }
        let needed = tokensForChars(sentChars + chars);
        if (needed > held && pending) await pending;
        if (needed > held && !spent) await hold(Math.max(needed - held, OUTPUT_HOLD_TOKENS));
        if (holdError) throw holdError;
        if (needed > held) {
          piece = affordablePrefix(piece, sentChars, held);
          chars = countChars(piece);
          needed = tokensForChars(sentChars + chars);
          reason = capped ? "daily-cap" : "tokens-exhausted";
        }
        if (piece) {
          try {
            onText(piece);
          } catch {
            reason = "aborted";
            break;
          }
          parts.push(piece);
          sentChars += chars;
        }
        if (reason) break;
        if (!spent && held - needed < OUTPUT_HOLD_TOKENS / 2) void hold(OUTPUT_HOLD_TOKENS);
      }
      reason ??= this.signal.aborted ? "aborted" : "complete";
    } catch (error) {
      if (error instanceof CallAbortedError || this.signal.aborted) reason = "aborted";
      else failure = error;
    }
    // Settling reads the row: a hold still in flight must land first.
    while (pending) await pending;

    if (failure || sentChars === 0) {
      const { balance } = await db.transaction(async (tx) => {
        const refund = await refundGenerationTokens(tx, userId, this.transactionId, promptTokens, `生成失败，退还Tokens：${this.prepared.plotTitle}`);
        if (this.sink.refunded) {
          const message =
            failure instanceof AiError
              ? failure.message
              : failure
                ? AI_MESSAGES.generationFailed
                : reason === "tokens-exhausted"
                  ? TOKEN_MESSAGES.insufficient
                  : reason === "daily-cap"
                    ? AI_MESSAGES.dailyCapReached
                    : reason === "aborted"
                      ? AI_MESSAGES.stoppedEmpty
                      : AI_MESSAGES.emptyOutput;
          await this.sink.refunded(tx, message);
        }
        return refund;
      });
      if (failure instanceof AiError) throw failure;
      if (failure) {
        console.error("generation failed", plotId, failure);
        throw new GenerationFailure(AI_MESSAGES.generationFailed);
      }
      if (reason === "tokens-exhausted") throw new DomainError(TOKEN_MESSAGES.insufficient, 402);
      if (reason === "daily-cap") throw new DomainError(AI_MESSAGES.dailyCapReached, 429);
      if (reason === "aborted") return { ...this.result(reason, "", { inputTokens: promptTokens, outputTokens: 0, metering: "estimate" }, 0, 0, null), balance };
      throw new AiError(AI_MESSAGES.emptyOutput, "empty");
    }

    const ended: EndReason = reason ?? "complete";
    const text = parts.join("");
    // The provider's count covers its whole answer: it is used only when all of it was
    // delivered. Otherwise only what was delivered is charged, by the estimate.
    const usage = ended === "complete" ? this.upstream.usage : null;
    const basis: Basis = usage
      ? { ...usage, metering: "actual" }
      : { inputTokens: promptTokens, outputTokens: tokensForChars(sentChars), metering: "estimate" };
    const { charged, balance, versionId, uncovered, uncoveredNotice } = await db.transaction(async (tx) => {
      const settled = await settleGenerationTokens(tx, userId, this.transactionId, { ...basis, outputChars: sentChars });
      const uncoveredNotice =
        settled.uncovered > 0 ? AI_MESSAGES.usageNotCovered(basis.inputTokens + basis.outputTokens, settled.charged, settled.uncovered, settled.capped) : undefined;
      const versionId = await this.sink.settle(tx, {
        content: text,
        model: this.model,
        tokensCharged: settled.charged,
        promptChars: this.prepared.prompt.chars,
        outputChars: sentChars,
        endReason: ended,
        transactionId: this.transactionId,
        uncoveredNotice,
      });
      return { ...settled, versionId, uncoveredNotice };
    });
    const result = { ...this.result(ended, text, basis, sentChars, charged, versionId), balance, uncovered };
    // The stream is held by the estimate; the provider's count arrives with its last
    // event. What it reports beyond the allowance is waived, and said (decision 153).
    if (uncoveredNotice) result.notice = result.notice ? `${result.notice}${uncoveredNotice}` : uncoveredNotice;
    return result;
  }

  private result(reason: EndReason, text: string, basis: Basis, outputChars: number, charged: number, versionId: string | null): GenerationResult {
    return {
      reason,
      text,
      promptTokens: this.prepared.promptTokens,
      ...basis,
      outputChars,
      charged,
      uncovered: 0,
      balance: this.info.balance,
      versionId,
      notice:
        reason === "tokens-exhausted"
          ? AI_MESSAGES.tokensExhausted
          : reason === "daily-cap"
            ? AI_MESSAGES.dailyCapReached
            : reason === "limit"
              ? AI_MESSAGES.lengthLimit
              : undefined,
    };
  }
}

/**
 * Starts reading the provider's answer at once, before `run` asks for it: the first
 * text is on its way while the reservation and the response headers are settled, and a
 * provider that sends a little and breaks off does not lose what it sent (a fetch body
 * that errors drops what it had received but not yet handed over).
 */
function readAhead(upstream: TextStream): TextStream {
  const first = upstream.next();
  first.catch(() => {}); // read (and thrown) below, or dropped with an aborted call
  const ahead = (async function* () {
    try {
      const head = await first;
      if (head.done) return;
      yield head.value;
      yield* upstream;
    } finally {
      // A reader that stops early closes the upstream call (a no-op once it has ended).
      await upstream.return(undefined);
    }
  })();
  return withUsage(ahead, () => upstream.usage);
}

/** The signed-in session of /api/generate: its id from the signed cookie, looked up with the project. */
export interface GenerationSession {
  sessionId: string;
}

export interface GenerationInput {
  projectId: string;
  plotId?: string;
  /** What the page shows (docs/product.md, Writing tools): saved first when it differs from what is saved. */
  theme?: string;
  content?: string;
}

/**
 * Everything before the first byte: preconditions, prompt, provider, balance, the
 * reservation and the provider's answer. Throws DomainError (login, the user's input or
 * balance), AiError (configuration or provider) or GenerationFailure.
 *
 * `user` is the user's id, or the session of /api/generate: the session, the project, its
 * prompt templates and the default API configuration are then read in one statement,
 * and the project is used only if it is the session user's (请先登录 when there is no
 * live session, before any other message; 写作项目不存在 when it is not theirs).
 *
 * When the session's balance is known, the provider is called while the reservation
 * runs (one round trip less before the first byte). The reservation stays the only
 * balance check that counts: if it fails, the provider call is aborted before any text
 * is read. A balance that already looks too small is refused before either starts, so
 * the provider is called only for a user who could pay when the request came in (the
 * hint is what the balance and the daily cap allow).
 */
export async function startGeneration(
  user: string | GenerationSession,
  input: GenerationInput,
  signal?: AbortSignal,
  kind?: WritingKind,
): Promise<Generation> {
  let userId: string;
  let balanceHint: number | undefined;
  let context: GenerationContext;
  if (typeof user === "string") {
    userId = user;
    context = await loadGenerationContext(userId, input.projectId, { kind, plotId: input.plotId, content: input.content });
  } else {
    const read = await readSessionGenerationContext(user.sessionId, input.projectId, { plotId: input.plotId, content: input.content });
    if (!read.sessionUser) throw new DomainError(WRITING_MESSAGES.needLogin, 401);
    userId = read.sessionUser.id;
    balanceHint = read.sessionUser.tokens;
    context = await loadGenerationContext(userId, input.projectId, { kind, read: read.context });
  }
  if (input.theme !== undefined || input.content !== undefined) {
    context = await applyEditsToContext(userId, input.projectId, input.plotId, context, input);
  }
  // The project's messages come before the configuration's.
  const drafted = prepareFrom(userId, context, input.plotId);
  const provider = defaultProviderFrom(context.apiConfig);
  return openGeneration(drafted, provider, { balanceHint, signal });
}

/**
 * The metered part every generation shares (a plot's 生成, and each candidate of an
 * operation on a selection, decision 130): the balance check and reservation, the
 * provider's stream, and a `Generation` whose `run` streams, holds, settles or refunds.
 */
export async function openGeneration(
  drafted: Prepared,
  provider: AiProvider,
  options: { balanceHint?: number; signal?: AbortSignal; sink?: GenerationSink } = {},
): Promise<Generation> {
  const { signal, sink } = options;
  const userId = drafted.userId;
  let balanceHint = options.balanceHint;
  // Charged for the prompt as this provider sends it (Gemini joins the two parts).
  const chars = provider.promptChars(drafted.prompt);
  const prepared: Prepared = { ...drafted, prompt: { ...drafted.prompt, chars }, promptTokens: tokensForChars(chars) };

  // The balance must cover the prompt and leave room for at least one token of output,
  // else nothing could be written.
  const keep = 1;
  // A hint that already looks too small leaves the reservation alone to refuse (with the
  // balance's or the daily cap's message), before the provider is called.
  if (balanceHint !== undefined && balanceHint < prepared.promptTokens + keep) balanceHint = undefined;
  const reserving = (async () => {
    try {
      // The balance check is the reservation itself (a conditional update). The first
      // output block is held in the same statement.
      return await reserveGenerationTokens(
        db,
        userId,
        prepared.promptTokens,
        {
          description: (prepared.description ?? `AI生成：${prepared.plotTitle}`).slice(0, 200),
          model: provider.model,
          // A continuation of a serial has no plot (decision 141): the column stays empty.
          plotId: prepared.plotId || null,
          promptChars: prepared.prompt.chars,
        },
        { keep, hold: FIRST_HOLD_TOKENS },
      );
    } catch (error) {
      if (error instanceof DomainError) throw error;
      console.error("token reservation failed", userId, error);
      throw new GenerationFailure(TOKEN_MESSAGES.deductFailed);
    }
  })();

  const internal = new AbortController();
  const combined = signal ? AbortSignal.any([signal, internal.signal]) : internal.signal;
  const open = () => provider.stream(prepared.prompt, combined).then(readAhead);
  let opening: Promise<TextStream> | undefined;
  if (balanceHint !== undefined) {
    opening = open();
    opening.catch(() => {}); // settled below, after the reservation
  }

  let reservation: { transactionId: number; balance: number; held: number };
  try {
    reservation = await reserving;
  } catch (error) {
    if (opening) {
      internal.abort();
      // An answer that already arrived is closed unread.
      void opening.then((upstream) => upstream.return(undefined)).catch(() => {});
    }
    throw error;
  }

  let upstream: TextStream;
  try {
    upstream = await (opening ?? open());
  } catch (error) {
    await db.transaction((tx) =>
      refundGenerationTokens(tx, userId, reservation.transactionId, prepared.promptTokens, `生成失败，退还Tokens：${prepared.plotTitle}`),
    );
    if (error instanceof AiError || error instanceof CallAbortedError) throw error;
    console.error("provider call failed", error);
    throw new AiError(AI_MESSAGES.serviceFailed, "network");
  }
  const info: GenerationInfo = {
    plotId: prepared.plotId,
    model: provider.model,
    promptTokens: prepared.promptTokens,
    // What the user has after the prompt (the output hold is not spent yet).
    balance: reservation.balance + reservation.held,
  };
  return new Generation(prepared, reservation.transactionId, upstream, info, combined, internal, provider.model, reservation.held, sink);
}
