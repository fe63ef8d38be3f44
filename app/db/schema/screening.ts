import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { screeningLevel } from "./enums";

/**
 * The sensitive words (docs/product.md#screening, docs/decisions/195): each word with its
 * category and level. `folded` is the word as the matcher sees it (NFKC, lower case,
 * simplified, separators dropped: app/server/screening/matcher.server.ts), unique, so two
 * spellings of one word are one row.
 */
export const screeningWords = pgTable(
  "screening_words",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    word: text("word").notNull(),
    folded: text("folded").notNull().unique(),
    category: text("category").notNull(),
    level: screeningLevel("level").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("screening_words_folded_nonempty", sql`char_length(${t.folded}) > 0`),
    index("screening_words_category_idx").on(t.category, t.id),
  ],
);
