import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { chapterSummaries, chapters, continuityFindings, continuityWaivers, plotThreads, writingDays, writingTargets } from "~/db/schema";
import { DAILY_TARGET_MAX, DESK_MESSAGES, PACE_WINDOW_DAYS, THREAD_LONG_OPEN_CHAPTERS } from "~/schemas/desk-rules";
import { isThreadOverdue } from "~/schemas/bible";
import { chapterDisplayTitle } from "~/utils/chapter-title";
import { splitParagraphs } from "~/utils/reading";
import { shanghaiDate, shanghaiDaysEnding } from "~/utils/shanghai-time";
import { rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { getOwnedWork } from "~/server/catalog/works.server";
import { publishedChapterCount } from "./bible.server";

/**
 * 写作台 (docs/product.md#author-studio, docs/decisions/261): the page an author opens each
 * day for one work. 存稿 and the days it lasts at the author's pace, overdue 伏笔, the last
 * chapter's hook, today's target and 字数, the open continuity findings.
 */

/** The hook shows at most this much of the last paragraph (its end: where the chapter stops). */
const HOOK_CHARS = 300;
const OVERDUE_SHOWN = 10;
const FINDING_CHAPTERS_SHOWN = 5;

export interface DeskView {
  work: { id: number; title: string };
  today: { day: string; written: number; target: number | null };
  pace: {
    /** Days averaged over: the window, or fewer since the work's first chapter came out. */
    days: number;
    /** 字数 of the numbered chapters published in those days. */
    words: number;
    /** Their average per day, rounded; 0 when nothing came out. */
    perDay: number;
  };
  stock: {
    scheduled: { chapters: number; words: number; last: Date | null };
    drafts: { chapters: number; words: number };
    /** 存稿 (scheduled, in review and drafts) ÷ pace, whole days; null when there is no pace. */
    daysLeft: number | null;
  };
  threads: {
    published: number;
    overdue: { id: number; title: string; plantedChapter: number; dueChapter: number | null; reason: "due" | "long" }[];
    total: number;
  };
  hook: { chapterId: number; label: string; state: string; paragraph: string; cut: boolean; summary: string | null } | null;
  findings: { open: number; chapters: { chapterId: number; number: number; title: string; open: number }[] };
}

/** Everything the desk shows for the author's work on the China-time day of `now`. */
export async function deskView(userId: string, workId: number, now: Date = new Date()): Promise<DeskView> {
  const work = await getOwnedWork(userId, workId);
  const today = shanghaiDate(now);
  const windowStart = shanghaiDaysEnding(now, PACE_WINDOW_DAYS)[0];
  const [[written], [target], paced, stock, published, findings] = await Promise.all([
    db
      .select({ words: writingDays.words })
      .from(writingDays)
      .where(and(eq(writingDays.workId, workId), eq(writingDays.day, today))),
    db.select({ words: writingTargets.words }).from(writingTargets).where(eq(writingTargets.workId, workId)),
    paceOf(workId, windowStart, today),
    stockOf(workId),
    publishedChapterCount(workId),
    openFindings(workId),
  ]);
  const [threads, hook] = await Promise.all([overdueOf(workId, published), hookOf(workId, published)]);
  const stockWords = stock.scheduled.words + stock.drafts.words;
  return {
    work: { id: work.id, title: work.title },
    today: { day: today, written: written?.words ?? 0, target: target?.words ?? null },
    pace: paced,
    stock: { ...stock, daysLeft: paced.perDay > 0 ? Math.floor(stockWords / paced.perDay) : null },
    threads: { published, ...threads },
    hook,
    findings,
  };
}

/** The numbered chapters published on the China-time days `from`..`to` and the days since the work's first. */
async function paceOf(workId: number, from: string, to: string): Promise<DeskView["pace"]> {
  const day = sql`(coalesce(${chapters.publishAt}, ${chapters.createdAt}) at time zone 'Asia/Shanghai')::date`;
  const [row] = rowsOf<{ words: number | string; first: string | null }>(
    await db.execute(sql`
      select coalesce(sum(${chapters.wordCount}) filter (where ${day} >= ${from}::date), 0)::int as words,
             to_char(min(${day}), 'YYYY-MM-DD') as first
      from ${chapters}
      where ${chapters.workId} = ${workId} and ${chapters.state} = 'published' and ${chapters.kind} = 'chapter' and ${day} <= ${to}::date`),
  );
  const words = Number(row?.words ?? 0);
  if (!row?.first || words === 0) return { days: PACE_WINDOW_DAYS, words: 0, perDay: 0 };
  // A work younger than the window is averaged over its own days (today included).
  const since = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${row.first}T00:00:00Z`)) / 86_400_000) + 1;
  const days = Math.max(1, Math.min(PACE_WINDOW_DAYS, since));
  return { days, words, perDay: Math.round(words / days) };
}

/** 存稿: numbered chapters not out yet. 定时 and 审核中 will go out by themselves; drafts wait for the author. */
async function stockOf(workId: number): Promise<Omit<DeskView["stock"], "daysLeft">> {
  const rows = await db
    .select({
      state: chapters.state,
      chapters: sql<number>`count(*)::int`,
      words: sql<number>`coalesce(sum(${chapters.wordCount}), 0)::int`,
      last: sql<string | null>`max(${chapters.publishAt})`,
    })
    .from(chapters)
    .where(and(eq(chapters.workId, workId), eq(chapters.kind, "chapter"), inArray(chapters.state, ["draft", "scheduled", "review"])))
    .groupBy(chapters.state);
  const scheduled = { chapters: 0, words: 0, last: null as Date | null };
  const drafts = { chapters: 0, words: 0 };
  for (const r of rows) {
    const into = r.state === "draft" ? drafts : scheduled;
    into.chapters += Number(r.chapters);
    into.words += Number(r.words);
    if (r.state === "scheduled" && r.last) scheduled.last = new Date(r.last);
  }
  return { scheduled, drafts };
}

/**
 * Open 伏笔 past due: a due chapter already published (the bible's 已逾期, decision 127), or
 * none set and planted THREAD_LONG_OPEN_CHAPTERS or more published chapters ago.
 */
async function overdueOf(workId: number, published: number) {
  const where = and(
    eq(plotThreads.workId, workId),
    eq(plotThreads.status, "open"),
    sql`(${plotThreads.dueChapter} <= ${published} or (${plotThreads.dueChapter} is null and ${plotThreads.plantedChapter} <= ${published - THREAD_LONG_OPEN_CHAPTERS}))`,
  );
  const [[{ total }], rows] = await Promise.all([
    db.select({ total: sql<number>`count(*)::int` }).from(plotThreads).where(where),
    db
      .select({ id: plotThreads.id, title: plotThreads.title, plantedChapter: plotThreads.plantedChapter, dueChapter: plotThreads.dueChapter })
      .from(plotThreads)
      .where(where)
      .orderBy(sql`coalesce(${plotThreads.dueChapter}, ${plotThreads.plantedChapter})`, asc(plotThreads.id))
      .limit(OVERDUE_SHOWN),
  ]);
  return {
    total: Number(total),
    overdue: rows.map((t) => ({ ...t, reason: isThreadOverdue(t.dueChapter, published) ? ("due" as const) : ("long" as const) })),
  };
}

/**
 * The hook: the end of the work's last numbered chapter, whatever its state (the next one
 * the author writes follows it), as the editor shows it, and its summary when there is one.
 * Published, it is the last published one: its reader number is the published count.
 */
async function hookOf(workId: number, published: number): Promise<DeskView["hook"]> {
  const [last] = await db
    .select({
      id: chapters.id,
      title: chapters.title,
      state: chapters.state,
      text: sql<string>`coalesce(${chapters.pendingContent}, ${chapters.content})`,
      summary: chapterSummaries.summary,
    })
    .from(chapters)
    .leftJoin(chapterSummaries, eq(chapterSummaries.chapterId, chapters.id))
    .where(and(eq(chapters.workId, workId), eq(chapters.kind, "chapter")))
    .orderBy(desc(chapters.position), desc(chapters.id))
    .limit(1);
  if (!last) return null;
  const paragraph = splitParagraphs(last.text).at(-1) ?? "";
  const cut = paragraph.length > HOOK_CHARS;
  return {
    chapterId: last.id,
    label: chapterDisplayTitle(last.state === "published" ? published : null, last.title) || "未命名章节",
    state: last.state,
    paragraph: cut ? paragraph.slice(-HOOK_CHARS) : paragraph,
    cut,
    summary: last.summary ?? null,
  };
}

/** Open (not 有意安排) continuity findings: how many, and the latest chapters holding them. */
async function openFindings(workId: number): Promise<DeskView["findings"]> {
  const rows = await db
    .select({
      chapterId: continuityFindings.chapterId,
      number: continuityFindings.chapterNumber,
      title: chapters.title,
      open: sql<number>`count(*)::int`,
    })
    .from(continuityFindings)
    .innerJoin(chapters, eq(chapters.id, continuityFindings.chapterId))
    .leftJoin(continuityWaivers, and(eq(continuityWaivers.chapterId, continuityFindings.chapterId), eq(continuityWaivers.key, continuityFindings.key)))
    .where(and(eq(continuityFindings.workId, workId), sql`${continuityWaivers.id} is null`))
    .groupBy(continuityFindings.chapterId, continuityFindings.chapterNumber, chapters.title)
    .orderBy(desc(continuityFindings.chapterNumber), desc(continuityFindings.chapterId));
  return {
    open: rows.reduce((n, r) => n + Number(r.open), 0),
    chapters: rows.slice(0, FINDING_CHAPTERS_SHOWN).map((r) => ({ ...r, open: Number(r.open), title: chapterDisplayTitle(r.number, r.title) })),
  };
}

/**
 * Sets the work's daily word target from the form's text (null clears it). 0, negative,
 * not a whole number or over DAILY_TARGET_MAX: 400 with the reason.
 */
export async function setDailyTarget(userId: string, workId: number, raw: string | null): Promise<number | null> {
  await getOwnedWork(userId, workId);
  if (raw === null) {
    await db.delete(writingTargets).where(eq(writingTargets.workId, workId));
    return null;
  }
  const words = parseTarget(raw);
  await db
    .insert(writingTargets)
    .values({ workId, words })
    .onConflictDoUpdate({ target: writingTargets.workId, set: { words, updatedAt: sql`now()` } });
  return words;
}

function parseTarget(raw: string): number {
  // Full-width digits and a trailing 字 are how people type it on a phone.
  const text = raw
    .trim()
    .replace(/[０-９]/gu, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))
    .replace(/[－—]/u, "-")
    .replace(/\s*字$/u, "")
    .replace(/[,，]/gu, "");
  if (!text) throw new DomainError(DESK_MESSAGES.targetRequired, 400, "target");
  if (!/^[+-]?\d+$/u.test(text)) throw new DomainError(DESK_MESSAGES.targetNotNumber, 400, "target");
  const words = Number(text);
  if (words <= 0) throw new DomainError(DESK_MESSAGES.targetTooSmall, 400, "target");
  if (words > DAILY_TARGET_MAX) throw new DomainError(DESK_MESSAGES.targetTooLarge, 400, "target");
  return words;
}
