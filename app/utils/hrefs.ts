// Addresses the pages link to, without zod (docs/decisions/243).

/**
 * Where an author's name links: their page, `/authors/:id` (decision 230), which lists the
 * same works as `/works?author=` (still served, for the filters and old links).
 */
export function authorWorksHref(userId: string): string {
  return `/authors/${encodeURIComponent(userId)}`;
}

/** A tag's page. */
export function tagHref(tag: string): string {
  return `/tags/${encodeURIComponent(tag)}`;
}
