/**
 * The pure part of 听书 (docs/decisions/238): how a paragraph is cut for the browser's
 * speech engine, which voices count as Chinese, and the choices of speed and sleep timer.
 */

/**
 * The longest text given to one utterance. Chrome's engines stop a long utterance after
 * about 15 seconds and some Android engines refuse more than ~4,000 characters; 150 字 is
 * a sentence or two, read in under a minute.
 */
const SPEECH_CHUNK = 150;

const SENTENCE_END = /[。！？!?；;…]+[”’」』）)]*/g;
const CLAUSE_END = /[，,、：:]+/g;

/**
 * A paragraph cut into pieces of at most `max` characters, at a sentence's end where one
 * fits, else at a comma, else anywhere. Blank text gives nothing to say.
 */
export function chunkForSpeech(text: string, max = SPEECH_CHUNK): string[] {
  const chars = Array.from(text.trim());
  if (chars.length === 0) return [];
  const chunks: string[] = [];
  let rest = chars.join("");
  while (Array.from(rest).length > max) {
    const head = Array.from(rest).slice(0, max).join("");
    const cut = lastBreak(head, SENTENCE_END) ?? lastBreak(head, CLAUSE_END) ?? head.length;
    const piece = rest.slice(0, cut).trim();
    if (piece) chunks.push(piece);
    rest = rest.slice(cut).trimStart();
  }
  if (rest.trim()) chunks.push(rest.trim());
  return chunks;
}

/** The end (string index) of the last match of `pattern` in `head`, not at its very start. */
function lastBreak(head: string, pattern: RegExp): number | null {
  let end: number | null = null;
  for (const match of head.matchAll(pattern)) {
    const at = (match.index ?? 0) + match[0].length;
    if (at > 0) end = at;
  }
  return end;
}

interface VoiceLike {
  lang: string;
  voiceURI: string;
  name: string;
  default?: boolean;
}

/** The Chinese voices present (lang zh, zh-CN, zh_TW, cmn-Hans-CN…), 普通话 of the mainland first. */
export function chineseVoices<V extends VoiceLike>(voices: readonly V[]): V[] {
  const zh = voices.filter((v) => /^(zh|cmn|yue)([-_]|$)/i.test(v.lang));
  const rank = (v: V) => (/^(zh|cmn)[-_](cn|hans)/i.test(v.lang) ? 0 : /^(zh|cmn)$/i.test(v.lang) ? 1 : 2);
  return zh.map((v, i) => ({ v, i })).sort((a, b) => rank(a.v) - rank(b.v) || a.i - b.i).map(({ v }) => v);
}

/** The remembered voice if it is still present, else the first Chinese one; null when none. */
export function pickVoice<V extends VoiceLike>(voices: readonly V[], remembered: string | null): V | null {
  return voices.find((v) => v.voiceURI === remembered) ?? voices[0] ?? null;
}

/** 语速 choices: 0.75× to 2×. */
export const SPEECH_RATES = [0.75, 1, 1.25, 1.5, 1.75, 2] as const;

/** A stored or chosen speed, kept within 0.75-2 (1 when it is not a number). */
export function parseRate(value: string | null): number {
  const n = Number(value);
  if (value === null || value === "" || !Number.isFinite(n)) return 1;
  return Math.min(2, Math.max(0.75, n));
}

/** 定时关闭: off, minutes, or at the chapter's end. */
export type SleepTimer = "off" | "15" | "30" | "60" | "chapter";

export const SLEEP_TIMERS: { value: SleepTimer; label: string }[] = [
  { value: "off", label: "不定时" },
  { value: "15", label: "15 分钟" },
  { value: "30", label: "30 分钟" },
  { value: "60", label: "60 分钟" },
  { value: "chapter", label: "本章结束" },
];
