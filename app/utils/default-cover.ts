/**
 * The generated cover of a work without one (docs/product.md D5): its address carries a
 * hash of the title and author name, so a renamed work gets a new image and the old one
 * can be cached for good. Shared by the server and the browser (cards render in both).
 */
export function coverHash(title: string, author: string): string {
  // FNV-1a, 32 bits: a cache key and a colour seed, not a secret.
  let h = 0x811c9dc5;
  for (const ch of `${title}\u0000${author}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

export function defaultCoverHref(work: { id: number; title: string; authorNickname: string }): string {
  return `/covers/${work.id}.webp?v=${coverHash(work.title, work.authorNickname)}`;
}
