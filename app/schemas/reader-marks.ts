import { z } from "zod";
import { flag, rowId, sentOrMissing, sentText } from "./form-fields";

/** 书签 and 划线 (decision 241): a note's length, and how many marks a reader keeps in one work. */
export const MARK_NOTE_MAX = 500;
export const MARKS_PER_WORK = 500;

export const MARK_MESSAGES = {
  noteTooLong: `笔记最多 ${MARK_NOTE_MAX} 字`,
  paragraphMissing: "这一段不存在，请刷新页面后重试",
  quoteMismatch: "划线的文字与正文不符，请重新选择",
  quoteEmpty: "请先选中要划线的文字",
  chapterMissing: "章节不存在",
  hidden: "当前显示设置下无法阅读该作品",
  locked: "购买本章后才能加书签或划线",
  tooMany: `每部作品最多保存 ${MARKS_PER_WORK} 条书签和划线，请先删除一些`,
  missing: "这条书签或划线不存在",
  bookmarked: "已加书签",
  highlighted: "已划线",
  removed: "已删除",
  unknown: "未知操作",
} as const;

/**
 * The marks form (POST /works/:id/marks): 加书签 or 划线 a paragraph of a chapter (by id),
 * the selection's offsets and text when there is one (JavaScript), the note. `enhanced`
 * is 1 from the page's fetcher. The domain function checks the values.
 */
export const markFormSchema = z.object({
  intent: z.enum(["bookmark", "highlight"]),
  chapterId: rowId,
  paragraph: rowId,
  start: sentOrMissing,
  end: sentOrMissing,
  quote: sentText,
  note: sentText,
  back: sentText,
  enhanced: flag,
});

/** 删除 on a list of marks (/bookmarks): the mark by id, and the list to go back to. */
export const markDeleteSchema = z.object({ id: rowId, back: sentText });
