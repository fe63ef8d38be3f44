/**
 * The shapes of 本章说 and 段评 as the pages and components receive them, made by
 * community/comments.server.ts (`listComments`). Here, not in the server module, so the
 * components import no server module (docs/architecture.md#domains).
 */

export type CommentSort = "hot" | "new";

export interface CommentView {
  id: number;
  body: string;
  createdAt: string;
  author: { id: string; nickname: string; avatarUrl: string | null };
  /** Written by the work's author: marked 作者. */
  byWorkAuthor: boolean;
  /** The writer's 粉丝等级 on this work (decision 207); null for the work's author. */
  fanLevel: string | null;
  /** A tip notice (打赏了 N 积分): the credits tipped; its body is the tip's message, possibly empty. */
  tipAmount: number | null;
  mine: boolean;
  hidden: boolean;
  /** Held by a 审核 word until a reviewer decides (only its writer sees it): 审核中; `rejected` once refused. */
  held: "pending" | "rejected" | null;
  likeCount: number;
  liked: boolean;
  replyCount: number;
  /** A 段评 whose paragraph was edited away: the words it was about. */
  quote: string | null;
  replies: CommentView[];
}

/** One page of a thread (`listComments`). */
export interface CommentThread {
  work: { id: number; title: string; authorNickname: string };
  chapter: { id: number; title: string; order: number };
  isOwner: boolean;
  /** The 段评's paragraph, or null for the chapter's 本章说. */
  paragraph: { index: number; text: string } | null;
  comments: CommentView[];
  total: number;
  page: number;
  pageCount: number;
  /** The viewer must bind a phone before posting (后台实名 on, none bound; decision 235). */
  phoneNeeded: boolean;
}

/** What the thread page's loader gives the reader's thread dialog (routes/shell/reader/comments.tsx). */
export type ThreadDialogData =
  | (CommentThread & { sort: CommentSort; signedIn: boolean; formTokens: { post: string; replies: Record<string, string> } | null })
  | { dialogError: string };
