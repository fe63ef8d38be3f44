/**
 * The AI-writing messages of docs/product.md: Messages (generation and analysis), in the
 * Chinese the product shows. Plain constants: the pages and the server share them.
 */
export const AI_MESSAGES = {
  noDefaultConfig: "未设置默认API配置",
  configMissing: "API配置不存在",
  promptMissing: "提示词不存在",
  promptIncomplete: "提示词配置不完整，请联系管理员",
  insufficientTokens: "Tokens余额不足，请充值",
  deductFailed: "扣除Tokens失败",
  balanceReadFailed: "获取Tokens余额失败",
  unsupportedProvider: "不支持的API提供商",
  invalidKey: "API密钥无效或已过期",
  rateLimited: "API调用次数超限",
  serverError: "API服务器错误",
  requestFailed: (status: number) => `API请求失败(${status})`,
  unreadable: "无法读取API响应，请重试",
  serviceFailed: "AI服务调用失败",
  generationFailed: "生成失败，请重试",
  // Not in the catalogue; clear messages for the cases docs/product.md D7 adds.
  firstByteTimeout: "AI服务响应超时，请重试",
  idleTimeout: "AI服务长时间没有返回内容，已停止生成，请重试",
  blocked: (reason: string) => `AI服务拒绝了本次请求（${reason}）`,
  emptyOutput: "AI返回内容为空",
  stoppedEmpty: "已停止，未生成内容",
  tokensExhausted: "Tokens已用完，生成已停止。已生成的内容已保留，请充值后继续。",
  lengthLimit: "已达到本次生成的长度上限，生成已停止。",
  dailyCapReached: "今日AI生成已达每日上限，生成已停止。已生成的内容已保留，请明天再试。",
  /** The provider reported more than the allowance could cover (decision 153). */
  usageNotCovered: (billed: number, charged: number, uncovered: number, capped: boolean) =>
    `AI服务商报告本次实际用量 ${billed} Tokens，超出${capped ? "今日剩余额度" : "Tokens余额"}：只扣除 ${charged} Tokens，其余 ${uncovered} Tokens 不收取。`,
  /** The same without JavaScript, where the numbers are on the receipt. */
  usageNotCoveredShort: "AI服务商报告的实际用量超出了Tokens余额或今日上限，超出部分不收取（详见Tokens记录中的生成回执）。",
  // Analysis (docs/product.md: Messages, analysis row).
  analysisPromptMissing: "提示词配置缺失",
  workContentEmpty: "作品内容为空",
  analysisEmpty: "AI返回内容为空",
  analysisFailed: "AI分析失败",
  analysisBadFormat: "AI返回格式错误",
} as const;
