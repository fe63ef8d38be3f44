import { z } from "zod";
import { CATEGORY_NAME_MAX, DISCOVERY_MESSAGES } from "./category-field";

/** docs/product.md#discovery: /admin/categories' forms (the list pages ship discovery.ts without zod). */
const categoryName = z
  .string({ error: DISCOVERY_MESSAGES.categoryName })
  .trim()
  .min(1, DISCOVERY_MESSAGES.categoryName)
  .max(CATEGORY_NAME_MAX, DISCOVERY_MESSAGES.categoryNameTooLong)
  .transform((v) => v.normalize("NFKC").replace(/\s+/gu, " ").trim());
const categoryId = z.coerce.number({ error: DISCOVERY_MESSAGES.categoryMissing }).int().positive(DISCOVERY_MESSAGES.categoryMissing);

/** /admin/categories: the forms of the page, one intent each. */
export const categoryActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("add"), name: categoryName }),
  z.object({ intent: z.literal("rename"), id: categoryId, name: categoryName }),
  z.object({ intent: z.literal("delete"), id: categoryId }),
  z.object({ intent: z.literal("up"), id: categoryId }),
  z.object({ intent: z.literal("down"), id: categoryId }),
]);
export type CategoryAction = z.infer<typeof categoryActionSchema>;
