import { z } from "zod";
import { normalizeLinesIn } from "~/utils/text";
import { BIBLE_LIMITS, PLAN_MAX_CHARS } from "./bible";
import { CHAPTER_CONTENT_MAX } from "./work";
import { sentText } from "./form-fields";

/** /series-writing's forms and messages (docs/product.md#series-continuation, decisions 141-142). */
export const SERIES_MESSAGES = {
  workMissing: "作品不存在",
  notSeries: "只能续写自己的连载作品",
  chapterRange: (max: number) => `续写的章节序号应在 1 到 ${max} 之间`,
  planTooLong: `本章计划不能超过 ${PLAN_MAX_CHARS} 字`,
  requestKey: "请求已失效，请刷新页面后重试",
  submitted: "这次续写已经提交过，没有重复扣费；请刷新页面后再生成",
  running: "这次续写还在生成中，请稍候再刷新页面",
  mode: "请选择保存方式",
  emptyText: "正文为空，没有可以保存的内容",
  titleTooLong: "章节标题不能超过100个字",
  contentTooLong: "正文过长",
  resultGone: "这次续写的结果已过期，请重新生成",
} as const;

const workId = z.coerce.number({ error: SERIES_MESSAGES.workMissing }).int({ error: SERIES_MESSAGES.workMissing }).positive({ error: SERIES_MESSAGES.workMissing });
const chapter = z.coerce
  .number({ error: SERIES_MESSAGES.chapterRange(BIBLE_LIMITS.chapter) })
  .int({ error: SERIES_MESSAGES.chapterRange(BIBLE_LIMITS.chapter) })
  .min(1, { error: SERIES_MESSAGES.chapterRange(BIBLE_LIMITS.chapter) })
  .max(BIBLE_LIMITS.chapter, { error: SERIES_MESSAGES.chapterRange(BIBLE_LIMITS.chapter) });
const key = z.string({ error: SERIES_MESSAGES.requestKey }).regex(/^[A-Za-z0-9_-]{16,64}$/, SERIES_MESSAGES.requestKey);

/** 生成下一章: the work, the chapter number, the plan (may be empty) and the page's one-time request key. */
export const continueSchema = z.object({
  workId,
  chapter,
  plan: z.preprocess((v) => (v == null ? "" : v), z.string().max(PLAN_MAX_CHARS * 2, SERIES_MESSAGES.planTooLong)),
  requestKey: key,
});
export type ContinueInput = z.infer<typeof continueSchema>;

/** 存为草稿 / 发布: the edited text as a new chapter at the end of the work, in one step. */
export const continueSaveSchema = z.object({
  workId,
  mode: z.enum(["draft", "publish"], { error: SERIES_MESSAGES.mode }),
  title: z.preprocess((v) => (typeof v === "string" ? v.trim() : v) || undefined, z.string().max(100, SERIES_MESSAGES.titleTooLong).optional()),
  content: z.preprocess(normalizeLinesIn, z.string({ error: SERIES_MESSAGES.emptyText }).max(CHAPTER_CONTENT_MAX, SERIES_MESSAGES.contentTooLong)),
  formToken: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, SERIES_MESSAGES.requestKey).optional(),
});
export type ContinueSaveInput = z.infer<typeof continueSaveSchema>;

/**
 * What /series-writing's action reads before the intent's schema (decision 173): the
 * intent; the text and title sent with 存为草稿 / 发布, given back to the form when it is
 * refused; and the chapter the text was written as (a positive whole number, else 1), the
 * default title's number. Refuses nothing: continueSchema and continueSaveSchema check
 * the rest with their own messages and statuses.
 */
export const seriesFormSchema = z.object({
  intent: sentText,
  content: sentText,
  title: sentText,
  chapter: z
    .unknown()
    .optional()
    .transform((value) => {
      const chapter = Number(value);
      return Number.isSafeInteger(chapter) && chapter > 0 ? chapter : 1;
    }),
});

/** The default title of a continued chapter. */
export const defaultChapterTitle = (chapter: number) => `第${chapter}章`;
