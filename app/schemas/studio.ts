import { z } from "zod";
import { normalizeLinesIn } from "~/utils/text";
import { DESCRIPTION_MAX, TITLE_MAX, WORK_MESSAGES } from "./work";

/** docs/product.md#author-studio: the author studio's forms and their messages. */
export const TAGS_MAX = 10;
export const TAG_MAX_CHARS = 20;
export const CHAPTER_TITLE_MAX = 100;

export const STUDIO_MESSAGES = {
  tagsTooMany: `标签最多${TAGS_MAX}个`,
  tagTooLong: `每个标签最多${TAG_MAX_CHARS}个字`,
  coverRequired: "请选择封面图片",
  statusSeriesOnly: "只有连载作品可以修改连载状态",
  saved: "作品设置已保存",
} as const;

/**
 * A tag as stored: NFKC folds full-width letters, digits and punctuation to half-width
 * (Ｒ１８ → R18, full-width spaces too), then whitespace runs become one space and the
 * ends are trimmed. Case is kept: Chinese tags have none and authors mean their Latin.
 */
export function normalizeTag(raw: string): string {
  return raw.normalize("NFKC").replace(/\s+/gu, " ").trim();
}

/**
 * The tags field: one text, tags separated by commas (either width), 、 or line breaks.
 * Empty pieces are dropped and repeats (after normalizing) kept once, first wins.
 */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.normalize("NFKC").split(/[,、;\n]/u)) {
    const tag = normalizeTag(piece);
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

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
  /** Only a series may change it; other works are always 已完结. */
  status: z.enum(["ongoing", "completed"], { error: "请选择连载状态" }).optional(),
  /** keep the cover, replace it with the uploaded file, or go back to the site's default. */
  cover: z.enum(["keep", "replace", "reset"]).default("keep"),
});

export type WorkSettingsInput = z.infer<typeof workSettingsSchema>;
