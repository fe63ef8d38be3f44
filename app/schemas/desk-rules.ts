/** The 写作台's limits and messages (docs/decisions/261), zod-free for the page (decision 243). */

/** The most a daily word target may be: beyond any day's writing, a typo more likely than a plan. */
export const DAILY_TARGET_MAX = 50_000;
/** Days of published 字数 the pace is averaged over (fewer when the work is younger). */
export const PACE_WINDOW_DAYS = 30;
/** An open 伏笔 with no due chapter counts as overdue this many published chapters after it was planted. */
export const THREAD_LONG_OPEN_CHAPTERS = 100;

export const DESK_MESSAGES = {
  targetRequired: "请填写每日目标字数",
  targetNotNumber: "每日目标请填写整数字数，例如 3000",
  targetTooSmall: "每日目标要大于 0 字",
  targetTooLarge: `每日目标最多 ${DAILY_TARGET_MAX} 字`,
  targetSaved: (words: number) => `每日目标已设为 ${words} 字`,
  targetCleared: "已取消每日目标",
  unknownAction: "无法识别的操作，请刷新页面后重试",
} as const;
