// Realistic Chinese titles, descriptions and pen names for the benchmarks, cut from the
// full 西游记 corpus (tests/fixtures/corpus/README.md says where it lives) and mixed with a
// web-fiction word list, so the
// character and character-pair distribution looks like a real Chinese fiction site.
// Everything is deterministic for a given seed.
import fs from "node:fs";
import path from "node:path";

/** Small fast deterministic PRNG (mulberry32). */
export function makeRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export const int = (rand: Random, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
const pick = <T>(rand: Random, list: readonly T[]): T => list[Math.floor(rand() * list.length)];

/** Web-fiction genre words and 西游记 names, to mix into titles and descriptions. */
const WORD_LIST = [
  "修仙", "穿越", "重生", "系统", "江湖", "武侠", "仙侠", "都市", "校园", "悬疑", "推理", "科幻",
  "末世", "星际", "宫斗", "甜宠", "虐恋", "玄幻", "历史", "架空", "同人", "短篇", "长篇", "番外",
  "少年", "少女", "师父", "徒弟", "妖怪", "神仙", "天庭", "取经", "长安", "大唐", "猴王", "龙王",
  "齐天大圣", "西天取经", "花果山", "水帘洞", "龙宫", "天宫", "蟠桃会", "火焰山", "女儿国",
  "盘丝洞", "白骨精", "红孩儿", "牛魔王", "铁扇公主", "紧箍咒", "金箍棒", "筋斗云", "七十二变",
  "观音", "如来", "唐僧", "悟空", "八戒", "沙僧", "白龙马", "土地", "山神", "夜叉", "罗刹",
  "逆袭", "成长", "冒险", "日常", "治愈", "热血", "轻松", "搞笑", "复仇", "救赎", "宿命",
  "前传", "后传", "外传", "新编", "秘闻", "奇谈", "异闻录", "传说", "物语", "笔记", "故事",
];

const TITLE_SUFFIXES = ["传", "记", "录", "志", "之旅", "奇缘", "新传", "外传", "后记", "异闻", "往事", "前传"];
const DESCRIPTION_OPENERS = [
  "本书讲述了", "这是一个关于", "简介：", "【完结】", "【连载中】", "一句话简介：", "新人第一次写文，",
  "短篇，一发完。", "AI 辅助创作。", "原著向，", "脑洞文，", "", "", "", "", "",
];

export interface Corpus {
  /** Sentences of the novel (ending punctuation kept). */
  sentences: string[];
  /** Clauses between punctuation marks, Han characters only, 2 chars or more. */
  clauses: string[];
  /** Chapter title halves such as 灵根育孕源流出. */
  chapterPhrases: string[];
  /** The whole text, for n-gram statistics. */
  text: string;
}

let cached: Corpus | undefined;

/**
 * A file of the full 西游记 corpus in `CORPUS_DIR`, or undefined where it is not set or lacks
 * the file (tests/fixtures/corpus/README.md). The repository itself carries only the excerpt
 * in tests/fixtures/corpus; tests fall back to it.
 */
export function fullCorpusFile(name = "xiyouji.utf8.txt"): string | undefined {
  const dir = process.env.CORPUS_DIR;
  const file = dir ? path.join(dir, name) : undefined;
  return file && fs.existsSync(file) ? file : undefined;
}

function corpusPath(): string {
  const found = fullCorpusFile();
  if (!found) throw new Error("the full 西游记 corpus was not found: set CORPUS_DIR (tests/fixtures/corpus/README.md)");
  return found;
}

export function loadCorpus(): Corpus {
  if (cached) return cached;
  const lines = fs.readFileSync(corpusPath(), "utf8").split("\n");
  const sentences: string[] = [];
  const clauses: string[] = [];
  const chapterPhrases: string[] = [];
  const paragraphs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    if (line === "####") {
      // The next line is a chapter title: 第一回　灵根育孕源流出　心性修持大道生
      const title = (lines[i + 1] ?? "").trim();
      for (const part of title.split(/\s+/u).slice(1)) if (part.length >= 4) chapterPhrases.push(part);
      i++;
      continue;
    }
    paragraphs.push(line);
    for (const s of line.match(/[^。！？]+[。！？」”]*/gu) ?? []) {
      const sentence = s.trim();
      if (sentence.length >= 4) sentences.push(sentence);
    }
    for (const c of line.split(/[^\p{Script=Han}]+/u)) if (c.length >= 2) clauses.push(c);
  }
  cached = { sentences, clauses, chapterPhrases, text: paragraphs.join("\n") };
  return cached;
}

function cut(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : chars.slice(0, max).join("");
}

const charLength = (s: string) => Array.from(s).length;

/** A title of 4 to 12 characters. */
export function makeTitle(rand: Random, corpus: Corpus): string {
  const target = int(rand, 4, 12);
  let title: string;
  const kind = rand();
  if (kind < 0.35) {
    // A clause of the novel: 话表齐天大圣 / 却说那猴王
    title = pick(rand, corpus.clauses);
    while (charLength(title) < target) title += pick(rand, corpus.clauses);
  } else if (kind < 0.55) {
    title = pick(rand, corpus.chapterPhrases);
  } else if (kind < 0.85) {
    // Word-list combinations: 重生之花果山奇缘, 悟空外传
    const a = pick(rand, WORD_LIST);
    const b = pick(rand, WORD_LIST);
    title = rand() < 0.5 ? `${a}之${b}${pick(rand, TITLE_SUFFIXES)}` : `${a}${pick(rand, corpus.clauses)}`;
  } else {
    title = `${pick(rand, corpus.clauses)}${pick(rand, TITLE_SUFFIXES)}`;
  }
  title = cut(title, target);
  while (charLength(title) < 4) title += pick(rand, TITLE_SUFFIXES);
  return cut(title, 12);
}

/** A description of 40 to 200 characters: consecutive sentences of the novel, sometimes with a word-list lead. */
export function makeDescription(rand: Random, corpus: Corpus): string {
  const target = int(rand, 40, 200);
  let text = pick(rand, DESCRIPTION_OPENERS);
  if (rand() < 0.3) text += `${pick(rand, WORD_LIST)}与${pick(rand, WORD_LIST)}的故事。`;
  let i = Math.floor(rand() * corpus.sentences.length);
  while (charLength(text) < target) {
    text += corpus.sentences[i % corpus.sentences.length];
    i++;
  }
  return cut(text, target);
}

/** A pen name of 2 to 6 characters. */
export function makeNickname(rand: Random, corpus: Corpus, n: number): string {
  const clause = pick(rand, corpus.clauses);
  const start = int(rand, 0, Math.max(0, charLength(clause) - 2));
  const base = Array.from(clause).slice(start, start + int(rand, 2, 4)).join("");
  return rand() < 0.4 ? `${base}${n}` : base;
}

/**
 * Han-only n-grams of the novel by frequency, most frequent first (for picking queries
 * of a given length that match more or fewer works).
 */
export function ngramsByFrequency(corpus: Corpus, n: number): { gram: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const run of corpus.text.split(/[^\p{Script=Han}]+/u)) {
    const chars = Array.from(run);
    for (let i = 0; i + n <= chars.length; i++) {
      const g = chars.slice(i, i + n).join("");
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .map(([gram, count]) => ({ gram, count }))
    .sort((a, b) => b.count - a.count || (a.gram < b.gram ? -1 : 1));
}
