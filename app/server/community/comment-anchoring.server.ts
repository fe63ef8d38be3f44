/**
 * Where a 段评 belongs after its chapter was edited (docs/decisions/090-comments.md):
 * the paragraph with exactly its stored text (the nearest to its old place when the text
 * occurs more than once), else the most similar paragraph by character-bigram Dice
 * coefficient if that reaches ANCHOR_THRESHOLD, else none (it moves to 本章说 with its
 * quote). Pure functions: comments.server.ts reads and writes the rows.
 */

/** The least Dice similarity for a rewritten paragraph to keep its comments. @internal */
export const ANCHOR_THRESHOLD = 0.5;

/**
 * Characters as small numbers, the first seen first (bounded: past 32,767 distinct
 * characters the rest share the last number, which only blurs scores among rare ones).
 * A pair is then one small integer, which V8 hashes fast: with string pairs, or with code
 * point products beyond 2^30, indexing a 3,000-paragraph chapter took over a second
 * (docs/benchmarks.md#comments).
 */
const CHAR_IDS = new Map<number, number>();
const MAX_ID = 32_767;

function charId(code: number): number {
  let id = CHAR_IDS.get(code);
  if (id === undefined) {
    id = Math.min(CHAR_IDS.size + 1, MAX_ID);
    if (CHAR_IDS.size < MAX_ID) CHAR_IDS.set(code, id);
  }
  return id;
}

/** The distinct character pairs of a text (a one-character text is its own "pair"), white space ignored. @internal */
export function bigrams(text: string): Set<number> {
  const out = new Set<number>();
  let previous = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code <= 32 || code === 0x3000 || code === 0xa0) continue; // white space (ASCII, ideographic, no-break)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) code = text.codePointAt(i++)!;
    const id = charId(code);
    if (count > 0) out.add(previous * (MAX_ID + 1) + id);
    previous = id;
    count++;
  }
  // One character alone: negative, so it never equals a pair.
  if (count === 1) out.add(-previous);
  return out;
}

/** Sørensen–Dice over distinct bigrams: 1 for the same pairs, 0 for none shared. @internal */
export function dice(a: Set<number>, b: Set<number>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const gram of small) if (large.has(gram)) shared++;
  return (2 * shared) / (a.size + b.size);
}

export interface Anchor {
  /** The paragraph index the comment was on. */
  index: number;
  /** The paragraph's text when the comment was written (or last re-anchored). */
  text: string;
}

/**
 * For each anchor, its paragraph index in `paragraphs`, or null when nothing matches.
 * Work is per anchor, not per comment (20,000 comments on a chapter share its few
 * thousand paragraphs), and similarity is computed only for anchors whose exact text is
 * gone: one pass over the paragraphs' pairs counts, for each such anchor, the pairs each
 * paragraph shares with it (an index of the few inexact anchors' pairs, not of the
 * chapter's).
 */
export function reanchor(anchors: Anchor[], paragraphs: string[], threshold = ANCHOR_THRESHOLD): (number | null)[] {
  const positions = new Map<string, number[]>();
  paragraphs.forEach((text, i) => {
    const list = positions.get(text);
    if (list) list.push(i);
    else positions.set(text, [i]);
  });

  const results: (number | null)[] = new Array(anchors.length).fill(null);
  // Anchors whose text is gone, one per distinct (index, text): their pairs, and which
  // results wait for them.
  const inexact: { index: number; grams: Set<number>; shared: Map<number, number>; waiting: number[] }[] = [];
  const byKey = new Map<string, number>();
  anchors.forEach(({ index, text }, k) => {
    if (paragraphs[index] === text) return void (results[k] = index);
    const exact = positions.get(text);
    if (exact) return void (results[k] = nearest(exact, index));
    const key = `${index}\u0000${text}`;
    const known = byKey.get(key);
    if (known !== undefined) return void inexact[known].waiting.push(k);
    byKey.set(key, inexact.length);
    inexact.push({ index, grams: bigrams(text), shared: new Map(), waiting: [k] });
  });
  if (inexact.length === 0) return results;

  const wanted = new Map<number, number[]>();
  inexact.forEach((anchor, a) => {
    for (const gram of anchor.grams) {
      const list = wanted.get(gram);
      if (list) list.push(a);
      else wanted.set(gram, [a]);
    }
  });
  const sizes = paragraphs.map((text, i) => {
    const grams = bigrams(text);
    for (const gram of grams) {
      const list = wanted.get(gram);
      if (list) for (const a of list) inexact[a].shared.set(i, (inexact[a].shared.get(i) ?? 0) + 1);
    }
    return grams.size;
  });

  for (const anchor of inexact) {
    let best: number | null = null;
    let bestScore = 0;
    for (const [i, count] of anchor.shared) {
      const score = (2 * count) / (anchor.grams.size + sizes[i]);
      // Ties go to the paragraph nearest the old place.
      if (score > bestScore || (score === bestScore && best !== null && Math.abs(i - anchor.index) < Math.abs(best - anchor.index))) {
        best = i;
        bestScore = score;
      }
    }
    const found = best !== null && bestScore >= threshold ? best : null;
    for (const k of anchor.waiting) results[k] = found;
  }
  return results;
}

function nearest(list: number[], index: number): number {
  let best = list[0];
  for (const i of list) if (Math.abs(i - index) < Math.abs(best - index)) best = i;
  return best;
}
