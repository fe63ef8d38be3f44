import { z } from "zod";
import { normalizeLinesIn } from "~/utils/text";
import { categoryField } from "./category-field";
import { asSent, sentText } from "./form-fields";

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 5000;
/** About a long novel's chapter; the reader renders it progressively. */
export const CHAPTER_CONTENT_MAX = 2_000_000;
export const DEFAULT_SEPARATOR = "####";

export const WORK_MESSAGES = {
  title: "请输入作品标题",
  description: "请输入作品简介",
  txt: "请上传并解析TXT文件",
  content: "请输入正文内容",
  chapter: "请填写章节标题和内容",
  price: "请输入有效的价格（至少1积分）",
  onlyOngoing: "只有连载中的作品可以添加新章节",
  editContent: "请输入内容",
  notFound: "作品不存在",
  /** Decision 214: a new work goes on the listing its author chose when its information is approved. */
  underReview: "作品信息审核中，通过后会按你发布时选择的方式上架；审核前不能更改上架和售价",
} as const;

const trimmed = (message: string, max: number, maxMessage: string) =>
  z
    .string({ error: message })
    .trim()
    .min(1, message)
    .max(max, maxMessage);

/** A textarea's text, with the CRLF line breaks browsers post stored as LF. */
const multiline = <T extends z.ZodType>(schema: T) => z.preprocess(normalizeLinesIn, schema);

/** The five wizard steps as one form (docs/product.md D3: public or private only at publish). */
export const publishSchema = z
  .object({
    status: z.enum(["completed", "ongoing"], { error: "请选择作品状态" }),
    type: z.enum(["single_chapter", "multi_chapter", "series"], { error: "请选择作品类型" }),
    title: trimmed(WORK_MESSAGES.title, TITLE_MAX, `作品标题不能超过${TITLE_MAX}个字符`),
    description: multiline(trimmed(WORK_MESSAGES.description, DESCRIPTION_MAX, `作品简介不能超过${DESCRIPTION_MAX}个字符`)),
    rating: z.enum(["all_ages", "r18"], { error: "请选择作品分级" }).default("all_ages"),
    isAiGenerated: z
      .union([z.literal("on"), z.literal("true"), z.literal("1")])
      .optional()
      .transform((v) => v !== undefined),
    visibility: z.enum(["public", "private"], { error: "请选择可见范围" }).default("public"),
    /** The work's category (docs/decisions/121); the wizard requires one when the site has any. */
    categoryId: categoryField,
    content: multiline(z.string().max(CHAPTER_CONTENT_MAX, "正文过长").optional()),
    chapterTitle: z.string().trim().max(TITLE_MAX, `章节标题不能超过${TITLE_MAX}个字符`).optional(),
    chapterContent: multiline(z.string().max(CHAPTER_CONTENT_MAX, "正文过长").optional()),
    separator: z.string().max(20, "分隔符不能超过20个字符").optional(),
    importToken: z.string().max(100).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.status === "ongoing" && v.type !== "series") {
      ctx.addIssue({ code: "custom", path: ["type"], message: "连载中的作品只能选择连载类型" });
    }
    if (v.status === "completed" && v.type === "series") {
      ctx.addIssue({ code: "custom", path: ["type"], message: "已完结的作品请选择单章或多章节" });
    }
    if (v.type === "single_chapter" && !v.content?.trim()) {
      ctx.addIssue({ code: "custom", path: ["content"], message: WORK_MESSAGES.content });
    }
    if (v.type === "series" && (!v.chapterTitle?.trim() || !v.chapterContent?.trim())) {
      ctx.addIssue({ code: "custom", path: ["chapterContent"], message: WORK_MESSAGES.chapter });
    }
  });

export type PublishInput = z.infer<typeof publishSchema>;

/**
 * What the publish action reads whatever publishSchema says (decision 173): the intent
 * (预览 reads the TXT before the form is complete), the separator as sent (previewTxt
 * checks it) and the token of a TXT already staged, shown again beside a refusal.
 * Refuses nothing.
 */
export const publishStepSchema = z.object({
  intent: sentText,
  separator: sentText,
  importToken: sentText,
});

/** A price in whole credits, at least 1 (docs/product.md: Rules). */
const priceSchema = z
  .string({ error: WORK_MESSAGES.price })
  .trim()
  .regex(/^\d{1,7}$/, WORK_MESSAGES.price)
  .transform(Number)
  .pipe(z.number().int().min(1, WORK_MESSAGES.price).max(1_000_000, "价格不能超过1000000积分"));

export const myWorksActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("set-price"), workId: z.coerce.number().int().positive(), price: priceSchema }),
  z.object({ intent: z.literal("make-free"), workId: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal("take-down"), workId: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal("put-on-shelf"), workId: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal("delete"), workId: z.coerce.number().int().positive() }),
]);

/**
 * Beside myWorksActionSchema (decision 173): the page to go back to (checked where it is
 * used, safeRedirectPath), and the work a refused form names (its number, or null when it
 * is not one). Refuses nothing.
 */
export const myWorksReturnSchema = z.object({
  back: asSent,
  workId: z
    .unknown()
    .optional()
    .transform((value) => Number(value) || null),
});

export const editChapterSchema = z.object({
  chapterId: z.coerce.number().int().positive(),
  /** The chapter's revision the page was loaded with: a save made elsewhere since is a 409. */
  revision: z.coerce.number({ error: "版本号无效" }).int("版本号无效").nonnegative("版本号无效").optional(),
  content: multiline(
    z
      .string({ error: WORK_MESSAGES.editContent })
      .max(CHAPTER_CONTENT_MAX, "正文过长")
      .refine((v) => v.trim().length > 0, WORK_MESSAGES.editContent),
  ),
});

export const newChapterSchema = z.object({
  title: trimmed(WORK_MESSAGES.chapter, TITLE_MAX, `章节标题不能超过${TITLE_MAX}个字符`),
  content: multiline(
    z
      .string({ error: WORK_MESSAGES.chapter })
      .max(CHAPTER_CONTENT_MAX, "正文过长")
      .refine((v) => v.trim().length > 0, WORK_MESSAGES.chapter),
  ),
});
