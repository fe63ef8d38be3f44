/**
 * The author's voice (docs/product.md#author-voice, docs/decisions/257): the limits and
 * messages of the 文风 sample and the 套话 list, and the site's default 套话.
 */

/** Common 网文 clichés every work avoids unless the author's text really needs them. */
export const DEFAULT_CLICHES = [
  "缓缓",
  "眸中闪过",
  "深吸一口气",
  "嘴角微微上扬",
  "倒吸一口凉气",
  "嘴角勾起一抹",
  "眼中闪过一丝",
  "不由得",
  "心中一凛",
  "一股莫名的",
  "空气仿佛凝固",
  "时间仿佛静止",
] as const;

export const VOICE_LIMITS = {
  /** One passage of the sample. */
  passage: 2000,
  /** Passages per work. */
  passages: 20,
  /** One 套话 phrase, at least 2 characters (one character would be found everywhere). */
  clicheMin: 2,
  clicheMax: 20,
  /** The author's own 套话 per work (the defaults aside). */
  cliches: 50,
} as const;

export const VOICE_SOURCES = ["chapter", "pasted", "ai"] as const;
export type VoiceSource = (typeof VOICE_SOURCES)[number];
export const VOICE_SOURCE_LABELS: Record<VoiceSource, string> = { chapter: "摘自章节", pasted: "粘贴", ai: "采纳的AI文字" };

export const VOICE_MESSAGES = {
  passageEmpty: "请输入文风样本的文字",
  passageTooLong: `一段文风样本不能超过${VOICE_LIMITS.passage}个字，请分成几段添加`,
  passagesTooMany: `文风样本最多${VOICE_LIMITS.passages}段，请先删除不需要的`,
  passageDuplicate: "这段文字已经在文风样本里了",
  passageNotFound: "这段文风样本不存在或已删除",
  sourceInvalid: "请选择样本的来源",
  clicheTooShort: (phrase: string) => `套话「${phrase}」太短：每条至少${VOICE_LIMITS.clicheMin}个字`,
  clicheTooLong: (phrase: string) => `套话「${phrase.slice(0, 10)}…」太长：每条最多${VOICE_LIMITS.clicheMax}个字`,
  clichesTooMany: `自定义套话最多${VOICE_LIMITS.cliches}条`,
  clicheDuplicate: (phrase: string) => `套话「${phrase}」重复了`,
  clicheIsDefault: (phrase: string) => `「${phrase}」已在默认套话里，不用再加`,
} as const;

/** 本次结果含套话 3 处：缓缓×2、深吸一口气×1 (or 本次结果未含套话). */
export function clicheCountLine(counts: readonly { phrase: string; count: number }[]): string {
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  if (total === 0) return "本次结果未含套话";
  return `本次结果含套话 ${total} 处：${counts.map((c) => `${c.phrase}×${c.count}`).join("、")}`;
}
