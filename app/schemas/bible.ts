import { z } from "zod";
import { CONTINUITY_MESSAGES, ENTITY_STATE_KINDS } from "./continuity-rules";
import { sentOrMissing, sentText } from "./form-fields";

/** The story bible's forms and messages (docs/product.md#story-bible). */
export const ENTITY_KINDS = ["character", "place", "item", "faction"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
export const ENTITY_KIND_LABELS: Record<EntityKind, string> = { character: "角色", place: "地点", item: "物品", faction: "势力" };

/**
 * Whether the continuation prompt carries an entity (decision 154): when named in the plan
 * or the previous chapter's end (the default), always, or never.
 */
export const ENTITY_PROMPT_MODES = ["auto", "always", "never"] as const;
export type EntityPromptMode = (typeof ENTITY_PROMPT_MODES)[number];
export const ENTITY_PROMPT_MODE_LABELS: Record<EntityPromptMode, string> = { auto: "提到时带上", always: "总是带上", never: "从不带上" };

/**
 * An open thread is overdue when its due chapter is already published (`published`: the
 * chapters before the one being written). One rule and one word, 已逾期, for the bible
 * screen, the chapter manager, 连载续写 and the prompt (docs/decisions/127).
 */
export function isThreadOverdue(dueChapter: number | null, published: number): boolean {
  return dueChapter !== null && dueChapter <= published;
}
export const THREAD_OVERDUE_LABEL = "已逾期";

/** The most a continuation plan may hold (本次上下文, docs/decisions/127). */
export const PLAN_MAX_CHARS = 5000;

/** The most chapters one 让AI补写这些摘要 queues (the latest of those without a summary). */
export const SUMMARY_REQUEST_IDS = 200;

export const BIBLE_LIMITS = { name: 50, aliases: 20, description: 2000, fact: 500, threadTitle: 100, threadNote: 1000, summary: 2000, volumeSummary: 5000, chapter: 100_000 } as const;

export const BIBLE_MESSAGES = {
  kindInvalid: "请选择设定类型",
  promptModeInvalid: "请选择续写时是否带上这个设定",
  nameRequired: "请输入名称",
  nameTooLong: `名称不能超过${BIBLE_LIMITS.name}个字`,
  aliasTooLong: `每个别名不能超过${BIBLE_LIMITS.name}个字`,
  aliasesTooMany: `别名最多${BIBLE_LIMITS.aliases}个`,
  nameTaken: (name: string, owner: string) => (name === owner ? `名称「${name}」已被另一个设定使用` : `名称或别名「${name}」已被「${owner}」使用`),
  descriptionTooLong: `简介不能超过${BIBLE_LIMITS.description}个字`,
  entityNotFound: "设定不存在或已删除",
  factRequired: "请输入设定内容",
  factTooLong: `设定内容不能超过${BIBLE_LIMITS.fact}个字`,
  factNotFound: "这条设定不存在或已删除",
  chapterNumber: "章节号必须是 1 以上的整数",
  wikiFromRequired: "请填写这个设定在第几章出场，读者读到那一章后才会在百科里看到它",
  rangeBackwards: "结束章节不能早于起始章节",
  threadTitleRequired: "请输入伏笔标题",
  threadTitleTooLong: `伏笔标题不能超过${BIBLE_LIMITS.threadTitle}个字`,
  threadNoteTooLong: `伏笔说明不能超过${BIBLE_LIMITS.threadNote}个字`,
  plantedRequired: "请输入埋下伏笔的章节",
  dueBeforePlanted: "回收章节不能早于埋下伏笔的章节",
  threadNotFound: "伏笔不存在或已删除",
  summaryTooLong: `章节摘要不能超过${BIBLE_LIMITS.summary}个字`,
  volumeSummaryTooLong: `分卷摘要不能超过${BIBLE_LIMITS.volumeSummary}个字`,
  chapterGone: "章节不存在或已删除，无法保存摘要",
  volumeGone: "分卷不存在或已删除，无法保存摘要",
  proposalNotFound: "这条建议不存在或已处理",
  planTooLong: "本章计划不能超过 5000 字",
  budgetTooSmall: "上下文预算太小，放不下本章计划和提示词，请联系管理员调大API配置的上下文大小",
  unknownAction: "无法识别的操作",
} as const;

const id = z.coerce.number({ error: BIBLE_MESSAGES.unknownAction }).int().positive({ error: BIBLE_MESSAGES.unknownAction });
const optionalId = z.preprocess((v) => (v === "" || v == null ? undefined : v), id.optional());
/** Text fields may be empty (Conform reads empty as missing); the domain trims and checks them. */
const text = (max: number, tooLong: string) => z.string().max(max * 2, { error: tooLong }).optional();
/** A chapter number field: empty is none; anything else must be a whole number ≥ 1. */
const chapterField = z.preprocess(
  (v) => (typeof v === "string" ? v.trim() : v) || undefined,
  z.coerce.number({ error: BIBLE_MESSAGES.chapterNumber }).int({ error: BIBLE_MESSAGES.chapterNumber }).min(1, { error: BIBLE_MESSAGES.chapterNumber }).max(BIBLE_LIMITS.chapter, { error: BIBLE_MESSAGES.chapterNumber }).optional(),
);

/**
 * The page a summaries' form carries (decision 173), as sent; undefined when the form has
 * none (the screen's own ?page= then). Refuses nothing.
 */
export const biblePageSchema = z.object({ page: sentOrMissing });

export const bibleActionSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("entity-save"),
    id: optionalId,
    kind: z.enum(ENTITY_KINDS, { error: BIBLE_MESSAGES.kindInvalid }),
    name: text(BIBLE_LIMITS.name, BIBLE_MESSAGES.nameTooLong),
    aliases: text(BIBLE_LIMITS.name * BIBLE_LIMITS.aliases, BIBLE_MESSAGES.aliasesTooMany),
    description: text(BIBLE_LIMITS.description, BIBLE_MESSAGES.descriptionTooLong),
    promptMode: z.preprocess((v) => v || undefined, z.enum(ENTITY_PROMPT_MODES, { error: BIBLE_MESSAGES.promptModeInvalid }).optional()),
  }),
  z.object({ intent: z.literal("entity-delete"), id }),
  // 读者百科 (decision 259): on with the chapter the entity first appears in, or off.
  z.object({ intent: z.literal("entity-wiki"), id, enabled: z.enum(["on", "off"], { error: BIBLE_MESSAGES.unknownAction }), wikiFrom: chapterField }),
  z.object({
    intent: z.literal("fact-save"),
    id: optionalId,
    entityId: id,
    content: text(BIBLE_LIMITS.fact, BIBLE_MESSAGES.factTooLong),
    fromChapter: chapterField,
    untilChapter: chapterField,
  }),
  z.object({ intent: z.literal("fact-delete"), id }),
  // A character's state ledger (decision 247): the domain checks the fields with its own messages.
  z.object({
    intent: z.literal("state-save"),
    entityId: id,
    kind: z.enum(ENTITY_STATE_KINDS, { error: CONTINUITY_MESSAGES.kindInvalid }),
    chapter: chapterField,
    value: sentText,
    action: sentText,
    note: sentText,
  }),
  z.object({ intent: z.literal("state-delete"), id }),
  z.object({
    intent: z.literal("thread-save"),
    id: optionalId,
    title: text(BIBLE_LIMITS.threadTitle, BIBLE_MESSAGES.threadTitleTooLong),
    note: text(BIBLE_LIMITS.threadNote, BIBLE_MESSAGES.threadNoteTooLong),
    plantedChapter: chapterField,
    dueChapter: chapterField,
  }),
  z.object({ intent: z.literal("thread-status"), id, status: z.enum(["open", "resolved"], { error: BIBLE_MESSAGES.unknownAction }) }),
  z.object({ intent: z.literal("thread-delete"), id }),
  z.object({ intent: z.literal("summary-save"), chapterId: id, summary: text(BIBLE_LIMITS.summary, BIBLE_MESSAGES.summaryTooLong) }),
  z.object({ intent: z.literal("volume-summary-save"), volumeId: id, summary: text(BIBLE_LIMITS.volumeSummary, BIBLE_MESSAGES.volumeSummaryTooLong) }),
  // The author's voice (decision 257): the domain trims and checks the text with its own messages.
  z.object({ intent: z.literal("voice-add"), content: sentText, source: sentText }),
  z.object({ intent: z.literal("voice-delete"), id }),
  z.object({ intent: z.literal("cliches-save"), cliches: sentText }),
  z.object({ intent: z.literal("proposal-accept"), id }),
  z.object({ intent: z.literal("proposal-reject"), id }),
  z.object({ intent: z.literal("ai-summaries"), enabled: z.enum(["on", "off"], { error: BIBLE_MESSAGES.unknownAction }) }),
  // 让AI补写摘要: chapter ids, comma-separated, at most SUMMARY_REQUEST_IDS (decision 155).
  z.object({
    intent: z.literal("summaries-request"),
    chapterIds: z
      .string({ error: BIBLE_MESSAGES.unknownAction })
      .regex(new RegExp(`^\\d{1,15}(,\\d{1,15}){0,${SUMMARY_REQUEST_IDS - 1}}$`), { error: BIBLE_MESSAGES.unknownAction }),
  }),
]);

export type BibleAction = z.output<typeof bibleActionSchema>;
