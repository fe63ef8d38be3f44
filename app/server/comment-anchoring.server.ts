/**
 * Where a 段评 belongs after its chapter was edited (docs/decisions/090-comments.md):
 * the paragraph with exactly its stored text (the nearest to its old place when the text
 * occurs more than once), else the most similar paragraph by character-bigram Dice
 * coefficient if that reaches ANCHOR_THRESHOLD, else none (it moves to 本章说 with its
 * quote). Pure functions: comments.server.ts reads and writes the rows.
 */

/** The least Dice similarity for a rewritten paragraph to keep its comments. */
export const ANCHOR_THRESHOLD = 0.5;

/** The distinct character pairs of a text (a one-character text is its own "pair"). */
export function bigrams(text: string): Set<string> {
  const chars = Array.from(text.replace(/\s+/g, ""));
  const out = new Set<string>();
  if (chars.length === 1) out.add(chars[0]);
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  return out;
}

/** Sørensen–Dice over distinct bigrams: 1 for the same pairs, 0 for none shared. */
export function dice(a: Set<string>, b: Set<string>): number {
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
 * For each distinct anchor, its paragraph index in `paragraphs`, or null when nothing
 * matches. Work is per distinct anchor, not per comment: 20,000 comments on a chapter
 * share at most its few thousand paragraphs.
 */
export function reanchor(anchors: Anchor[], paragraphs: string[], threshold = ANCHOR_THRESHOLD): (number | null)[] {
  const positions = new Map<string, number[]>();
  paragraphs.forEach((text, i) => {
    const list = positions.get(text);
    if (list) list.push(i);
    else positions.set(text, [i]);
  });
  let grams: Set<string>[] | null = null;
  // Inverted index bigram -> paragraphs holding it, built on the first inexact anchor.
  let postings: Map<string, number[]> | null = null;
  const memo = new Map<string, number | null>();

  return anchors.map(({ index, text }) => {
    if (paragraphs[index] === text) return index;
    const exact = positions.get(text);
    if (exact) return nearest(exact, index);
    const key = `${index}\u0000${text}`;
    const known = memo.get(key);
    if (known !== undefined) return known;

    if (!grams || !postings) {
      grams = paragraphs.map(bigrams);
      postings = new Map();
      grams.forEach((set, i) => {
        for (const gram of set) {
          const list = postings!.get(gram);
          if (list) list.push(i);
          else postings!.set(gram, [i]);
        }
      });
    }
    const mine = bigrams(text);
    const shared = new Map<number, number>();
    for (const gram of mine) for (const i of postings.get(gram) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    let best: number | null = null;
    let bestScore = 0;
    for (const [i, count] of shared) {
      const score = (2 * count) / (mine.size + grams[i].size);
      // Ties go to the paragraph nearest the old place.
      if (score > bestScore || (score === bestScore && best !== null && Math.abs(i - index) < Math.abs(best - index))) {
        best = i;
        bestScore = score;
      }
    }
    const found = best !== null && bestScore >= threshold ? best : null;
    memo.set(key, found);
    return found;
  });
}

function nearest(list: number[], index: number): number {
  let best = list[0];
  for (const i of list) if (Math.abs(i - index) < Math.abs(best - index)) best = i;
  return best;
}
