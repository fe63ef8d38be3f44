// 绑定手机号's limits and messages, without zod: the comment forms' notice ships only this
// (docs/decisions/243); phone.ts validates with them.

/** Minutes a code stays valid. */
export const PHONE_CODE_MINUTES = 5;

/** Wrong tries a code allows; the next one needs a new code. */
export const PHONE_CODE_MAX_TRIES = 5;

export const PHONE_MESSAGES = {
  phoneRequired: "请输入手机号",
  phoneInvalid: "请输入正确的 11 位中国大陆手机号",
  codeRequired: "请输入验证码",
  codeInvalid: "验证码是 6 位数字",
  noCode: "请先获取验证码",
  codeWrong: (left: number) => `验证码错误，还可以再试 ${left} 次`,
  codeExpired: `验证码已过期（有效期 ${PHONE_CODE_MINUTES} 分钟），请重新获取`,
  codeUsed: "验证码已使用过，请重新获取",
  tooManyTries: "验证码错误次数过多，请重新获取",
  tooManySends: "验证码发送太频繁，请稍后再试",
  resendWait: "验证码已发送，请 1 分钟后再重新获取",
  taken: "该手机号已绑定其他账号，一个手机号只能绑定一个账号，请换一个号码",
  alreadyMine: "该手机号已绑定到你的账号，无需重新绑定",
  sendFailed: "短信发送失败，请稍后再试",
  /** The comment forms and the server's refusal while the operator requires a phone. */
  required: "发表评论前请先绑定手机号",
} as const;
