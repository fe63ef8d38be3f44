/** A 书签 or 划线 as the reader page draws it (app/server/reading/marks.server.ts, decision 241). */
export interface ChapterMark {
  id: number;
  kind: "bookmark" | "highlight";
  paragraph: number;
  start: number;
  end: number;
  quote: string;
  note: string;
}

/** One line of a list of marks (/bookmarks, the work page). */
export interface ListedMark extends ChapterMark {
  workId: number;
  workTitle: string;
  chapterTitle: string;
  chapterOrder: number;
  /** The chapter at that paragraph. */
  href: string;
  /** 原文已修改: the chapter's text at that place is no longer the quote. */
  changed: boolean;
  createdAt: string;
}
