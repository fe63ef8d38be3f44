import { z } from "zod";
import { flag, rowId, sentText } from "./form-fields";

/**
 * 报错 under a chapter: the chapter by id, the sentence as selected or pasted, the
 * correction; `enhanced` is 1 from the page's fetcher (an answer instead of a redirect).
 * The domain function checks the values with its own messages.
 */
export const typoReportSchema = z.object({
  chapterId: rowId,
  sentence: sentText,
  suggestion: sentText,
  enhanced: flag,
});
