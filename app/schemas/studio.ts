import { z } from "zod";
import { parseShanghaiLocal } from "~/utils/shanghai-time";
import { normalizeLinesIn } from "~/utils/text";
import { parsePage } from "~/utils/pagination";
import { categoryField } from "./category-field";
import { asSent, sentOrMissing, sentText } from "./form-fields";
import { CHAPTER_CONTENT_MAX, DESCRIPTION_MAX, TITLE_MAX, WORK_MESSAGES } from "./work";
import { TAG_MAX_CHARS, parseTags } from "./tag-rules";

/** docs/product.md#author-studio: the author studio's forms and their messages. */
export const TAGS_MAX = 10;
export const CHAPTER_TITLE_MAX = 100;
/** How many saves of each chapter are kept (docs/decisions/095). */
export const CHAPTER_REVISIONS_KEPT = 20;
/** Autosaves less than this many minutes after the first of a run share one kept save. */
export const AUTOSAVE_MERGE_MINUTES = 10;

/** 作者的话 (docs/decisions/202): at most this many characters, outside 字数 and price. */
export const AUTHOR_NOTE_MAX = 2000;

/** A chapter's kind (docs/decisions/203): 正文, or a notice chapter outside the numbering. */
export const CHAPTER_KINDS = ["chapter", "leave", "about"] as const;
export type ChapterKind = (typeof CHAPTER_KINDS)[number];
export const CHAPTER_KIND_LABELS: Record<ChapterKind, string> = { chapter: "正文", leave: "请假条", about: "作品相关" };

/** The author's statistics cover this many China-time days, today included (docs/decisions/099). */
export const STATS_DAYS = 30;

export const STUDIO_MESSAGES = {
  /** 保存 of a published chapter whose edit waits for review (decision 213). */
  editHeld: "修改已提交审核：审核通过前，读者看到的仍是上次通过的版本",
  /** Appended to 保存's notice when the continuity checks found something (decision 247). */
  continuityFound: (n: number) => `。连续性检查发现 ${n} 处待处理，请在章节编辑页查看`,
  tagsTooMany: `标签最多${TAGS_MAX}个`,
  tagTooLong: `每个标签最多${TAG_MAX_CHARS}个字`,
  coverRequired: "请选择封面图片",
  statusSeriesOnly: "只有连载作品可以修改连载状态",
  saved: "作品设置已保存",
  savedForReview: "作品设置已保存；书名、简介、封面和标签需要审核，通过后读者才会看到",
  chapterNotFound: "章节不存在",
  /** 读者行为's 段评 heat asked for a chapter that is not one of this work's published chapters. */
  heatChapterNotFound: "找不到这一章：请从列表里选择本作品已发布的章节",
  volumeNotFound: "分卷不存在",
  chapterTitle: "请输入章节标题",
  chapterTitleTooLong: `章节标题不能超过${CHAPTER_TITLE_MAX}个字`,
  contentRequired: "请输入章节内容",
  contentInvisible: "章节内容只有空白或不可见字符（如零宽空格），请输入正文",
  titleInvisible: "章节标题只有空白或不可见字符（如零宽空格），请输入标题",
  positionRange: (total: number) => (total > 1 ? `请输入1到${total}之间的位置` : "作品只有一章，无需移动"),
  insertRange: (last: number) => `请输入1到${last}之间的位置`,
  alreadyFirst: "已经是第一章了",
  alreadyLast: "已经是最后一章了",
  singleChapter: "单章作品只有一章，不能添加章节",
  singleChapterVolumes: "单章作品不能分卷",
  lastChapter: "作品至少要保留一章",
  volumeTitle: "请输入卷名",
  volumeTitleTooLong: `卷名不能超过${CHAPTER_TITLE_MAX}个字`,
  volumeTitleHeld: "卷名含有需要审核的词语，请修改后再提交",
  volumeFirst: "已经是第一卷了",
  volumeLast: "已经是最后一卷了",
  lastPublished: "作品至少要保留一个已发布的章节",
  scheduleRequired: "请选择定时发布的时间",
  scheduleInvalid: "请输入有效的定时发布时间",
  scheduleInPast: "定时发布的时间必须晚于现在",
  alreadyPublished: "该章节已发布",
  inReview: "该章节正在审核中，审核通过后发布",
  exportEmpty: "没有可以导出的章节",
  contentTooLong: "正文过长",
  contentControl: "正文包含不允许的控制字符",
  staleRevision: "此章节已在别处修改，请重新载入后再编辑",
  revisionInvalid: "版本号无效，请重新载入后再编辑",
  revisionNotFound: "该历史版本不存在",
  authorNoteTooLong: `作者的话不能超过${AUTHOR_NOTE_MAX}个字`,
  authorNoteControl: "作者的话包含不允许的控制字符",
  kindInvalid: "请选择章节类型：正文、请假条或作品相关",
} as const;

const checkbox = z
  .union([z.literal("on"), z.literal("true"), z.literal("1")])
  .optional()
  .transform((v) => v !== undefined);

const trimmed = (message: string, max: number, maxMessage: string) =>
  z.string({ error: message }).trim().min(1, message).max(max, maxMessage);

/** The work settings form (/works/:id/settings), checked alike in the browser and the action. */
export const workSettingsSchema = z.object({
  title: trimmed(WORK_MESSAGES.title, TITLE_MAX, `作品标题不能超过${TITLE_MAX}个字符`),
  description: z.preprocess(
    normalizeLinesIn,
    trimmed(WORK_MESSAGES.description, DESCRIPTION_MAX, `作品简介不能超过${DESCRIPTION_MAX}个字符`),
  ),
  rating: z.enum(["all_ages", "r18"], { error: "请选择作品分级" }),
  isAiGenerated: checkbox,
  tags: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const tags = parseTags(v ?? "");
      const message =
        tags.length > TAGS_MAX
          ? STUDIO_MESSAGES.tagsTooMany
          : tags.some((t) => Array.from(t).length > TAG_MAX_CHARS)
            ? STUDIO_MESSAGES.tagTooLong
            : null;
      if (message) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return tags;
    }),
  /** The work's category (docs/decisions/121): "" is 未分类; absent keeps it. */
  categoryId: categoryField,
  /** Only a series may change it; other works are always 已完结. */
  status: z.enum(["ongoing", "completed"], { error: "请选择连载状态" }).optional(),
  /** keep the cover, replace it with the uploaded file, or go back to the site's default. */
  cover: z.enum(["keep", "replace", "reset"]).default("keep"),
});

export type WorkSettingsInput = z.infer<typeof workSettingsSchema>;

const id = (message: string) => z.coerce.number({ error: message }).int(message).positive(message);
const chapterId = id(STUDIO_MESSAGES.chapterNotFound);
const volumeId = id(STUDIO_MESSAGES.volumeNotFound);
/** A place in the order, 1-based; the upper end is checked against the work on the server. */
const place = (field: string) =>
  z
    .string({ error: `请输入${field}` })
    .trim()
    .regex(/^-?\d{1,9}$/, `请输入有效的${field}（从1开始的整数）`)
    .transform(Number)
    .pipe(z.number().int().min(1, `${field}不能小于1`));

const chapterTitleField = z
  .string({ error: STUDIO_MESSAGES.chapterTitle })
  .trim()
  .min(1, STUDIO_MESSAGES.chapterTitle)
  .refine((v) => Array.from(v).length <= CHAPTER_TITLE_MAX, STUDIO_MESSAGES.chapterTitleTooLong);
const volumeTitleField = z
  .string({ error: STUDIO_MESSAGES.volumeTitle })
  .trim()
  .min(1, STUDIO_MESSAGES.volumeTitle)
  .refine((v) => Array.from(v).length <= CHAPTER_TITLE_MAX, STUDIO_MESSAGES.volumeTitleTooLong);

/** Every form of the chapter manager (/works/:id/chapters), told apart by `intent`. */
/**
 * 销售设置 (decision 173): the mode, the whole book's price, the first VIP chapter and the
 * price per thousand characters, handed to setWorkPricing as sent; it checks each against
 * the site's economy settings and names the field a refusal is about.
 */
export const workPricingSchema = z.object({ mode: sentOrMissing, price: asSent, vipFrom: asSent, pricePerThousand: asSent });

/** The chapter manager's page to go back to (decision 173): parsePage's number, 1 when missing. Refuses nothing. */
export const chapterManagerPageSchema = z.object({ page: sentText.transform(parsePage) });

export const chapterManagerSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("move"), chapterId, to: place("位置") }),
  z.object({ intent: z.literal("up"), chapterId }),
  z.object({ intent: z.literal("down"), chapterId }),
  z.object({
    intent: z.literal("to-volume"),
    chapterId,
    // "" (or "none"): the chapters before the first volume.
    volumeId: z.union([z.literal(""), z.literal("none"), volumeId]).transform((v) => (v === "" || v === "none" ? null : v)),
  }),
  z.object({ intent: z.literal("rename"), chapterId, title: chapterTitleField }),
  z.object({ intent: z.literal("delete"), chapterId }),
  z.object({ intent: z.literal("publish"), chapterId }),
  z.object({ intent: z.literal("volume-create"), title: volumeTitleField, chapterId: chapterId.optional() }),
  z.object({ intent: z.literal("volume-rename"), volumeId, title: volumeTitleField }),
  z.object({ intent: z.literal("volume-delete"), volumeId }),
  z.object({ intent: z.literal("volume-up"), volumeId }),
  z.object({ intent: z.literal("volume-down"), volumeId }),
]);
export type ChapterManagerAction = z.infer<typeof chapterManagerSchema>;

const chapterContent = z.preprocess(normalizeLinesIn, z.string().max(CHAPTER_CONTENT_MAX, "正文过长").default(""));

/** 作者的话: optional text under the chapter; absent keeps what the chapter has (the old edit page). */
const authorNoteField = z.preprocess(
  normalizeLinesIn,
  z
    .string({ error: STUDIO_MESSAGES.authorNoteTooLong })
    .refine((v) => Array.from(v).length <= AUTHOR_NOTE_MAX, STUDIO_MESSAGES.authorNoteTooLong)
    .optional(),
);

/** 存稿 / 立即发布 / 定时发布 with its China-time datetime-local value. */
const releaseFields = {
  release: z.enum(["draft", "now", "at"], { error: "请选择发布方式" }).default("now"),
  publishAt: z.string().max(40).optional(),
};

function checkRelease(v: { release: "draft" | "now" | "at"; publishAt?: string; content: string }, ctx: z.RefinementCtx) {
  if (v.release === "at") {
    if (!v.publishAt?.trim()) ctx.addIssue({ code: "custom", path: ["publishAt"], message: STUDIO_MESSAGES.scheduleRequired });
    else if (!parseShanghaiLocal(v.publishAt)) ctx.addIssue({ code: "custom", path: ["publishAt"], message: STUDIO_MESSAGES.scheduleInvalid });
  }
  // A draft may be empty; what readers get may not.
  if (v.release !== "draft" && !v.content.trim()) ctx.addIssue({ code: "custom", path: ["content"], message: STUDIO_MESSAGES.contentRequired });
}

/** The domain's Release from a parsed form (the time already checked by checkRelease). */
export function releaseOf(v: { release: "draft" | "now" | "at"; publishAt?: string }) {
  if (v.release === "at") return { mode: "at" as const, at: parseShanghaiLocal(v.publishAt ?? "") ?? new Date(Number.NaN) };
  return { mode: v.release };
}

/**
 * The notice after a chapter is saved with a release (the new-chapter form, the editor's
 * 保存): 立即发布 says it was published, not merely saved. `null`: the chapter was already
 * published, so the save only changed its text.
 */
export function releaseNotice(released: "draft" | "published" | "scheduled" | "review" | null): string {
  if (released === "published") return "章节已发布";
  if (released === "review") return "章节已提交审核：审核通过后才会发布，定时发布也要等审核通过";
  if (released === "scheduled") return "已设置定时发布";
  if (released === "draft") return "已存稿";
  return "章节已保存";
}

/** The chapter's revision number the editor loaded (docs/decisions/095): a stale tab is told so. */
const revisionField = z
  .string({ error: STUDIO_MESSAGES.revisionInvalid })
  .trim()
  .regex(/^\d{1,9}$/, STUDIO_MESSAGES.revisionInvalid)
  .transform(Number);

/** The chapter editor (/works/:id/chapters/:chapterId); the release applies to unpublished chapters. */
export const chapterEditSchema = z
  .object({ title: chapterTitleField, content: chapterContent, authorNote: authorNoteField, ...releaseFields, revision: revisionField.optional() })
  .superRefine(checkRelease);

/** The editor's autosave (POST /works/:id/chapters/:chapterId/autosave): the text and the revision it was based on. */
export const chapterAutosaveSchema = z.object({
  content: z.preprocess(normalizeLinesIn, z.string({ error: STUDIO_MESSAGES.contentRequired }).max(CHAPTER_CONTENT_MAX, STUDIO_MESSAGES.contentTooLong)),
  authorNote: authorNoteField,
  revision: revisionField,
});

/** 恢复 one of a chapter's kept saves (/works/:id/chapters/:chapterId/revisions). */
export const chapterRestoreSchema = z.object({ revisionId: id(STUDIO_MESSAGES.revisionNotFound) });

/** A new chapter inserted at a place (/works/:id/chapters/new). */
export const chapterNewSchema = z
  .object({
    title: chapterTitleField,
    content: chapterContent,
    authorNote: authorNoteField,
    kind: z.enum(CHAPTER_KINDS, { error: STUDIO_MESSAGES.kindInvalid }).default("chapter"),
    ...releaseFields,
    at: place("插入位置").optional(),
    volumeId: z.union([z.literal(""), z.literal("none"), volumeId]).optional(),
  })
  .superRefine(checkRelease);
