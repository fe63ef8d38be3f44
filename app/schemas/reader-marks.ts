import { z } from "zod";
import { flag, rowId, sentOrMissing, sentText } from "./form-fields";

/**
 * The marks form (POST /works/:id/marks): 加书签 or 划线 a paragraph of a chapter (by id),
 * the selection's offsets and text when there is one (JavaScript), the note. `enhanced`
 * is 1 from the page's fetcher. The domain function checks the values.
 */
export const markFormSchema = z.object({
  intent: z.enum(["bookmark", "highlight"]),
  chapterId: rowId,
  paragraph: rowId,
  start: sentOrMissing,
  end: sentOrMissing,
  quote: sentText,
  note: sentText,
  back: sentText,
  enhanced: flag,
});

/** 删除 on a list of marks (/bookmarks): the mark by id, and the list to go back to. */
export const markDeleteSchema = z.object({ id: rowId, back: sentText });
