/**
 * The shapes of 书评 as the pages and components receive them, made by
 * community/book-reviews.server.ts (decision 211).
 */

export type ReviewSort = "hot" | "new";

/** A work's rating as shown: the average only once `count` reaches `min` (评分人数不足 before). */
export interface RatingSummary {
  count: number;
  /** One decimal, or null while fewer than `min` readers rated. */
  average: number | null;
  min: number;
}

export interface BookReviewView {
  id: number;
  rating: number;
  body: string;
  createdAt: string;
  updatedAt: string;
  edited: boolean;
  author: { id: string; nickname: string; avatarUrl: string | null };
  mine: boolean;
  featured: boolean;
  pinned: boolean;
  /** Hidden by an operator after a report: only its writer still sees it, marked. */
  hidden: boolean;
  likeCount: number;
  liked: boolean;
  authorReply: { body: string; at: string } | null;
}
