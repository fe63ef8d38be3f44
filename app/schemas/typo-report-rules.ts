// 错别字 reports' limits and messages, without zod: the reader's dialog shows them and
// ships only this (docs/decisions/243); typo-reports.ts validates with them.

/** 错别字 (decision 234): the quoted sentence and the optional correction, at most this many characters each. */
export const TYPO_SENTENCE_MAX = 200;

export const TYPO_SUGGESTION_MAX = 200;

export const TYPO_MESSAGES = {
  sentenceEmpty: "请选中或填写有错别字的句子",
  sentenceTooLong: `句子最多 ${TYPO_SENTENCE_MAX} 字，请只选有错字的那一句`,
  notInChapter: "这句话不在本章正文中，请从正文中复制或选中",
  suggestionTooLong: `修改建议最多 ${TYPO_SUGGESTION_MAX} 字`,
  suggestionHeld: "修改建议含有需要审核的内容，请修改后再提交",
  chapterMissing: "章节不存在",
  hidden: "当前显示设置下无法阅读该作品",
  locked: "购买本章后才能报告错别字",
  own: "不能给自己的作品报告错别字",
  twice: "你已经报告过这句话了，作者会看到的",
  rateLimited: "报告太频繁了，请稍后再试",
  sent: "已把错别字告诉作者，谢谢指正",
} as const;
