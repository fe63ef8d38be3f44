/**
 * A work's Atom feed of chapters (`/works/:id/feed.xml`, app/server/catalog/feeds.server.ts), for
 * a work a visitor may see: not private, all ages (a feed reader has no session). Null
 * where the feed answers 404, so no page offers it.
 */
export function workFeedHref(work: { id: number; visibility: string; rating: string }): string | null {
  return work.visibility !== "private" && work.rating === "all_ages" ? `/works/${work.id}/feed.xml` : null;
}
