// The password reset's link lifetime and messages, without zod: every page's layout shows
// them and ships only this (docs/decisions/243); password-reset.ts validates with them.

/** Minutes a reset link stays valid (docs/product.md: Accounts). */
export const RESET_LINK_MINUTES = 30;

/** docs/product.md: Rules, Messages: forgot password and the reset page. */
export const PASSWORD_RESET_MESSAGES = {
  // The same answer whether or not the e-mail has an account (docs/decisions/067).
  requestSent: `如果该邮箱已注册，我们已发送重置链接，请在${RESET_LINK_MINUTES}分钟内查收`,
  tooManyRequests: "请求过于频繁，请稍后再试",
  linkMissing: "重置链接不完整，请从邮件中重新打开链接，或重新申请",
  linkUnknown: "重置链接无效，请重新申请",
  linkSuperseded: "该重置链接已被新的链接取代，请使用最新一封邮件中的链接",
  linkExpired: `重置链接已过期（有效期${RESET_LINK_MINUTES}分钟），请重新申请`,
  linkUsed: "该重置链接已使用过，请重新申请",
  resetDone: "密码已重置，请用新密码登录",
  // SITE_URL is unset: links in mails are never built from the request (decision 166).
  mailUnavailable: "本站尚未设置网站地址，暂时无法发送重置邮件，请联系网站管理员",
} as const;
