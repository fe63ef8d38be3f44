/** One line of 阅读记录 (app/server/reading/history.server.ts, decision 234). */
export interface HistoryEntry {
  workId: number;
  title: string;
  coverUrl: string | null;
  authorId: string;
  authorNickname: string;
  /** The chapter the reader was last on, its number and title. */
  chapterTitle: string;
  chapterOrder: number;
  /** Back to that place (chapter and paragraph). */
  href: string;
  /** When the reader was last there (ISO; shown in Beijing time). */
  readAt: string;
}
