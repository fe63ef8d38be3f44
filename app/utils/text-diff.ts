import { diffLines, diffWords } from "diff";

/** One run of a difference: kept, added or removed text. */
export interface DiffPart {
  value: string;
  added: boolean;
  removed: boolean;
}

/** How long a line-by-line difference may take (ms) before the whole text is given as replaced. */
const DIFF_TIMEOUT_MS = 150;
/** Up to this many characters a changed passage is compared word by word (segmenting is the cost). */
const WORD_DIFF_MAX = 2000;

function words(before: string, after: string): DiffPart[] {
  const segmenter = typeof Intl !== "undefined" && "Segmenter" in Intl ? new Intl.Segmenter("zh", { granularity: "word" }) : undefined;
  return diffWords(before, after, segmenter ? { intlSegmenter: segmenter } : {}).map((p) => ({ value: p.value, added: Boolean(p.added), removed: Boolean(p.removed) }));
}

/**
 * `after` against `before`: paragraphs (lines) first, then each replaced passage of a
 * reasonable size word by word (Chinese words by Intl.Segmenter), so a whole chapter costs a
 * few milliseconds; a difference too costly even line by line (a rewritten chapter) is the
 * old text removed and the new added.
 */
export function textDiff(before: string, after: string): DiffPart[] {
  if (before.length + after.length <= WORD_DIFF_MAX) return words(before, after);
  const lines = diffLines(before, after, { timeout: DIFF_TIMEOUT_MS }) ?? [
    { value: before, added: false, removed: true },
    { value: after, added: true, removed: false },
  ];
  const out: DiffPart[] = [];
  for (let i = 0; i < lines.length; i++) {
    const p = lines[i];
    const next = lines[i + 1];
    if (p.removed && next?.added && p.value.length + next.value.length <= WORD_DIFF_MAX) {
      out.push(...words(p.value, next.value));
      i++;
    } else {
      out.push({ value: p.value, added: Boolean(p.added), removed: Boolean(p.removed) });
    }
  }
  return out.filter((p) => p.value !== "");
}
