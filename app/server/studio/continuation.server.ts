import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { chapters, formSubmissions, profiles, sessions, works } from "~/db/schema";
import { defaultChapterTitle, SERIES_MESSAGES, type ContinueInput, type ContinueSaveInput } from "~/schemas/series";
import { WRITING_MESSAGES } from "~/schemas/writing";
import { stripBeatMarkers } from "~/schemas/outline";
import { DEFAULT_API_CONFIG_JSON, defaultProviderFrom, type DefaultApiConfig } from "~/server/ai/config.server";
import { generationLogSink, openGeneration, type Generation, type GenerationSession } from "~/server/ai/generation.server";
import { jsonColumn, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { FORM_TOKEN_MESSAGES } from "~/server/platform/form-tokens.server";
import { generationAllowance } from "~/server/economy/ledger.server";
import { liveSession } from "~/server/identity/session.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { publishedChapterCount } from "./bible.server";
import { assembleContinuationContext, CONTINUATION_WORDS } from "./context.server";
import { newChapterFromText } from "./from-writing.server";

/**
 * 连载续写 (docs/product.md#series-continuation, decisions 141 and 142): the next chapter of
 * the author's own serial, generated from the P04 prompt assembleContinuationContext
 * builds, on the shared metered path (openGeneration: reservation, held output, settled on
 * the provider's reported usage, refunded on a provider failure). The delivered text joins
 * the generation log (so the chapter it becomes carries its AI label, decision 126) and is
 * kept with the page's one-time request key in form_submissions (decision 141): a key is
 * claimed before the provider is called, so a second tab or a resubmitted form with the
 * same key starts nothing and is charged nothing, and a page without JavaScript finds the
 * text again by its key. The author then saves the edited text as a chapter at the end of
 * the work, 存稿 or published, through the studio's insertChapter (as 存为章节 does).
 */

const CONTINUATION_KIND = "continuation";

export type SeriesWork = Awaited<ReturnType<typeof getOwnedWork>>;

/** The author's series works, for the page's picker (the most recently updated first). */
export async function listOwnSeries(userId: string) {
  return db
    .select({ id: works.id, title: works.title })
    .from(works)
    .where(and(eq(works.userId, userId), eq(works.type, "series")))
    .orderBy(desc(works.updatedAt), asc(works.id))
    .limit(200);
}

/** The author's own series work: 404 for another's (or none), a refusal for a work of another type. */
export async function ownedSeries(userId: string, workId: number): Promise<SeriesWork> {
  const work = await getOwnedWork(userId, workId);
  if (work.type !== "series") throw new DomainError(SERIES_MESSAGES.notSeries, 400);
  return work;
}

/** Published chapters (the reader's numbering, which the continuation follows) and the others (存稿, scheduled). */
export async function chapterCounts(workId: number): Promise<{ published: number; unpublished: number }> {
  const [published, [row]] = await Promise.all([
    publishedChapterCount(workId),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(chapters)
      .where(and(eq(chapters.workId, workId), ne(chapters.state, "published"))),
  ]);
  return { published, unpublished: Number(row?.n ?? 0) };
}

/** Checks a chapter number: 1 .. the chapter after the last published one. */
export function checkChapter(chapter: number, published: number): void {
  if (!Number.isSafeInteger(chapter) || chapter < 1 || chapter > published + 1) {
    throw new DomainError(SERIES_MESSAGES.chapterRange(published + 1), 400, "chapter");
  }
}

/** What a request key holds: still generating, or the delivered text and its charge. */
export type ContinuationResult =
  | { state: "running"; workId: number; chapter: number }
  | { state: "done"; workId: number; chapter: number; text: string; charged: number; model: string; endReason: string; transactionId: number; notice?: string };

/** The key was used before: what it holds (the stream answers 409, the page shows the text). */
export class ContinuationSubmitted extends DomainError {
  constructor(readonly result: ContinuationResult) {
    super(result.state === "running" ? SERIES_MESSAGES.running : SERIES_MESSAGES.submitted, 409);
    this.name = "ContinuationSubmitted";
  }
}

const parse = (raw: string): ContinuationResult | null => {
  try {
    return JSON.parse(raw) as ContinuationResult;
  } catch {
    return null;
  }
};

/** The result a user's request key holds, null when it holds none (never used, refunded, or another user's). */
export async function continuationResult(userId: string, key: string): Promise<ContinuationResult | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) return null;
  const [row] = await db.select().from(formSubmissions).where(eq(formSubmissions.token, key));
  if (!row || row.userId !== userId || row.kind !== CONTINUATION_KIND) return null;
  return parse(row.resultId);
}

async function existingClaim(userId: string, key: string): Promise<DomainError | null> {
  const [row] = await db.select().from(formSubmissions).where(eq(formSubmissions.token, key));
  if (!row) return null;
  if (row.userId !== userId || row.kind !== CONTINUATION_KIND) return new DomainError(FORM_TOKEN_MESSAGES.usedElsewhere, 409);
  const result = parse(row.resultId);
  return result ? new ContinuationSubmitted(result) : new DomainError(SERIES_MESSAGES.submitted, 409);
}

const forget = (executor: Executor, key: string) => executor.delete(formSubmissions).where(eq(formSubmissions.token, key));

/**
 * Who starts a continuation: a user's id (the /series-writing action, behind its guard),
 * or the session of /api/continue, looked up in the same statement as the work.
 */
export type ContinuationUser = string | GenerationSession;

/**
 * In one statement: the user (by id, or the live session's), what generation may take
 * from them now (the balance, or less under the daily cap: the reservation's hint), their
 * own work with its type, title and published chapters (null: not theirs, or none,
 * answered as ownedSeries answers it), the default API configuration, and the claim of
 * the request key (decision 278): inserted by the same statement only when the work is
 * the user's series and the chapter is in range, so a refused request claims nothing and
 * the claim costs no round trip of its own. `claimed` false with the checks passed: the
 * key was used before. No row: no live session.
 */
async function readAndClaimContinuation(user: ContinuationUser, input: ContinueInput) {
  const owner =
    typeof user === "string" ? sql`${user}::uuid` : sql`(select ${sessions.userId} from ${sessions} where ${liveSession(user.sessionId)})`;
  const work = Number.isSafeInteger(input.workId) && input.workId > 0 ? input.workId : null;
  const chapter = Number.isSafeInteger(input.chapter) ? input.chapter : null;
  const running: ContinuationResult = { state: "running", workId: input.workId, chapter: input.chapter };
  type Row = {
    user_id: string;
    allowance: number | string;
    id: number | string | null;
    title: string | null;
    type: string | null;
    published: number | string | null;
    api_config: unknown;
    claimed: boolean;
  };
  const [row] = rowsOf<Row>(
    await db.execute(sql`
      with start as (
        select ${profiles.id} as user_id, ${generationAllowance} as allowance, w.id, w.title, w.type,
          (select count(*)::int from ${chapters} c where c.work_id = w.id and c.state = 'published' and c.kind = 'chapter') as published,
          ${DEFAULT_API_CONFIG_JSON} as api_config
        from ${profiles} left join ${works} w on w.id = ${work} and w.user_id = ${profiles.id}
        where ${profiles.id} = ${owner}
      ), claim as (
        -- The primary key lets one request in, whether the other came earlier or at the same moment.
        insert into ${formSubmissions} (token, user_id, kind, result_id)
        select ${input.requestKey}, s.user_id, ${CONTINUATION_KIND}, ${JSON.stringify(running)}
        from start s
        where s.type = 'series' and ${chapter}::int between 1 and s.published + 1
        on conflict do nothing
        returning token
      )
      select s.*, exists (select 1 from claim) as claimed from start s`),
  );
  if (!row) return null;
  return {
    userId: row.user_id,
    allowance: Number(row.allowance),
    work: row.id === null ? null : { id: Number(row.id), title: row.title ?? "", type: row.type ?? "" },
    published: Number(row.published ?? 0),
    apiConfig: jsonColumn<DefaultApiConfig>(row.api_config) ?? null,
    claimed: row.claimed === true,
  };
}

const valueOf = <T>(result: PromiseSettledResult<T>): T => {
  if (result.status === "rejected") throw result.reason;
  return result.value;
};

/**
 * Everything before the first byte of 生成下一章: the work (the user's own series), the
 * chapter number, the request key (claimed once), the prompt, the provider, the balance
 * and the reservation. Throws DomainError (the request, balance), ContinuationSubmitted
 * (the key was used), AiError (configuration or provider); a failure leaves the key free.
 *
 * One round trip (four statements) before the provider is called (decisions 144 and
 * 278), the session's lookup included: one statement reads the session's user, the work,
 * its published chapters, the balance and the provider and claims the key, while the
 * prompt's three statements go out beside it; then the reservation runs while the
 * provider is called, as /api/generate does. Errors are still reported in the order the
 * checks were made (the session, the work, the chapter, the key, then the prompt and the
 * configuration, which free the key again), whatever finishes first.
 */
export async function startContinuation(
  user: ContinuationUser,
  input: ContinueInput,
  signal?: AbortSignal,
): Promise<{ generation: Generation; chapter: number; title: string; cliches: string[] }> {
  // The checks and the claim (one statement) run while the prompt is assembled.
  const checkedAndClaimed = (async () => {
    const read = await readAndClaimContinuation(user, input);
    // 请先登录 before any other message.
    if (!read) throw new DomainError(WRITING_MESSAGES.needLogin, 401);
    // Not the user's work, or none: the usual answers (404, 不是连载) from the usual check.
    if (!read.work) {
      await ownedSeries(read.userId, input.workId);
      throw new DomainError(SERIES_MESSAGES.workMissing, 404);
    }
    const work = read.work;
    if (work.type !== "series") throw new DomainError(SERIES_MESSAGES.notSeries, 400);
    checkChapter(input.chapter, read.published);
    if (!read.claimed) throw (await existingClaim(read.userId, input.requestKey)) ?? new DomainError(SERIES_MESSAGES.submitted, 409);
    return { ...read, work };
  })();
  const [checked, assembled] = await Promise.allSettled([
    checkedAndClaimed,
    assembleContinuationContext(input.workId, input.chapter, input.plan),
  ]);
  const read = valueOf(checked);
  const { userId, work } = read;
  try {
    const context = valueOf(assembled);
    const provider = defaultProviderFrom(read.apiConfig);
    const label = `《${work.title}》第${input.chapter}章`;
    const sink = generationLogSink(
      userId,
      async (tx, outcome) => {
        const done: ContinuationResult = {
          state: "done",
          workId: work.id,
          chapter: input.chapter,
          text: outcome.content,
          charged: outcome.tokensCharged,
          model: outcome.model,
          endReason: outcome.endReason,
          transactionId: outcome.transactionId,
          ...(outcome.uncoveredNotice ? { notice: outcome.uncoveredNotice } : {}),
        };
        await tx.update(formSubmissions).set({ resultId: JSON.stringify(done) }).where(eq(formSubmissions.token, input.requestKey));
        return String(outcome.transactionId);
      },
      // Refunded (a provider failure, nothing delivered): nothing was charged, the key may be used again.
      async (tx) => {
        await forget(tx, input.requestKey);
      },
    );
    const generation = await openGeneration(
      {
        userId,
        plotId: "",
        plotTitle: label,
        description: `AI续写：${label}`,
        prompt: { ...context.prompt, chars: context.chars },
        promptTokens: context.estimatedTokens,
        expectedWords: CONTINUATION_WORDS,
      },
      provider,
      // The balance as read with the work: the provider is called while the reservation runs
      // (the reservation stays the check that counts; decision 144).
      { signal, sink, balanceHint: read.allowance },
    );
    // The 套话 the prompt named, to count in the result (decision 257).
    return { generation, chapter: input.chapter, title: work.title, cliches: context.voice.cliches };
  } catch (error) {
    await forget(db, input.requestKey);
    throw error;
  }
}

/** 存为草稿 / 发布: the edited text becomes a new chapter at the end of the work, as 存为章节 does (newChapterFromText). */
export async function saveContinuation(userId: string, input: ContinueSaveInput, chapter: number): Promise<{ workId: number; chapterId: number; mode: "draft" | "publish" }> {
  const work = await ownedSeries(userId, input.workId);
  // The 细纲's beat markers (decision 256) are the page's, not the chapter's.
  const text = stripBeatMarkers(input.content).replace(/^\s+|\s+$/gu, "");
  if (!text) throw new DomainError(SERIES_MESSAGES.emptyText, 400, "content");
  const title = input.title?.trim() || defaultChapterTitle(chapter);
  const chapterId = await newChapterFromText(userId, work.id, { title, text, mode: input.mode, formToken: input.formToken });
  return { workId: work.id, chapterId, mode: input.mode };
}
