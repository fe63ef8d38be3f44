import { sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { apiConfigs, plotThreads, prompts, siteConfigs, storyEntities, storyEntityNames, storyFacts, voicePassages, volumes, volumeSummaries, workCliches, works } from "~/db/schema";
import { CONTEXT_TOKENS_DEFAULT } from "~/schemas/admin";
import { BIBLE_LIMITS, BIBLE_MESSAGES, ENTITY_KIND_LABELS, isThreadOverdue, PLAN_MAX_CHARS, THREAD_OVERDUE_LABEL, type EntityKind } from "~/schemas/bible";
import { renderLoadedPrompt } from "~/server/ai/prompt-templates.server";
import type { ChatPrompt } from "~/server/ai/provider.server";
import { CHARS_PER_TOKEN, countChars, generationEstimate, tokensForChars, type GenerationEstimate } from "~/utils/ai-tokens";
import { jsonColumn, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import type { VoiceSource } from "~/schemas/voice";
import { allCliches } from "./voice.server";

/**
 * The continuation prompt of a serial (docs/product.md#continuation-context,
 * docs/decisions/127): P04 filled with the next chapter's plan, summaries of the earlier
 * chapters (the last RECENT_CHAPTERS in full, older ones by their volume's summary, or
 * briefly when their volume has none; a recent chapter without one by the end of its text,
 * decision 155), the bible facts in force at that chapter for the entities named in the
 * plan or the end of the previous chapter and those marked 总是带上 (never those marked
 * 从不带上, decision 154), the open plot threads, and the end of the previous chapter;
 * trimmed to the default API configuration's context size. It also says what it
 * considered and sent, for the pages that list it. One round trip of three statements,
 * whatever the work's length (bench:context; decision 144).
 */

/** Chapters summarised in full before the one being written. */
const RECENT_CHAPTERS = 10;
/** Characters of an older chapter's summary when its volume has none. */
const BRIEF_SUMMARY_CHARS = 80;
/** How much of the previous chapter's end is sent, and how much is searched for names. */
const PREVIOUS_ENDING_CHARS = 1500;
const NAME_SCAN_CHARS = 1000;
/** Characters of a recent chapter's end sent in place of a summary it lacks (decision 155). @internal */
export const EXCERPT_CHARS = 300;
/** The context size when no API configuration is chosen (api_configs.context_tokens has the same default). @internal */
export const DEFAULT_CONTEXT_TOKENS = CONTEXT_TOKENS_DEFAULT;

type SectionKey = "recent-summaries" | "earlier-summaries" | "story-bible" | "open-threads" | "voice-sample" | "previous-ending";

interface ContextSection {
  key: SectionKey;
  title: string;
  /** Items (lines or blocks) available and sent. */
  available: number;
  included: number;
  text: string;
}

export interface ContinuationContext {
  workId: number;
  chapterNumber: number;
  prompt: ChatPrompt;
  /** Characters of system + user prompt, and the estimate of their tokens (what the prompt is charged before usage is known). */
  chars: number;
  estimatedTokens: number;
  budgetTokens: number;
  sections: ContextSection[];
  /** Entities found in the plan or the previous ending (their facts in force were considered). */
  namedEntities: string[];
  /**
   * The entities the prompt considered, in its order, each with its facts in force and
   * whether it was sent (the budget may leave the last ones out): what 连载续写's sidebar
   * 「第N章有效的设定」 and 本次上下文 show, so they cannot differ from the prompt.
   */
  entities: ContextEntity[];
  /** The open threads considered, in the prompt's order, with the one overdue rule. */
  threads: ContextThread[];
  /**
   * Chapters before this one without a summary that the prompt would have used (recent ones,
   * and older ones whose volume has no summary), and those of them sent as an excerpt of
   * their end instead (decision 155).
   */
  missingSummaries: { n: number; id: number }[];
  excerpts: number[];
  /** Characters the plan takes in the prompt (what the page's live estimate replaces as it is typed). */
  planChars: number;
  /**
   * The author's voice (decision 257): the 文风 sample's passages, newest first, each with
   * its cost and whether the budget let it in; and the 套话 the prompt asks the model to
   * avoid (always sent) with what they cost.
   */
  voice: {
    passages: { id: number; source: VoiceSource; excerpt: string; chars: number; tokens: number; sent: boolean }[];
    sampleChars: number;
    cliches: string[];
    clicheChars: number;
  };
}

interface ContextEntity {
  id: number;
  name: string;
  kind: EntityKind;
  /** Named in the plan or the previous ending, or marked 总是带上. */
  reason: "named" | "always";
  facts: { content: string; fromChapter: number | null; untilChapter: number | null }[];
  sent: boolean;
}

interface ContextThread {
  title: string;
  note: string;
  plantedChapter: number;
  dueChapter: number | null;
  overdue: boolean;
  sent: boolean;
}

const SECTION_TITLES: Record<SectionKey, string> = {
  "recent-summaries": "最近几章摘要",
  "earlier-summaries": "更早的剧情（按卷）",
  "story-bible": "本章相关设定",
  "open-threads": "未回收的伏笔",
  "voice-sample": "文风样本",
  "previous-ending": "上一章结尾",
};

/** Where a P04 template without the placeholders gets the sample and the 套话 (decision 257). */
const VOICE_HEADING = "【文风样本（作者本人的文字：学习其语气、节奏和用词，不要照抄内容）】";
const CLICHE_HEADING = "【避免使用的套话（除非情节确实需要，不要写这些词句）】";
/** The sample takes at most this share of the budget, so the story's own context is not crowded out. */
const VOICE_SHARE = 0.25;
/** Characters of a passage shown in the preview's list. */
const PASSAGE_EXCERPT_CHARS = 30;

const NONE = "（无）";

interface ChapterRow {
  id: number;
  n: number;
  position: number;
  summary: string | null;
  ending: string | null;
  excerpt: string | null;
}

/**
 * Builds the continuation prompt for chapter `chapterNumber` (the reader's numbering: the
 * published chapters in order; the chapter after the last published one is the usual
 * case) of `workId`. Callers check ownership (the page does, with getOwnedWork); this
 * function reads the work's own rows only. `options.budgetTokens` overrides the API
 * configuration's context size (tests, the benchmark).
 */
export async function assembleContinuationContext(
  workId: number,
  chapterNumber: number,
  plan: string,
  options: { budgetTokens?: number } = {},
): Promise<ContinuationContext> {
  if (!Number.isSafeInteger(chapterNumber) || chapterNumber < 1 || chapterNumber > BIBLE_LIMITS.chapter) {
    throw new DomainError(BIBLE_MESSAGES.chapterNumber, 400, "chapter");
  }
  const planText = (plan ?? "").replace(/\r\n?/g, "\n").trim();
  if (countChars(planText) > PLAN_MAX_CHARS) throw new DomainError(BIBLE_MESSAGES.planTooLong, 400, "plan");

  // One round trip: three statements at once. The chapters before this one with their
  // summaries (older ones cut short) and the previous chapter's end; in one row the work's
  // title, volumes, names, open threads, P04 and the budget (each statement costs the
  // server a socket write and a pool turn, so the small reads travel together); and the
  // entities that may be named, each with its facts in force at this chapter.
  const recentFrom = chapterNumber - RECENT_CHAPTERS;
  const [metaRows, chapterRows, entityRows] = await Promise.all([
    db.execute(sql`
      select
        (select w.title from ${works} w where w.id = ${workId}) as title,
        coalesce((
          select json_agg(json_build_object('id', v.id, 'title', v.title, 'position', v.position, 'summary', vs.summary) order by v.position, v.id)
          from ${volumes} v left join ${volumeSummaries} vs on vs.volume_id = v.id where v.work_id = ${workId}), '[]'::json) as volumes,
        coalesce((select json_agg(json_build_array(n.name, n.entity_id)) from ${storyEntityNames} n where n.work_id = ${workId}), '[]'::json) as names,
        coalesce((
          select json_agg(json_build_object('title', t.title, 'note', t.note, 'plantedChapter', t.planted_chapter, 'dueChapter', t.due_chapter) order by t.due_chapter asc nulls last, t.id)
          from ${plotThreads} t where t.work_id = ${workId} and t.status = 'open' and t.planted_chapter <= ${chapterNumber}), '[]'::json) as threads,
        (select json_build_object('system', p.system_content, 'user', p.user_content) from ${prompts} p where p.code = 'P04') as prompt,
        coalesce((select json_agg(json_build_object('id', vp.id, 'content', vp.content, 'source', vp.source) order by vp.id desc) from ${voicePassages} vp where vp.work_id = ${workId}), '[]'::json) as voice,
        coalesce((select json_agg(wc.phrase order by wc.created_at, wc.phrase) from ${workCliches} wc where wc.work_id = ${workId}), '[]'::json) as cliches,
        ${options.budgetTokens ? sql`null::int` : sql`(select ac.context_tokens from ${siteConfigs} sc join ${apiConfigs} ac on ac.id::text = trim(sc.value) where sc.key = 'default_api_provider')`} as budget`),
    db.execute(sql`
      with numbered as (
        select id, position, row_number() over (order by position, id)::int as n
        from chapters where work_id = ${workId} and state = 'published' and kind = 'chapter'
      )
      select n.id, n.n, n.position,
        case when n.n >= ${recentFrom} then s.summary else left(s.summary, ${BRIEF_SUMMARY_CHARS + 1}) end as summary,
        case when n.n = ${chapterNumber - 1} then (select right(c.content, ${PREVIOUS_ENDING_CHARS}) from chapters c where c.id = n.id) end as ending,
        case when s.summary is null and n.n >= ${recentFrom} and n.n < ${chapterNumber - 1}
          then (select right(c.content, ${EXCERPT_CHARS}) from chapters c where c.id = n.id) end as excerpt
      from numbered n left join chapter_summaries s on s.chapter_id = n.id
      where n.n < ${chapterNumber}
      order by n.n`),
    // Every entity with a name (or alias) found in the plan or anywhere in the previous
    // chapter's last PREVIOUS_ENDING_CHARS: a superset of those named in the scanned text
    // below (names hold no line breaks), which picks and orders them exactly. The previous
    // chapter is found by its id alone (an index-only walk), and only its text is read; the
    // names searched are this work's only (the planner hashes the subquery: without the
    // work it tested every name of every work; decision 278).
    db.execute(sql`
      with scan as (
        select ${planText} || E'\n' || ${
          chapterNumber >= 2
            ? sql`coalesce((select right(p.content, ${PREVIOUS_ENDING_CHARS}) from chapters p where p.id = (
                select c.id from chapters c
                where c.work_id = ${workId} and c.state = 'published' and c.kind = 'chapter' order by c.position, c.id offset ${chapterNumber - 2} limit 1)), '')`
            : sql`''`
        } as text
      )
      select e.id, e.kind, e.name, e.description, e.prompt_mode,
        coalesce((
          select json_agg(json_build_object('content', f.content, 'fromChapter', f.from_chapter, 'untilChapter', f.until_chapter) order by f.from_chapter, f.id)
          from ${storyFacts} f
          where f.entity_id = e.id
            and (f.from_chapter is null or f.from_chapter <= ${chapterNumber})
            and (f.until_chapter is null or f.until_chapter >= ${chapterNumber})), '[]'::json) as facts
      from ${storyEntities} e, scan
      where e.work_id = ${workId} and e.prompt_mode <> 'never'
        and (e.prompt_mode = 'always' or exists (select 1 from ${storyEntityNames} n where n.work_id = ${workId} and n.entity_id = e.id and strpos(scan.text, n.name) > 0))`),
  ]);
  const meta = rowsOf<{ title: string | null; volumes: unknown; names: unknown; threads: unknown; voice: unknown; cliches: unknown; prompt: unknown; budget: number | string | null }>(metaRows)[0];
  if (!meta?.title) throw new DomainError("作品不存在", 404);
  const workTitle = meta.title;
  const volumeRows = jsonColumn<{ id: number | string; title: string; position: number | string; summary: string | null }[]>(meta.volumes).map((v) => ({ ...v, id: Number(v.id), position: Number(v.position) }));
  const nameRows = jsonColumn<[string, number | string][]>(meta.names).map(([name, entityId]) => ({ name, entityId: Number(entityId) }));
  const threads = jsonColumn<{ title: string; note: string; plantedChapter: number; dueChapter: number | null }[]>(meta.threads);
  const template = meta.prompt ? jsonColumn<{ system: string; user: string }>(meta.prompt) : undefined;
  const budgetTokens = options.budgetTokens ?? (meta.budget === null ? DEFAULT_CONTEXT_TOKENS : Number(meta.budget));
  const chaptersBefore = rowsOf<ChapterRow>(chapterRows).map((r) => ({ ...r, n: Number(r.n), position: Number(r.position), id: Number(r.id) }));
  const previous = chaptersBefore.at(-1)?.n === chapterNumber - 1 ? chaptersBefore.at(-1)! : null;
  const ending = trimEnding(previous?.ending ?? "");

  // Entities named (name or alias) in the plan or the last NAME_SCAN_CHARS of the previous chapter.
  const scan = `${planText}\n${Array.from(ending).slice(-NAME_SCAN_CHARS).join("")}`;
  const named = new Map<number, number>();
  for (const { name, entityId } of nameRows) {
    const at = scan.indexOf(name);
    if (at >= 0 && (!named.has(entityId) || at < named.get(entityId)!)) named.set(entityId, at);
  }

  // Named ones (unless marked 从不带上, which the statement leaves out) in the order they
  // are named, then those marked 总是带上 that are not named, by kind and id (decision 154).
  const entities = rowsOf<{ id: number | string; kind: EntityKind; name: string; description: string; prompt_mode: string; facts: unknown }>(entityRows)
    .map((e) => ({ ...e, id: Number(e.id), facts: jsonColumn<{ content: string; fromChapter: number | null; untilChapter: number | null }[]>(e.facts) }))
    .filter((e) => named.has(e.id) || e.prompt_mode === "always");
  const aliasesOf = new Map<number, string[]>();
  const considered = new Set(entities.map((e) => e.id));
  for (const { name, entityId } of nameRows) if (considered.has(entityId)) aliasesOf.set(entityId, [...(aliasesOf.get(entityId) ?? []), name]);
  const kindOrder = Object.keys(ENTITY_KIND_LABELS);
  entities.sort((a, b) => {
    const at = named.get(a.id) ?? Number.MAX_SAFE_INTEGER;
    const bt = named.get(b.id) ?? Number.MAX_SAFE_INTEGER;
    return at - bt || kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) || a.id - b.id;
  });
  const bibleBlocks = entities.map((e) => {
    const aliases = (aliasesOf.get(e.id) ?? []).filter((a) => a !== e.name);
    const head = `【${e.name}】${ENTITY_KIND_LABELS[e.kind]}${aliases.length ? `（又称：${aliases.join("、")}）` : ""}${e.description ? `：${e.description}` : ""}`;
    const lines = e.facts.map((f) => `- ${rangeLabel(f.fromChapter, f.untilChapter)}${f.content}`);
    return [head, ...lines].join("\n");
  });

  const overdue = (t: { dueChapter: number | null }) => isThreadOverdue(t.dueChapter, chapterNumber - 1);
  const threadLines = threads.map((t) => {
    const due = t.dueChapter === null ? "未定回收章节" : overdue(t) ? `应在第${t.dueChapter}章前回收，${THREAD_OVERDUE_LABEL}` : `应在第${t.dueChapter}章前回收`;
    return `- ${t.title}（第${t.plantedChapter}章埋下，${due}）${t.note ? `：${t.note}` : ""}`;
  });

  // Summaries: recent chapters in full; older ones by volume (a volume summary stands for
  // its chapters before the recent window), else a brief line each.
  const volumeOf = (position: number) => {
    let found: (typeof volumeRows)[number] | null = null;
    for (const v of volumeRows) {
      if (v.position < position) found = v;
      else break;
    }
    return found;
  };
  // A chapter without a summary is not skipped silently (decision 155): it is listed, and a
  // recent one is sent as the end of its text instead (the previous chapter's end is sent anyway).
  const recentLines: string[] = [];
  // Per line of recentLines: the chapter it stands in for as an excerpt, else null.
  const recentExcerpts: (number | null)[] = [];
  const earlierItems: string[] = [];
  const missingSummaries: { n: number; id: number }[] = [];
  const volumesUsed = new Set<number>();
  for (const c of chaptersBefore) {
    if (c.n >= recentFrom) {
      if (c.summary) {
        recentLines.push(`第${c.n}章：${c.summary}`);
        recentExcerpts.push(null);
      } else {
        missingSummaries.push({ n: c.n, id: c.id });
        const excerpt = (c.excerpt ?? "").replace(/\s*[\r\n]+\s*/g, " ").trim();
        if (excerpt) {
          recentLines.push(`第${c.n}章（无摘要，结尾节选）：…${excerpt}`);
          recentExcerpts.push(c.n);
        }
      }
      continue;
    }
    const volume = volumeOf(c.position);
    if (volume?.summary) {
      if (!volumesUsed.has(volume.id)) {
        volumesUsed.add(volume.id);
        earlierItems.push(`【${volume.title}】${volume.summary}`);
      }
    } else if (!c.summary) {
      missingSummaries.push({ n: c.n, id: c.id });
    } else {
      const brief = Array.from(c.summary);
      earlierItems.push(`第${c.n}章：${brief.length > BRIEF_SUMMARY_CHARS ? `${brief.slice(0, BRIEF_SUMMARY_CHARS).join("")}…` : c.summary}`);
    }
  }

  // The author's voice (decision 257): the 套话 always go (the defaults at least); the sample
  // within the budget. A template without {|voice-sample|} / {|avoid-cliches|} (one edited
  // before they existed) gets them appended to its user prompt under a heading.
  const passages = jsonColumn<{ id: number | string; content: string; source: VoiceSource }[]>(meta.voice).map((p) => ({ ...p, id: Number(p.id) }));
  const cliches = allCliches(jsonColumn<string[]>(meta.cliches));
  const clicheText = cliches.join("、");
  const templateText = template ? `${template.system}${template.user}` : "";
  const sampleInline = templateText.includes("{|voice-sample|}");
  const clichesInline = templateText.includes("{|avoid-cliches|}");
  const values = (sections: Record<SectionKey, string>) => ({
    "work-title": workTitle,
    "chapter-number": String(chapterNumber),
    plan: planText || NONE,
    "avoid-cliches": clicheText,
    ...Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, v || NONE])),
  });
  const render = (sections: Record<SectionKey, string>) => {
    const rendered = renderLoadedPrompt("P04", template, values(sections));
    let user = rendered.user;
    if (!sampleInline && sections["voice-sample"]) user += `\n\n${VOICE_HEADING}\n${sections["voice-sample"]}`;
    if (!clichesInline) user += `\n\n${CLICHE_HEADING}\n${clicheText}`;
    return { system: rendered.system, user, chars: countChars(rendered.system) + countChars(user) };
  };
  const empty: Record<SectionKey, string> = { "recent-summaries": "", "earlier-summaries": "", "story-bible": "", "open-threads": "", "voice-sample": "", "previous-ending": "" };
  const fixed = render(empty);
  let room = budgetTokens * CHARS_PER_TOKEN - fixed.chars;
  if (room < 0) throw new DomainError(BIBLE_MESSAGES.budgetTooSmall, 422);

  // Filling in order of importance: the previous ending (cut from its start when short of
  // room), the facts, the threads, the recent summaries (newest first), the older ones
  // (newest first). A section stops at the first item that does not fit.
  const chosen: Record<SectionKey, string[]> = { "previous-ending": [], "story-bible": [], "open-threads": [], "voice-sample": [], "recent-summaries": [], "earlier-summaries": [] };
  const available: Record<SectionKey, number> = {
    "voice-sample": passages.length,
    "previous-ending": ending ? 1 : 0,
    "story-bible": bibleBlocks.length,
    "open-threads": threadLines.length,
    "recent-summaries": recentLines.length,
    "earlier-summaries": earlierItems.length,
  };
  // The placeholder's NONE is replaced by the text: its characters are room too.
  const take = (key: SectionKey, items: string[], newestLast: boolean) => {
    const order = newestLast ? [...items].reverse() : items;
    const kept: string[] = [];
    let used = -countChars(NONE);
    for (const item of order) {
      const cost = countChars(item) + (kept.length ? 1 : 0);
      if (used + cost > room) break;
      kept.push(item);
      used += cost;
    }
    if (kept.length) room -= used;
    chosen[key] = newestLast ? kept.reverse() : kept;
  };
  if (ending) {
    const fit = Math.max(0, room + countChars(NONE));
    const chars = Array.from(ending);
    const kept = chars.length <= fit ? ending : chars.slice(chars.length - fit).join("");
    if (kept) {
      chosen["previous-ending"] = [kept];
      room -= countChars(kept) - countChars(NONE);
    }
  }
  take("story-bible", bibleBlocks, false);
  take("open-threads", threadLines, false);
  // The sample, newest passage first, whole passages only, within VOICE_SHARE of the budget:
  // appended, its heading is part of the first passage's cost; inline, NONE's characters are room.
  {
    const cap = Math.min(room, Math.floor(budgetTokens * CHARS_PER_TOKEN * VOICE_SHARE));
    let used = sampleInline ? -countChars(NONE) : countChars(`\n\n${VOICE_HEADING}\n`);
    const kept: string[] = [];
    for (const p of passages) {
      const cost = countChars(p.content) + (kept.length ? 2 : 0);
      if (used + cost > cap) break;
      kept.push(p.content);
      used += cost;
    }
    if (kept.length) room -= used;
    chosen["voice-sample"] = kept;
  }
  take("recent-summaries", recentLines, true);
  take("earlier-summaries", earlierItems, true);

  const texts = Object.fromEntries(Object.entries(chosen).map(([k, v]) => [k, v.join(k === "voice-sample" ? "\n\n" : "\n")])) as Record<SectionKey, string>;
  // Which excerpts were sent: the recent section keeps its newest lines.
  const excerpts = recentExcerpts.slice(recentLines.length - chosen["recent-summaries"].length).filter((n): n is number => n !== null);
  const rendered = render(texts);
  const order: SectionKey[] = ["recent-summaries", "earlier-summaries", "story-bible", "open-threads", "voice-sample", "previous-ending"];
  return {
    workId,
    chapterNumber,
    prompt: { system: rendered.system, user: rendered.user },
    chars: rendered.chars,
    estimatedTokens: tokensForChars(rendered.chars),
    budgetTokens,
    sections: order.map((key) => ({ key, title: SECTION_TITLES[key], available: available[key], included: chosen[key].length, text: texts[key] })),
    namedEntities: entities.filter((e) => named.has(e.id)).map((e) => e.name),
    entities: entities.map((e, i) => ({
      id: e.id,
      name: e.name,
      kind: e.kind,
      reason: named.has(e.id) ? "named" : "always",
      facts: e.facts,
      sent: i < chosen["story-bible"].length,
    })),
    threads: threads.map((t, i) => ({
      title: t.title,
      note: t.note,
      plantedChapter: t.plantedChapter,
      dueChapter: t.dueChapter,
      overdue: overdue(t),
      sent: i < chosen["open-threads"].length,
    })),
    missingSummaries,
    excerpts,
    planChars: countChars(planText || NONE),
    voice: {
      passages: passages.map((p, i) => {
        const chars = countChars(p.content);
        const all = Array.from(p.content.replace(/\s+/gu, " "));
        return {
          id: p.id,
          source: p.source,
          excerpt: all.length > PASSAGE_EXCERPT_CHARS ? `${all.slice(0, PASSAGE_EXCERPT_CHARS).join("")}…` : all.join(""),
          chars,
          tokens: tokensForChars(chars),
          sent: i < chosen["voice-sample"].length,
        };
      }),
      sampleChars: countChars(texts["voice-sample"]),
      cliches,
      clicheChars: countChars(clicheText),
    },
  };
}

function rangeLabel(from: number | null, until: number | null): string {
  if (from && until) return `第${from}至${until}章：`;
  if (from) return `从第${from}章起：`;
  if (until) return `至第${until}章：`;
  return "";
}

/** The previous chapter's end, starting at a paragraph where one begins near the cut. */
function trimEnding(text: string): string {
  const trimmed = text.replace(/\r\n?/g, "\n").trim();
  if (countChars(trimmed) < PREVIOUS_ENDING_CHARS) return trimmed;
  const cut = trimmed.indexOf("\n");
  return cut >= 0 && cut < 300 ? trimmed.slice(cut + 1).trim() : trimmed;
}

/** Output of one continuation: a long chapter (the estimate's expected output; outputLimit allows 10x). */
export const CONTINUATION_WORDS = 3000;

/**
 * 预计消耗 of a continuation (generationEstimate: the prompt and a chapter of CONTINUATION_WORDS)
 * with what the page needs to follow the plan as it is typed: the prompt's characters and
 * the plan's share of them (docs/product.md#continuation-context).
 */
export interface ContextEstimate extends GenerationEstimate {
  expectedWords: number;
  budget: number;
  chars: number;
  planChars: number;
}

export function contextEstimate(context: ContinuationContext): ContextEstimate {
  return {
    ...generationEstimate(context.estimatedTokens, CONTINUATION_WORDS),
    expectedWords: CONTINUATION_WORDS,
    budget: context.budgetTokens,
    chars: context.chars,
    planChars: context.planChars,
  };
}

/** What 连载续写 and 本次上下文 list beside the prompt: exactly the prompt's sets. */
export type ContextView = ReturnType<typeof contextView>;

export function contextView(context: ContinuationContext) {
  return {
    summaries: context.sections.find((s) => s.key === "recent-summaries")?.text ?? "",
    entities: context.entities.map((e) => ({
      ...e,
      facts: e.facts.map((f) => `${rangeLabel(f.fromChapter, f.untilChapter)}${f.content}`),
    })),
    threads: context.threads,
    missingSummaries: context.missingSummaries,
    excerpts: context.excerpts,
    voice: context.voice,
  };
}
