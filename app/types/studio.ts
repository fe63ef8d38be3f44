/**
 * The shapes the studio's pages hand to its components (components/studio/): here so the
 * components import no server or route module (docs/architecture.md#domains).
 */

/** A reviewer's decision on a chapter sent back, as its author sees it (docs/product.md#review, decision 206). */
export interface ReviewNoteFacts {
  status: "returned" | "rejected";
  note: string;
  /** The last decision was a 总编辑's on the author's appeal. */
  onAppeal: boolean;
  /** Whether the decision may still be appealed (once), or an appeal waits. */
  appeal: "open" | "pending" | "closed";
}

/**
 * The last review of an edit of a published chapter (decision 213): waiting, or sent back /
 * refused with the reviewer's reason (readers keep the approved text either way).
 */
export type EditReviewFacts = { status: "pending" } | { status: "returned" | "rejected"; note: string };

/** What the owner sees of their work's review (decision 214). */
export interface WorkReviewFacts {
  /** A new work waiting for its first approval: private until then, its chosen listing kept. */
  newWork: boolean;
  /** A change of title, description, cover or tags waiting while readers keep the approved ones. */
  pending: boolean;
  /**
   * The last decision, when it sent the metadata back: the reviewer's reason, and whether it
   * may be appealed (decision 239) as a chapter's may.
   */
  sentBack: ReviewNoteFacts | null;
}

/** A row of the chapter manager (studio/chapters.server.ts): a volume heading or a chapter. */
export type ManagerRow =
  | { kind: "volume"; id: number; title: string; continued: boolean; first: boolean; last: boolean }
  | {
      kind: "chapter";
      id: number;
      title: string;
      wordCount: number;
      index: number;
      volumeId: number | null;
      /** review: 审核中 (docs/product.md#review). */
      state: "draft" | "scheduled" | "published" | "review";
      /** China time, for a scheduled chapter (or one under review that was scheduled). */
      publishAt: string | null;
      /** A draft a reviewer sent back: 退回修改 (returned) or 拒绝 (rejected), with the reason. */
      review: ReviewNoteFacts | null;
      /** A published chapter's edit under review, or its last one sent back (decision 213). */
      edit: EditReviewFacts | null;
      /** A published chapter with an autosaved working copy not yet saved (decision 095). */
      pending: boolean;
      /** 正文, 请假条 (leave) or 作品相关 (about): a notice has no reader's number (decision 203). */
      chapterKind: "chapter" | "leave" | "about";
      /** From the generation log (decision 126). */
      aiLevel: "none" | "assisted" | "generated";
    };

/**
 * The autosave route's answer (routes/shell/studio/chapter-autosave.ts), what the editor's
 * script reads: the saved revision, or a Chinese message and the status.
 */
export type AutosaveReply =
  | { ok: true; revision: number; wordCount: number; savedAt: string; changed: boolean; pending: boolean }
  | { ok: false; error: string; stale?: boolean };
