import { and, desc, eq, exists, gt, lt, or, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { favorites, profiles, workPurchases, works } from "~/db/schema";
import { WRITING_LIMITS, WRITING_MESSAGES } from "~/schemas/writing";
import { countWords } from "~/utils/text";
import { getChapterByOrder } from "~/server/catalog/chapter-numbers.server";
import { DomainError } from "~/server/platform/errors.server";
import {
  refundGenerationTokens,
  reserveGenerationTokens,
  settleGenerationTokens,
} from "~/server/economy/ledger.server";
import { audienceFilter, normalizeQuery, substringMatch } from "~/server/catalog/search-sql.server";
import type { SessionUser } from "~/server/identity/session.server";
import { getWorkForViewer } from "~/server/catalog/works.server";
import { getProject, replaceWithAnalysis } from "./writing-projects.server";
import { defaultProvider } from "./config.server";
import { AiError } from "./ai-errors.server";
import { CallAbortedError } from "./http.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";
import { parseAnalysis } from "./analysis-parse";
import { renderPrompt } from "./prompt-templates.server";
import type { ReportedUsage } from "./sse.server";
import { countChars, tokensFor, tokensForChars } from "~/utils/ai-tokens";

type Viewer = Pick<SessionUser, "id" | "showR18" | "showAi">;

/** Pasted text is measured like a work (non-whitespace characters); this caps the raw size. */
const PASTE_MAX_CHARS = 100_000;

export interface SourceOption {
  id: number;
  title: string;
  authorNickname: string;
  wordCount: number;
  relation: "own" | "purchased" | "free";
}

/**
 * The reference-work picker (docs/product.md: Rules): single_chapter works under 20,000
 * characters that the user may read in full: their own, those they bought, and free
 * ones (those they follow, and any free work matching `query`).
 */
export async function listSourceWorks(viewer: Viewer, query = ""): Promise<SourceOption[]> {
  const eligible = and(
    eq(works.type, "single_chapter"),
    gt(works.wordCount, 0),
    lt(works.wordCount, WRITING_LIMITS.sourceChars),
  );
  const columns = {
    id: works.id,
    title: works.title,
    authorNickname: profiles.nickname,
    wordCount: works.wordCount,
    userId: works.userId,
    visibility: works.visibility,
  };
  const mine = db
    .select(columns)
    .from(works)
    .innerJoin(profiles, eq(profiles.id, works.userId))
    .where(
      and(
        eligible,
        or(
          eq(works.userId, viewer.id),
          exists(
            db
              .select({ one: sql`1` })
              .from(workPurchases)
              .where(and(eq(workPurchases.workId, works.id), eq(workPurchases.userId, viewer.id))),
          ),
          and(
            eq(works.visibility, "public"),
            exists(
              db
                .select({ one: sql`1` })
                .from(favorites)
                .where(and(eq(favorites.workId, works.id), eq(favorites.userId, viewer.id))),
            ),
            ...audienceFilter(viewer),
          ),
        ),
      ),
    )
    .orderBy(desc(works.createdAt))
    .limit(100);
  const q = normalizeQuery(query);
  const found = q
    ? db
        .select(columns)
        .from(works)
        .innerJoin(profiles, eq(profiles.id, works.userId))
        .where(and(eligible, eq(works.visibility, "public"), ...audienceFilter(viewer), substringMatch(q)))
        .orderBy(desc(works.createdAt))
        .limit(20)
    : Promise.resolve([]);
  const [a, b] = await Promise.all([mine, found]);
  const seen = new Set<number>();
  const out: SourceOption[] = [];
  for (const w of [...a, ...b]) {
    if (seen.has(w.id)) continue;
    seen.add(w.id);
    out.push({
      id: w.id,
      title: w.title,
      authorNickname: w.authorNickname,
      wordCount: w.wordCount,
      relation: w.userId === viewer.id ? "own" : w.visibility === "public-vip" ? "purchased" : "free",
    });
  }
  return out;
}

/** @internal */
export interface Source {
  workId: number | null;
  title: string;
  text: string;
}

/**
 * The text to analyse: a work the user may read in full (own, bought or free; section
 * 5's single_chapter under 20,000 characters), or pasted text under the same limit.
 * @internal
 */
export async function resolveSource(viewer: Viewer, input: { sourceWorkId?: number; sourceText?: string }): Promise<Source> {
  if (input.sourceWorkId) {
    const { work, gate, canReadContent } = await getWorkForViewer(input.sourceWorkId, viewer);
    if (gate !== "ok" || !canReadContent) throw new DomainError(WRITING_MESSAGES.sourceUnavailable, 403, "sourceWorkId");
    if (work.type !== "single_chapter") throw new DomainError(WRITING_MESSAGES.sourceNotSingle, 400, "sourceWorkId");
    const chapter = await getChapterByOrder(work.id, 1);
    const text = chapter?.content.trim() ?? "";
    if (!text) throw new DomainError(AI_MESSAGES.workContentEmpty, 400, "sourceWorkId");
    if (countWords(text) >= WRITING_LIMITS.sourceChars) throw new DomainError(WRITING_MESSAGES.sourceTooLong, 400, "sourceWorkId");
    return { workId: work.id, title: work.title, text };
  }
  const text = input.sourceText?.trim() ?? "";
  if (!text) throw new DomainError(WRITING_MESSAGES.sourceRequired, 400, "sourceText");
  if (text.length > PASTE_MAX_CHARS || countWords(text) >= WRITING_LIMITS.sourceChars) {
    throw new DomainError(WRITING_MESSAGES.sourceTooLong, 400, "sourceText");
  }
  return { workId: null, title: `粘贴的文本（${countWords(text)}字）`, text };
}

export interface AnalysisResult {
  characters: number;
  plots: number;
  charged: number;
  balance: number;
}

/**
 * 分析 (short-piece imitation): runs P02 on the source, non-streamed, and replaces the
 * project's characters and plots with the reply. Charged like a generation: the prompt
 * is reserved first, the reply's cost (what the balance covers of it) is added, and any
 * failure, including a reply that cannot be read, refunds everything.
 */
export async function analyzeSource(
  viewer: Viewer,
  projectId: string,
  input: { sourceWorkId?: number; sourceText?: string },
  signal?: AbortSignal,
): Promise<AnalysisResult> {
  await getProject(viewer.id, projectId, "short");
  const source = await resolveSource(viewer, input);
  const prompt = await renderPrompt("P02", { synopsis: source.text });
  const provider = await defaultProvider();
  // Charged for the prompt as this provider sends it (Gemini joins the two parts).
  const promptChars = provider.promptChars(prompt);
  const promptTokens = tokensForChars(promptChars);
  const description = `作品分析：${source.title}`.slice(0, 200);

  const reservation = await reserveGenerationTokens(
    db,
    viewer.id,
    promptTokens,
    { description, model: provider.model, plotId: null, promptChars },
    { keep: 1 },
  );
  const refund = () =>
    db.transaction((tx) => refundGenerationTokens(tx, viewer.id, reservation.transactionId, promptTokens, `分析失败，退还Tokens：${source.title}`.slice(0, 200)));

  let parsed: ReturnType<typeof parseAnalysis>;
  let reply: string;
  let usage: ReportedUsage | null;
  try {
    ({ text: reply, usage } = await provider.completeWithUsage(prompt, signal));
    parsed = parseAnalysis(reply);
  } catch (error) {
    await refund();
    if (error instanceof AiError || error instanceof CallAbortedError) throw error;
    console.error("analysis failed", error);
    throw new AiError(AI_MESSAGES.analysisFailed, "server");
  }

  return db.transaction(async (tx) => {
    // The provider's usage when it reported one, else the estimate (decision 125); what the
    // balance cannot cover of the reply is not charged.
    const settled = await settleGenerationTokens(
      tx,
      viewer.id,
      reservation.transactionId,
      usage
        ? { ...usage, metering: "actual", outputChars: countChars(reply) }
        : { inputTokens: promptTokens, outputTokens: tokensFor(reply), metering: "estimate", outputChars: countChars(reply) },
    );
    await replaceWithAnalysis(tx, viewer.id, projectId, source, parsed);
    return { characters: parsed.characters.length, plots: parsed.plots.length, charged: settled.charged, balance: settled.balance };
  });
}
