// 书签 and 划线's limits and messages, without zod: the reader's selection bar ships only
// this (docs/decisions/243); reader-marks.ts validates with them.

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
