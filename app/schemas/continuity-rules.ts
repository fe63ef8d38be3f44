// The state ledgers' and continuity checks' labels, limits and messages, without zod: the
// editor's findings panel and the bible's ledger forms show them (docs/decisions/243, 247).

export const STATE_KINDS = ["realm", "life", "location", "item", "age", "time", "knowledge"] as const;
export type StateKind = (typeof STATE_KINDS)[number];
/** The kinds an entity's ledger holds (the story's time belongs to the work). */
export const ENTITY_STATE_KINDS = ["realm", "life", "location", "item", "age", "knowledge"] as const;
export const STATE_KIND_LABELS: Record<StateKind, string> = {
  realm: "境界",
  life: "生死",
  location: "位置",
  item: "物品",
  age: "年龄",
  time: "故事时间",
  knowledge: "知情",
};
export const ITEM_ACTIONS = ["gained", "lost", "given"] as const;
export type ItemAction = (typeof ITEM_ACTIONS)[number];
export const ITEM_ACTION_LABELS: Record<ItemAction, string> = { gained: "获得", lost: "失去", given: "交给他人" };

const CONTINUITY_RULES = ["dead-acts", "realm-drop", "item-lost", "two-places", "timeline", "alias-shared"] as const;
export type ContinuityRule = (typeof CONTINUITY_RULES)[number];
export const CONTINUITY_RULE_LABELS: Record<ContinuityRule, string> = {
  "dead-acts": "已死角色有言行",
  "realm-drop": "境界倒退",
  "item-lost": "使用已失去的物品",
  "two-places": "同章身处两地",
  timeline: "年龄或时间不合",
  "alias-shared": "别名重复",
};

export const LADDER_MAX_RUNGS = 60;
export const STATE_LIMITS = { value: 100, note: 200, rung: 20, num: 100_000, waiverNote: 200 } as const;

/** How a finding of the optional AI 审读 is marked, beside the rules' labels (decision 258). */
export const AI_REVIEW_LABEL = "AI 审读";

export const CONTINUITY_MESSAGES = {
  reviewChapter: "请输入要审读的章节号（已发布的章节）",
  // The AI 审读 (decision 258).
  reviewNotice: "请假条、感言等不计章节号的章节不做连续性审读",
  reviewEmpty: "这一章还没有正文，无法审读",
  reviewUnreadable: "AI返回的内容不是约定的格式，无法识别，已退还本次Tokens",
  kindInvalid: "请选择状态类型",
  entityKindMismatch: "生死、境界、位置、物品、年龄只能记录在角色上",
  valueRequired: "请填写状态内容",
  valueTooLong: `状态内容不能超过${STATE_LIMITS.value}个字`,
  noteTooLong: `备注不能超过${STATE_LIMITS.note}个字`,
  lifeInvalid: "生死只能是“存活”或“死亡”",
  numRequired: (label: string) => `请填写${label}（整数）`,
  numInvalid: "年龄或年份必须是 0 到 100000 之间的整数",
  actionInvalid: "请选择物品的变化：获得、失去或交给他人",
  recipientRequired: "交给他人时请在备注中写明交给谁",
  chapterRequired: "请填写从第几章起（1 以上的整数）",
  notOnLadder: (value: string) => `境界「${value}」不在本作品的境界阶梯上，请先在阶梯中添加`,
  contradicts: (label: string, chapter: number, value: string) => `第${chapter}章已记录了${label}「${value}」，同一章不能有两条互相矛盾的记录，请编辑原记录`,
  stateNotFound: "这条状态记录不存在或已删除",
  ladderCycle: (name: string) => `境界「${name}」出现了不止一次：阶梯必须从低到高、不能成环`,
  ladderTooLong: `境界阶梯最多${LADDER_MAX_RUNGS}级`,
  rungTooLong: `每级境界不能超过${STATE_LIMITS.rung}个字`,
  ladderInUse: (name: string) => `境界「${name}」已被状态记录使用，不能从阶梯中删去`,
  findingNotFound: "这条检查结果不存在或已更新，请刷新后再试",
  waiverNoteTooLong: `说明不能超过${STATE_LIMITS.waiverNote}个字`,
  unknownAction: "无法识别的操作",
} as const;
