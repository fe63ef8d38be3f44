/**
 * One work on the reader's 书架 as the server lists it (reading/library.server.ts,
 * listShelf) and the page shows it (components/library/shelf-card.tsx): one shape for both.
 */
interface ShelfWork {
  id: number;
  title: string;
  coverUrl: string | null;
  authorNickname: string;
  visibility: "public" | "public-vip" | "private";
  price: number;
  rating: "all_ages" | "r18";
  isAiGenerated: boolean;
}

export interface ShelfItem<W extends ShelfWork = ShelfWork> {
  work: W;
  /** The last published chapter in the work's order, and when it went out. */
  latestChapter: { title: string; at: string } | null;
  /** Published chapters after the one the reader is on (all of them if never opened). */
  unread: number;
  /** Percent of the published chapters read up to the reader's chapter (0 if never opened). */
  progress: number;
  /** A chapter came out after the reader last read (or, never read, after they followed). */
  updated: boolean;
  /** Bought whole. */
  purchased: boolean;
  /** Sold by chapter: its 千字价 (credits per 1,000 字); null otherwise. */
  pricePerThousand: number | null;
  /** Published chapters of the work the reader bought one by one. */
  boughtChapters: number;
  continueHref: string | null;
  continueLabel: string | null;
}
