import { z } from "zod";
import { sentText } from "./form-fields";

/** Wrong PINs in a row before the exit locks, and how long it stays locked (decision 218). */
export const PIN_ATTEMPTS = 5;
export const PIN_LOCK_HOURS = 24;

/** 青少年模式 (docs/product.md#minor-mode, decision 218): messages shared by the pages and the server. */
export const MINOR_MESSAGES = {
  pinShape: "请输入 4 位数字密码",
  pinMismatch: "两次输入的密码不一致",
  alreadyOn: "青少年模式已开启",
  notOn: "青少年模式未开启",
  wrongPin: (left: number) => `密码错误，还可以再试 ${left} 次`,
  locked: (until: string) => `密码错误次数过多，退出青少年模式已锁定，请于 ${until}（北京时间）后再试`,
  verifiedMinor: "你的实名认证显示未满 18 周岁，青少年模式不能关闭",
  r18Refused: "青少年模式下不能开启 R-18 内容",
  perPayment: (cap: number) => `青少年模式下单笔消费不能超过 ${cap} 积分`,
  perMonth: (cap: number, left: number) => `青少年模式下每月消费不能超过 ${cap} 积分，本月还可消费 ${left} 积分`,
  topUpPerPayment: (cap: number) => `青少年模式下单笔充值不能超过 ${cap} 元`,
  topUpPerMonth: (cap: number, left: number) => `青少年模式下每月充值不能超过 ${cap} 元，本月还可充值 ${left} 元`,
  closedHours: (from: string, to: string) => `青少年模式下 ${from}–${to}（北京时间）不能阅读章节，请休息一下`,
  settingsCap: "请输入 0 到 100000 之间的整数（0 表示不允许）",
  settingsOrder: "单笔上限不能大于每月上限",
  settingsTime: "请输入 00:00 到 23:59 之间的时间",
  settingsSameTime: "开始和结束时间不能相同",
} as const;

/** 开启 (a PIN twice), 关闭 (the PIN): one page, two forms by `intent` (decision 173: the domain checks the PIN). */
export const minorEnterSchema = z.object({ intent: z.literal("enter"), pin: sentText, pinAgain: sentText });
export const minorLeaveSchema = z.object({ intent: z.literal("leave"), pin: sentText });
export const minorModeFormSchema = z.discriminatedUnion("intent", [minorEnterSchema, minorLeaveSchema]);

/** The operator's defaults (/admin/settings/minors); saveMinorSettings checks them. */
export const minorSettingsFormSchema = z.object({
  perPayment: sentText,
  perMonth: sentText,
  hours: sentText,
  hoursFrom: sentText,
  hoursTo: sentText,
});
