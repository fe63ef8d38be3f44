import { asc } from "drizzle-orm";
import { db } from "~/db/client.server";
import { screeningWords } from "~/db/schema";
import { SCREENING_MESSAGES } from "~/schemas/screening";
import { DomainError } from "~/server/platform/errors.server";
import { publish, subscribe } from "~/server/platform/events.server";
import type { Executor } from "~/db/client.server";
import { Matcher, maskHits, type Hit } from "./matcher.server";

/**
 * Screening a text against the sensitive words (docs/product.md#screening, decision 195).
 * Each process keeps one matcher built from `screening_words`; a change of the list is
 * announced on the `screening` topic (on the change's commit) and every process rebuilds
 * its matcher when it hears it. Until the new one is built, calls wait for it, so a text
 * screened after the announcement is screened against the new list.
 */

/** The live event announcing that the word list changed. */
const SCREENING_TOPIC = "screening";

interface Holder {
  /** The matcher being built or in use. */
  matcher: Promise<Matcher> | null;
  /** The last matcher built: what a screen uses while a newer one is being built. */
  ready: Matcher | null;
  /** Bumped by each rebuild: numbers the builds in the order they started. */
  version: number;
  /** The number of the build in `ready`: a build that started earlier never replaces a later one's list. */
  readyVersion: number;
  listening: Promise<void> | null;
}

// One per process, kept across dev-server module reloads like the database client.
const global = globalThis as unknown as { __inkstoneScreening?: Holder };
const holder: Holder = (global.__inkstoneScreening ??= { matcher: null, ready: null, version: 0, readyVersion: 0, listening: null });

async function buildMatcher(): Promise<Matcher> {
  const rows = await db
    .select({ word: screeningWords.word, category: screeningWords.category, level: screeningWords.level })
    .from(screeningWords)
    .orderBy(asc(screeningWords.id));
  return new Matcher(rows);
}

function rebuild(): Promise<Matcher> {
  const version = ++holder.version;
  const previous = holder.matcher;
  const next = buildMatcher().then(
    (built) => {
      // Kept whenever no later-started build has finished first: `reloadScreening`'s build,
      // overtaken by the announcement's, must still serve its list (its data is after the change).
      if (version > holder.readyVersion) {
        holder.ready = built;
        holder.readyVersion = version;
      }
      return built;
    },
    (error) => {
      // A failed build (the database gone for a moment) keeps the old list, retried at the next call.
      if (holder.version === version) holder.matcher = null;
      if (previous) return previous;
      throw error;
    },
  );
  holder.matcher = next;
  return next;
}

/**
 * This process's matcher: listening for list changes first, so none is missed while it
 * builds. Once one is built, a screen never waits for a newer one (built within
 * milliseconds of an announcement, and `reloadScreening` awaits it): a screen inside a
 * transaction must not wait for a query, which on PGlite's one connection would wait for
 * that transaction. The first build is made before a transaction by `readyScreening`.
 */
async function currentMatcher(): Promise<Matcher> {
  holder.listening ??= subscribe(SCREENING_TOPIC, () => void rebuild()).then(
    () => undefined,
    (error) => {
      holder.listening = null;
      throw error;
    },
  );
  await holder.listening;
  return holder.ready ?? holder.matcher ?? rebuild();
}

/**
 * Builds this process's matcher if it has none: called by a write before the transaction
 * in which it screens (saving or publishing a chapter, a new work), so that the screen
 * inside it reads no table (on PGlite that would wait for the transaction itself).
 */
export async function readyScreening(): Promise<void> {
  await currentMatcher();
}

/**
 * Announces a list change to every process (this one included) on `tx`'s commit; the
 * caller awaits `reloadScreening()` after the commit to see the change at once here.
 */
export async function announceScreeningChange(tx: Executor): Promise<void> {
  await publish({ topic: SCREENING_TOPIC }, tx);
}

/** Rebuilds this process's matcher now (after a change it made; tests, the benchmark). */
export async function reloadScreening(): Promise<{ words: number }> {
  const matcher = await rebuild();
  return { words: matcher.size };
}

interface Screening {
  /** Every hit, with its word, category, level and offsets in the original text. */
  hits: Hit[];
  /** The distinct 禁止 words found, in the order they first appear. */
  forbidden: string[];
  /** Whether the text holds a 审核 word: a chapter's release then waits for review (studio/review.server.ts). */
  held: boolean;
}

/**
 * Screens one text: its hits, the 禁止 words, whether it is held for review (a chapter's
 * release asks it; the review item's page highlights the hits).
 */
export async function screenText(text: string): Promise<Screening> {
  const hits = (await currentMatcher()).find(text).sort((a, b) => a.start - b.start || b.end - a.end);
  const forbidden = [...new Set(hits.filter((h) => h.level === "forbid").map((h) => h.word))];
  return { hits, forbidden, held: hits.some((h) => h.level === "review") };
}

/** A piece of a paragraph for a reviewer: plain text, or a word of the list with its level. */
export interface ScreenedPiece {
  text: string;
  hit?: { word: string; level: Hit["level"] };
}

/**
 * A chapter as a reviewer reads it (docs/product.md#review): its paragraphs, each cut into
 * pieces so that every word of the list it holds can be highlighted. Overlapping hits
 * merge into the first.
 */
export async function screenedParagraphs(content: string): Promise<ScreenedPiece[][]> {
  const matcher = await currentMatcher();
  return content
    .split(/\n+/)
    .filter((paragraph) => paragraph.trim())
    .map((paragraph) => {
      const pieces: ScreenedPiece[] = [];
      let at = 0;
      for (const hit of matcher.find(paragraph).sort((a, b) => a.start - b.start || b.end - a.end)) {
        if (hit.start < at) continue;
        if (hit.start > at) pieces.push({ text: paragraph.slice(at, hit.start) });
        pieces.push({ text: paragraph.slice(hit.start, hit.end), hit: { word: hit.word, level: hit.level } });
        at = hit.end;
      }
      if (at < paragraph.length) pieces.push({ text: paragraph.slice(at) });
      return pieces;
    });
}

/**
 * The text as readers see it: every 替换 word masked with ＊ (docs/product.md#screening);
 * the pages mask several texts at once with maskTexts.
 * @internal
 */
export async function maskText(text: string): Promise<string> {
  if (!text) return text;
  const hits = (await currentMatcher()).find(text).filter((h) => h.level === "replace");
  return maskHits(text, hits);
}

/** Several texts masked at once (a page of comments, a batch of paragraphs). */
export async function maskTexts(texts: readonly string[]): Promise<string[]> {
  const matcher = await currentMatcher();
  if (matcher.size === 0) return [...texts];
  return texts.map((text) => (text ? maskHits(text, matcher.find(text).filter((h) => h.level === "replace")) : text));
}

/** One field a write screens: what the message calls it, its form field, its text. */
export interface ScreenedField {
  label: string;
  field?: string;
  text: string | null | undefined;
}

/**
 * A check that throws for a 禁止 word; returns whether a 审核 word holds the text for review,
 * and whether any word of the list is in it (a trusted author's chapter with a hit is drawn
 * for 跟踪审读, decision 206).
 */
export type FieldScreener = (field: ScreenedField) => FieldScreen & { masked: string };

export interface FieldScreen {
  held: boolean;
  hit: boolean;
}

/**
 * The check `refuseForbidden` makes, against this process's list as it is now, to call
 * synchronously (over chapters as a TXT is parsed, one at a time); `masked` is the text with
 * its 替换 words masked, as a title is stored (decision 237).
 */
export async function fieldScreener(): Promise<FieldScreener> {
  const matcher = await currentMatcher();
  return ({ label, field, text }) => {
    if (!text || matcher.size === 0) return { held: false, hit: false, masked: text ?? "" };
    const hits = matcher.find(text);
    const forbidden = [...new Set(hits.sort((a, b) => a.start - b.start).filter((h) => h.level === "forbid").map((h) => h.word))];
    if (forbidden.length > 0) throw new DomainError(SCREENING_MESSAGES.refused(label, forbidden), 400, field);
    return { held: hits.some((h) => h.level === "review"), hit: hits.length > 0, masked: maskHits(text, hits.filter((h) => h.level === "replace")) };
  };
}

/**
 * Refuses a write whose fields hold a 禁止 word: a DomainError (400, on the first such
 * field) naming the words. Otherwise tells whether a 审核 word holds it for review (a
 * chapter's release asks screenText itself, studio/review.server.ts). Every write path
 * screens here, in its domain function (docs/architecture.md#screening).
 */
export async function refuseForbidden(fields: readonly ScreenedField[]): Promise<FieldScreen> {
  const screen = await fieldScreener();
  const out = { held: false, hit: false };
  for (const field of fields) {
    const one = screen(field);
    out.held ||= one.held;
    out.hit ||= one.hit;
  }
  return out;
}

/**
 * A short text a person names something with (a nickname, a volume title), screened and as
 * it is stored: 禁止 refused (DomainError naming the words), 替换 masked (decision 237).
 * `held` tells whether a 审核 word is in it: such a text has no review of its own, so the
 * caller refuses it or falls back.
 */
export async function screenedName(field: ScreenedField): Promise<{ masked: string; held: boolean }> {
  const { masked, held } = (await fieldScreener())(field);
  return { masked, held };
}
