/**
 * Token arithmetic (docs/product.md: Constants, D7): 1 token per 4 characters,
 * rounded up. A character is a Unicode code point, so an emoji counts once, as a reader
 * would count it. A generation costs tokensFor(prompt) + tokensFor(output), each rounded
 * up on its own.
 */
export const CHARS_PER_TOKEN = 4;

export function countChars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export function tokensFor(text: string): number {
  return tokensForChars(countChars(text));
}

/**
 * How much of `text` the output may still take when `sentChars` characters have been sent
 * and `heldTokens` tokens are held for output: the longest prefix (by code point) whose
 * total output cost stays within the hold.
 */
export function affordablePrefix(text: string, sentChars: number, heldTokens: number): string {
  const room = heldTokens * CHARS_PER_TOKEN - sentChars;
  if (room <= 0) return "";
  const chars = Array.from(text);
  return chars.length <= room ? text : chars.slice(0, room).join("");
}

/** What a generation is expected to cost before it starts: its prompt and its expected output. */
export interface GenerationEstimate {
  promptTokens: number;
  /** The expected output (`expectedChars`, the plot's 预计字数 or a chapter's length) by the same rule. */
  outputTokens: number;
  tokens: number;
}

/**
 * 预计消耗 (docs/product.md#tokens): the prompt's estimate plus the expected output's, both
 * at 1 token per 4 characters; the settlement then follows the provider's reported usage.
 * The one estimate the writing pages, 连载续写 and 本次上下文 show.
 */
export function generationEstimate(promptTokens: number, expectedChars: number): GenerationEstimate {
  const outputTokens = tokensForChars(Math.max(0, expectedChars));
  return { promptTokens, outputTokens, tokens: promptTokens + outputTokens };
}
