import { countChars } from "~/utils/ai-tokens";

/**
 * Outlines of a serial: 总纲, 卷纲, 细纲 (docs/product.md#outlines, docs/decisions/255-256).
 * Client-safe and zod-free (decision 243): the limits, the messages, the beats' text form
 * and the beat coverage the 连载续写 page counts as the text streams in. The forms' schema
 * is in outline-forms.ts.
 */

export const OUTLINE_LIMITS = {
  /** 总纲 and 卷纲 text. */
  seriesBody: 20_000,
  volumeBody: 5_000,
  title: 50,
  /** Beats of one 细纲: the plan they become must fit 本章计划 (PLAN_MAX_CHARS). */
  beats: 30,
  beatText: 120,
  minWords: 50,
  maxWords: 5_000,
  /** A 卷纲's span of chapter numbers. */
  chapter: 100_000,
  volumeSpan: 500,
  /** Chapters the AI drafts per call. */
  batch: 10,
  /** Earlier versions kept per outline. */
  versions: 20,
} as const;

/** A beat without a budget gets this many 字. */
const DEFAULT_BEAT_WORDS = 500;

export const OUTLINE_MESSAGES = {
  unknownAction: "未知操作，请刷新页面后重试",
  notFound: "大纲不存在",
  notSeries: "只有连载作品可以使用大纲",
  seriesTooLong: `总纲不能超过 ${OUTLINE_LIMITS.seriesBody} 字`,
  volumeTooLong: `卷纲不能超过 ${OUTLINE_LIMITS.volumeBody} 字`,
  titleEmpty: "请填写卷名",
  titleTooLong: `卷名不能超过 ${OUTLINE_LIMITS.title} 个字`,
  span: `章节范围应为 1 到 ${OUTLINE_LIMITS.chapter} 之间的整数，且起始章不大于结束章`,
  spanTooLong: `一卷最多 ${OUTLINE_LIMITS.volumeSpan} 章`,
  chapter: `章节序号应为 1 到 ${OUTLINE_LIMITS.chapter} 之间的整数`,
  noBeats: "细纲至少要有一个节拍",
  tooManyBeats: (n: number) => `细纲最多 ${OUTLINE_LIMITS.beats} 个节拍，这里有 ${n} 个；请合并节拍或拆成几章`,
  emptyBeat: (i: number) => `第 ${i} 个节拍没有内容`,
  beatTooLong: (i: number) => `第 ${i} 个节拍超过 ${OUTLINE_LIMITS.beatText} 个字`,
  beatWords: (i: number) => `第 ${i} 个节拍的字数应为 ${OUTLINE_LIMITS.minWords} 到 ${OUTLINE_LIMITS.maxWords} 之间的整数`,
  batch: `每批章数应为 1 到 ${OUTLINE_LIMITS.batch} 之间的整数`,
  jobRunning: "这一卷的细纲正在生成中，请等它完成",
  versionNotFound: "这个版本不存在",
  bodyEmpty: "内容不能为空",
} as const;

export type Beat = { text: string; words: number };

/** A refused beat list: the message and the 1-based beat it is about (0: the list). */
export class BeatsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BeatsError";
  }
}

/** A beat in the 细纲 text form: `内容 | 字数`, one per line. */
const beatLine = (b: Beat) => `${b.text} | ${b.words}`;
export const beatsText = (beats: Beat[]) => beats.map(beatLine).join("\n");

/**
 * Reads and checks a 细纲's beats: from the text form (one beat a line, `内容 | 字数`, the
 * budget optional: DEFAULT_BEAT_WORDS) or from a list (the AI's answer). Throws BeatsError
 * with the first problem; an empty line is no beat.
 */
export function checkBeats(input: string | { text: unknown; words: unknown }[]): Beat[] {
  const raw: { text: string; words: unknown }[] =
    typeof input === "string"
      ? input
          .replace(/\r\n?/g, "\n")
          .split("\n")
          .filter((line) => line.trim() !== "")
          .map((line) => {
            const m = /^(.*?)[|｜]\s*([^|｜]*)$/u.exec(line);
            return m ? { text: m[1], words: m[2].trim() === "" ? DEFAULT_BEAT_WORDS : m[2].trim() } : { text: line, words: DEFAULT_BEAT_WORDS };
          })
      : input.map((b) => ({ text: typeof b.text === "string" ? b.text : "", words: b.words }));
  if (raw.length === 0) throw new BeatsError(OUTLINE_MESSAGES.noBeats);
  if (raw.length > OUTLINE_LIMITS.beats) throw new BeatsError(OUTLINE_MESSAGES.tooManyBeats(raw.length));
  return raw.map((b, i) => {
    const text = b.text.replace(/\s+/gu, " ").trim();
    if (!text) throw new BeatsError(OUTLINE_MESSAGES.emptyBeat(i + 1));
    if (countChars(text) > OUTLINE_LIMITS.beatText) throw new BeatsError(OUTLINE_MESSAGES.beatTooLong(i + 1));
    const words = typeof b.words === "number" ? b.words : /^\d+$/.test(String(b.words).trim()) ? Number(String(b.words).trim()) : NaN;
    if (!Number.isSafeInteger(words) || words < OUTLINE_LIMITS.minWords || words > OUTLINE_LIMITS.maxWords) throw new BeatsError(OUTLINE_MESSAGES.beatWords(i + 1));
    return { text, words };
  });
}

/** The marker the model writes before each beat's text (decision 256). */
const beatMarker = (n: number) => `【节拍${n}】`;
const MARKER = /【节拍(\d+)】/gu;

/**
 * 本章计划 from a 细纲: the beats in order with their budgets, and the request to open each
 * beat's text with its marker on a line of its own (decision 256).
 */
export function beatPlan(beats: Beat[]): string {
  const total = beats.reduce((n, b) => n + b.words, 0);
  return [
    `按下面的细纲逐个节拍写这一章（共约${total}字）。每个节拍开始时先单独一行写出它的标记（如${beatMarker(1)}），再写这个节拍的正文；不要写其他标记。`,
    ...beats.map((b, i) => `${beatMarker(i + 1)}（约${b.words}字）${b.text}`),
  ].join("\n");
}

export interface BeatCoverage {
  n: number;
  text: string;
  budget: number;
  /** 字 written under the beat's marker (whitespace not counted). */
  words: number;
  covered: boolean;
}

const wordsOf = (text: string) => countChars(text.replace(/\s+/gu, ""));

/**
 * Which beats the text covered and the 字 per beat (decision 256): the text under a beat's
 * marker, up to the next marker, is that beat's; a beat is covered when its marker is
 * there with text under it. A marker of no beat counts for none; text before the first
 * marker is `before`.
 */
export function beatCoverage(beats: Beat[], text: string): { beats: BeatCoverage[]; before: number; covered: number } {
  const words = new Array<number>(beats.length).fill(0);
  const seen = new Array<boolean>(beats.length).fill(false);
  const marks = [...text.matchAll(MARKER)];
  const before = wordsOf(marks.length ? text.slice(0, marks[0].index) : text);
  marks.forEach((m, i) => {
    const n = Number(m[1]);
    const end = i + 1 < marks.length ? marks[i + 1].index : text.length;
    if (n < 1 || n > beats.length) return;
    seen[n - 1] = true;
    words[n - 1] += wordsOf(text.slice(m.index + m[0].length, end));
  });
  const list = beats.map((b, i) => ({ n: i + 1, text: b.text, budget: b.words, words: words[i], covered: seen[i] && words[i] > 0 }));
  return { beats: list, before, covered: list.filter((b) => b.covered).length };
}

/** The text without the beat markers (what is saved as the chapter). */
export function stripBeatMarkers(text: string): string {
  return text.replace(/[ \t]*【节拍\d+】[ \t]*\n?/gu, "");
}
