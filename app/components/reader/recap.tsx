import { formatShanghai } from "~/utils/shanghai-time";

/** What the loader gives for 前情提要 (app/server/reading/recap.server.ts). */
export interface RecapData {
  upTo: { order: number; title: string };
  lastReadAt: Date | string;
  unread: number;
  chapters: { order: number; title: string; summary: string }[];
}

/**
 * 前情提要 for a reader back after a while (docs/decisions/252): the author's summaries of
 * the last chapters they read, up to where they stopped. A <details>, open, so it folds
 * away with or without JavaScript.
 */
export function RecapPanel({ recap }: { recap: RecapData }) {
  return (
    <details className="recap" open>
      <summary>前情提要</summary>
      <p className="recap-meta">
        上次读到第 {recap.upTo.order} 章「{recap.upTo.title}」（{formatShanghai(recap.lastReadAt)}）
        {recap.unread > 0 ? `，之后又更新了 ${recap.unread} 章` : ""}
      </p>
      <ol className="recap-list">
        {recap.chapters.map((chapter) => (
          <li key={chapter.order}>
            <p className="recap-chapter">
              第 {chapter.order} 章 {chapter.title}
            </p>
            <p>{chapter.summary}</p>
          </li>
        ))}
      </ol>
    </details>
  );
}
