import * as OpenCC from "opencc-js";

/**
 * The sensitive-word matcher (docs/product.md#screening, docs/decisions/195): pure code, no
 * database. Text and words are folded the same way, one code point at a time, so that
 * evasions fold away: NFKC (full-width and compatibility forms), lower case, traditional to
 * simplified characters (opencc-js, character by character), and separators dropped
 * (spaces, punctuation, symbols, zero-width and other format characters, combining marks).
 * The folded text keeps, for each of its code units, the original code point it came from,
 * so a hit is reported (and masked) at its offsets in the original text. Matching is our
 * own Aho-Corasick over the folded code units (decision 195: modern-ahocorasick segments
 * the text into graphemes with Intl.Segmenter, seconds for 1 MB).
 */

type WordLevel = "forbid" | "review" | "replace";

export interface MatcherWord {
  word: string;
  category: string;
  level: WordLevel;
}

/** One occurrence of a word in a text: `start`/`end` are UTF-16 offsets in the original text. */
export interface Hit extends MatcherWord {
  start: number;
  end: number;
}

// A code point's folded form, cached per code point: single code units in a table, the
// rest (dropped, several units, astral) in a map.
const UNSET = 0;
const DROPPED = 0x1_0000;
const OTHER = 0x1_0001;
const table = new Uint32Array(0x1_0000);
const others = new Map<number, string>();

const SEPARATOR = /^[\p{P}\p{S}\p{Z}\p{C}\p{M}]$/u;
let toSimplified: ((text: string) => string) | null = null;

function simplified(char: string): string {
  // Taiwan and Hong Kong variants first (裡 → 裏), then traditional to simplified (裏 → 里).
  toSimplified ??= (() => {
    const tw = OpenCC.Converter({ from: "tw", to: "cn" });
    const hk = OpenCC.Converter({ from: "hk", to: "cn" });
    return (text: string) => {
      const a = tw(text);
      return a !== text ? a : hk(text);
    };
  })();
  return toSimplified(char);
}

function foldCodePointNow(codePoint: number): string {
  let out = "";
  for (const char of String.fromCodePoint(codePoint).normalize("NFKC").toLowerCase()) {
    if (SEPARATOR.test(char)) continue;
    out += /[\u3400-\u9fff\uf900-\ufaff]/u.test(char) ? simplified(char) : char;
  }
  return out;
}

/** The folded form of one code point ("" for a separator). */
function foldCodePoint(codePoint: number): string {
  if (codePoint < 0x1_0000) {
    const cached = table[codePoint];
    if (cached !== UNSET) return cached === DROPPED ? "" : cached === OTHER ? others.get(codePoint)! : String.fromCharCode(cached - 1);
    const folded = foldCodePointNow(codePoint);
    if (folded === "") table[codePoint] = DROPPED;
    else if (folded.length === 1 && folded.charCodeAt(0) + 1 < DROPPED) table[codePoint] = folded.charCodeAt(0) + 1;
    else {
      others.set(codePoint, folded);
      table[codePoint] = OTHER;
    }
    return folded;
  }
  let folded = others.get(codePoint);
  if (folded === undefined) others.set(codePoint, (folded = foldCodePointNow(codePoint)));
  return folded;
}

/** A text folded: its code units, and for each the original code point's range. */
interface Folded {
  units: Uint16Array;
  length: number;
  starts: Uint32Array;
  ends: Uint32Array;
}

/** Folds a whole text (see the top of this file). */
function foldText(text: string): Folded {
  // Folding rarely grows a text (NFKC of a ligature, ㈱): room for twice, grown if needed.
  let capacity = text.length + 16;
  let units = new Uint16Array(capacity);
  let starts = new Uint32Array(capacity);
  let ends = new Uint32Array(capacity);
  let length = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let codePoint = code;
    let width = 1;
    if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        codePoint = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x1_0000;
        width = 2;
      }
    }
    let single = -1;
    let several: string | null = null;
    if (codePoint < 0x1_0000) {
      const cached = table[codePoint];
      if (cached > UNSET && cached < DROPPED) single = cached - 1;
      else if (cached === DROPPED) single = -2;
    }
    if (single === -1) {
      const folded = foldCodePoint(codePoint);
      if (folded.length === 1) single = folded.charCodeAt(0);
      else if (folded.length === 0) single = -2;
      else several = folded;
    }
    if (single !== -2) {
      const count = several ? several.length : 1;
      if (length + count > capacity) {
        capacity = capacity * 2 + count;
        units = grow(units, new Uint16Array(capacity));
        starts = grow(starts, new Uint32Array(capacity));
        ends = grow(ends, new Uint32Array(capacity));
      }
      for (let k = 0; k < count; k++) {
        units[length] = several ? several.charCodeAt(k) : single;
        starts[length] = i;
        ends[length] = i + width;
        length++;
      }
    }
    i += width;
  }
  return { units, length, starts, ends };
}

function grow<T extends Uint16Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** A word's folded form as a string: the key that makes two spellings the same word. */
export function foldWord(word: string): string {
  const { units, length } = foldText(word);
  let out = "";
  for (let i = 0; i < length; i++) out += String.fromCharCode(units[i]);
  return out;
}

/**
 * Whether a text is nothing but invisible characters (zero-width spaces and joiners, BOMs,
 * other format characters) and white space, with at least one invisible one: it looks
 * empty but `trim()` keeps it (docs/product.md#screening, bad input).
 */
export function isOnlyInvisible(text: string): boolean {
  return /\p{Cf}/u.test(text) && !/[^\s\p{Cf}]/u.test(text);
}

/**
 * Aho-Corasick over folded code units. The trie's edges are kept sorted per node in flat
 * typed arrays (binary search), the root's in a direct table; failure links computed
 * breadth first; each node keeps the nearest word ending at it or along its failure chain.
 */
export class Matcher {
  readonly size: number;
  private readonly rootNext: Int32Array;
  private readonly edgeStart: Uint32Array;
  private readonly edgeUnits: Uint16Array;
  private readonly edgeTargets: Uint32Array;
  private readonly fail: Uint32Array;
  /** The word ending at this node (index into words + 1; 0: none). */
  private readonly output: Uint32Array;
  /** The next node along the failure chain with an output (0: none). */
  private readonly outputLink: Uint32Array;
  private readonly depth: Uint16Array;
  private readonly words: MatcherWord[];

  constructor(list: readonly MatcherWord[]) {
    // Builds the trie with a Map of edges per node, then flattens it.
    const children: Map<number, number>[] = [new Map()];
    const outputs: number[] = [0];
    const depths: number[] = [0];
    this.words = [];
    for (const entry of list) {
      const key = foldWord(entry.word);
      if (!key) continue;
      let node = 0;
      for (let i = 0; i < key.length; i++) {
        const unit = key.charCodeAt(i);
        let next = children[node].get(unit);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          outputs.push(0);
          depths.push(depths[node] + 1);
          children[node].set(unit, next);
        }
        node = next;
      }
      // Two spellings of one word: the first listed wins (the list refuses such duplicates).
      if (outputs[node] === 0) {
        this.words.push(entry);
        outputs[node] = this.words.length;
      }
    }
    const count = children.length;
    this.size = this.words.length;
    this.edgeStart = new Uint32Array(count + 1);
    let edges = 0;
    for (let n = 0; n < count; n++) {
      this.edgeStart[n] = edges;
      if (n !== 0) edges += children[n].size;
    }
    this.edgeStart[count] = edges;
    this.edgeUnits = new Uint16Array(edges);
    this.edgeTargets = new Uint32Array(edges);
    this.rootNext = new Int32Array(0x1_0000);
    for (const [unit, target] of children[0]) this.rootNext[unit] = target;
    for (let n = 1; n < count; n++) {
      const sorted = [...children[n]].sort((a, b) => a[0] - b[0]);
      let at = this.edgeStart[n];
      for (const [unit, target] of sorted) {
        this.edgeUnits[at] = unit;
        this.edgeTargets[at++] = target;
      }
    }
    this.output = Uint32Array.from(outputs);
    this.depth = Uint16Array.from(depths.map((d) => Math.min(d, 0xffff)));
    this.fail = new Uint32Array(count);
    this.outputLink = new Uint32Array(count);
    // Breadth first: a node's failure is found from its parent's.
    const queue = new Uint32Array(count);
    let head = 0;
    let tail = 0;
    for (const target of children[0].values()) queue[tail++] = target;
    while (head < tail) {
      const node = queue[head++];
      for (const [unit, target] of children[node]) {
        let f = this.fail[node];
        let next = this.step(f, unit);
        while (next === -1) {
          f = this.fail[f];
          next = this.step(f, unit);
        }
        this.fail[target] = next === target ? 0 : next;
        const failNode = this.fail[target];
        this.outputLink[target] = this.output[failNode] !== 0 ? failNode : this.outputLink[failNode];
        queue[tail++] = target;
      }
    }
    children.length = 0;
  }

  /** The child of `node` by `unit`, or -1 (the root answers 0 for a missing edge). */
  private step(node: number, unit: number): number {
    if (node === 0) return this.rootNext[unit];
    let low = this.edgeStart[node];
    let high = this.edgeStart[node + 1] - 1;
    const units = this.edgeUnits;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const u = units[mid];
      if (u === unit) return this.edgeTargets[mid];
      if (u < unit) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** Every occurrence of every word, in the order they end; offsets in the original text. */
  find(text: string): Hit[] {
    const hits: Hit[] = [];
    if (this.size === 0 || text.length === 0) return hits;
    const { units, length, starts, ends } = foldText(text);
    let node = 0;
    for (let i = 0; i < length; i++) {
      const unit = units[i];
      let next = this.step(node, unit);
      while (next === -1) {
        node = this.fail[node];
        next = this.step(node, unit);
      }
      node = next;
      let out = this.output[node] !== 0 ? node : this.outputLink[node];
      while (out !== 0) {
        const word = this.words[this.output[out] - 1];
        hits.push({ ...word, start: starts[i + 1 - this.depth[out]], end: ends[i] });
        out = this.outputLink[out];
      }
    }
    return hits;
  }

  /** Bytes held by the typed arrays (the words' strings aside): for the benchmark. */
  get tableBytes(): number {
    return [this.rootNext, this.edgeStart, this.edgeUnits, this.edgeTargets, this.fail, this.output, this.outputLink, this.depth].reduce(
      (sum, array) => sum + array.byteLength,
      0,
    );
  }
}

/** The mask character (docs/product.md#screening). */
const MASK = "＊";

/**
 * The text with every hit of the given levels masked: each code point inside a hit that is
 * not a separator becomes ＊ (an inserted space or dot stays, so the length stays close).
 */
export function maskHits(text: string, hits: readonly Hit[]): string {
  if (hits.length === 0) return text;
  const ranges = hits.map((h) => [h.start, h.end] as const).sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of ranges) {
    const from = Math.max(start, at);
    if (from >= end) continue;
    out += text.slice(at, from);
    for (const char of text.slice(from, end)) out += foldCodePoint(char.codePointAt(0)!) === "" ? char : MASK;
    at = end;
  }
  return out + text.slice(at);
}
