import { z } from "zod";
import { asSent, sentText, flag, rowId } from "./form-fields";
import { myWorksActionSchema } from "./work";

/** The owner's price, visibility and delete controls on the reader page: runMyWorksAction reads their forms (myWorksActionSchema). */
const OWNER_INTENTS = myWorksActionSchema.options.map((option) => option.shape.intent.value);

/** A number field as `Number(form.get(name))` read it: missing or empty is 0, text NaN. */
const sentNumber = z
  .unknown()
  .optional()
  .transform((value) => Number(value ?? null));

/**
 * The reader page's forms (decision 173): 收藏 / 取消收藏 (`on`, 1 or 0, and the page to go
 * back to), 购买全本, and paying by chapter: 购买本章 (the chapter's id, `auto` from 自动订阅,
 * `price` for the 402's 还差), 购买全部 (`total`, the quoted price confirmed), 自动订阅 (`on`),
 * each with the chapter's number to go back to; `enhanced` is 1 from the page's fetchers.
 * The sale functions check the ids and prices.
 */
export const readerActionSchema = z.object({
  intent: z.enum(["favorite", "purchase", "buy-chapter", "buy-all", "auto-subscribe", ...OWNER_INTENTS]),
  enhanced: flag,
  on: flag,
  auto: flag,
  back: asSent,
  order: sentText,
  chapterId: rowId,
  /** The total the buyer confirmed; undefined (not checked) when it is not a whole number ≥ 0. */
  total: sentNumber.transform((n) => (Number.isSafeInteger(n) && n >= 0 ? n : undefined)),
  /** The price shown on the button; undefined when it is not a whole number. */
  price: sentNumber.transform((n) => (Number.isSafeInteger(n) ? n : undefined)),
});

/** The reading position the page saves while the reader scrolls (POST /works/:id/progress): the chapter's id, or its number from older pages, and the paragraph. */
/** `savedAt` (ms since the epoch): when an offline reader was there (decision 244); absent for a live save. */
export const readingProgressSchema = z.object({ chapterId: sentText, chapter: sentText, paragraph: sentText, savedAt: sentText });
