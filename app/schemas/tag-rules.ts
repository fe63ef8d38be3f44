// Tags as stored and their limit, without zod: the tag and list pages ship only this
// (docs/decisions/243); studio.ts validates with them.

export const TAG_MAX_CHARS = 20;

/**
 * A tag as stored: NFKC folds full-width letters, digits and punctuation to half-width
 * (Ｒ１８ → R18, full-width spaces too), then whitespace runs become one space and the
 * ends are trimmed. Case is kept: Chinese tags have none and authors mean their Latin.
 */
export function normalizeTag(raw: string): string {
  return raw.normalize("NFKC").replace(/\s+/gu, " ").trim();
}

/**
 * The tags field: one text, tags separated by commas (either width), 、 or line breaks.
 * Empty pieces are dropped and repeats (after normalizing) kept once, first wins.
 */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.normalize("NFKC").split(/[,、;\n]/u)) {
    const tag = normalizeTag(piece);
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}
