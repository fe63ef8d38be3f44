import { sql, type SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { aiLevel, chapterState, workRating, workStatus, workType, workVisibility } from "./enums";
import { users } from "./users";

/**
 * The categories readers browse by (玄幻, 都市, 言情...): a list the administrators edit
 * (/admin/categories). A new work chooses one; older works may have none (docs/decisions/121).
 */
export const categories = pgTable(
  "categories",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    name: text("name").notNull().unique(),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("categories_name_length", sql`char_length(${t.name}) between 1 and 20`)],
);

/** What a reviewer decides on for a work (decision 214): what readers see of it before its chapters. */
export interface WorkMeta {
  title: string;
  description: string;
  coverUrl: string | null;
  tags: string[];
}

export const works = pgTable(
  "works",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull(),
    coverUrl: text("cover_url"),
    wordCount: integer("word_count").notNull().default(0),
    chapterCount: integer("chapter_count").notNull().default(0),
    type: workType("type").notNull(),
    status: workStatus("status").notNull(),
    visibility: workVisibility("visibility").notNull(),
    rating: workRating("rating").notNull().default("all_ages"),
    isAiGenerated: boolean("is_ai_generated").notNull().default(false),
    /** From the generation log (decision 126): the level of its published chapters' text. */
    aiLevel: aiLevel("ai_level").notNull().default("none"),
    price: integer("price").notNull().default(0),
    /**
     * How a paid work is sold (docs/product.md#paying-by-chapter): `whole` at `price`, or
     * `chapter`: chapters numbered `vipFrom` and later are VIP, each priced at publish from
     * `pricePerThousand` (千字价). Meaningful only while the work is public-vip.
     */
    saleMode: text("sale_mode", { enum: ["whole", "chapter"] }).notNull().default("whole"),
    vipFrom: integer("vip_from"),
    pricePerThousand: integer("price_per_thousand"),
    /** The author's tags, normalized by app/schemas/studio.ts (NFKC, trimmed, unique, at most 10). */
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    /** Null: uncategorized (works from before categories existed). */
    categoryId: bigint("category_id", { mode: "number" }).references(() => categories.id, { onDelete: "set null" }),
    /** When the work became 完本 (status completed); null while ongoing. 新完本 sorts by it. */
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /** The author's switch for AI summaries and proposed facts after each publication (docs/decisions/128); off by default. */
    aiSummaries: boolean("ai_summaries").notNull().default(false),
    /**
     * An administrator's take-down (decision 138): the work is private while it lasts, hidden
     * from everyone but its owner (buyers included), who sees the reason and cannot put it
     * back on the shelf; `takedownPrevious` is the listing a restore puts back.
     */
    takenDownAt: timestamp("taken_down_at", { withTimezone: true }),
    takedownReason: text("takedown_reason"),
    takedownPrevious: jsonb("takedown_previous").$type<{ visibility: "public" | "public-vip" | "private"; price: number }>(),
    /**
     * A work's listing under review (decision 214). `reviewListing`: a new work whose
     * title, description, cover and tags wait for a reviewer is private until approved; this
     * is the listing (visibility and price) the author chose, which the approval puts on.
     * `pendingMeta`: an approved work's changed title, description, cover or tags, waiting
     * while readers keep the approved ones.
     */
    reviewListing: jsonb("review_listing").$type<{ visibility: "public" | "public-vip" | "private"; price: number }>(),
    pendingMeta: jsonb("pending_meta").$type<WorkMeta>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("works_title_length", sql`char_length(${t.title}) between 1 and 200`),
    check("works_description_length", sql`char_length(${t.description}) <= 5000`),
    check("works_counts_nonnegative", sql`${t.wordCount} >= 0 and ${t.chapterCount} >= 0`),
    check("works_price_nonnegative", sql`${t.price} >= 0`),
    check("works_tags_count", sql`cardinality(${t.tags}) <= 10`),
    // docs/product.md D3: public-vip is paid (price >= 1); public and private are free.
    // A work sold by chapter has no whole-work price.
    check(
      "works_price_matches_visibility",
      sql`(${t.visibility} = 'public-vip' and (${t.price} >= 1 or ${t.saleMode} = 'chapter')) or (${t.visibility} <> 'public-vip' and ${t.price} = 0)`,
    ),
    check("works_sale_mode", sql`${t.saleMode} in ('whole', 'chapter')`),
    // A work waiting for its first approval is private (readers see nothing of it).
    check("works_review_listing", sql`${t.reviewListing} is null or ${t.visibility} = 'private'`),
    check(
      "works_takedown",
      sql`${t.takenDownAt} is null or (${t.visibility} = 'private' and ${t.takedownReason} is not null and ${t.takedownPrevious} is not null)`,
    ),
    check(
      "works_chapter_sale_terms",
      sql`${t.saleMode} <> 'chapter' or (${t.vipFrom} >= 1 and ${t.pricePerThousand} >= 1)`,
    ),
    check(
      "works_status_matches_type",
      sql`(${t.status} = 'ongoing' and ${t.type} = 'series') or ${t.status} = 'completed'`,
    ),
    index("works_user_created_idx").on(t.userId, t.visibility, t.createdAt),
    index("works_listing_idx").on(t.createdAt, t.id),
    // Tag pages and filters (the readers' issue) look works up by tag.
    index("works_tags_idx").using("gin", t.tags),
    // 新完本 on the home page (docs/decisions/120).
    index("works_completed_idx").on(t.completedAt, t.id).where(sql`${t.status} = 'completed'`),
    // /works?sort=updated (最新更新).
    index("works_updated_idx").on(t.updatedAt, t.id),
    /**
     * Substring search (app/server/catalog/search.server.ts): a GIN index over the distinct
     * lower-cased characters and character pairs of title and description (the
     * work_search_grams SQL function, drizzle/0007). An expression index rather than a
     * stored column keeps the heap row narrow; queries must use the same expression. No
     * pending list (fastupdate off): every search would read all of it (docs/decisions/281).
     */
    index("works_search_grams_idx").using("gin", sql`work_search_grams(${t.title}, ${t.description})`).with({ fastupdate: false }),
    /**
     * The same over the works a listing may show (public and paid), for the community
     * search: its candidates are then only works a reader may find, and it reads no private
     * work's row to learn so (docs/decisions/281). Queries name the predicate as
     * listedVisibility spells it.
     */
    index("works_listed_search_grams_idx")
      .using("gin", sql`work_search_grams(${t.title}, ${t.description})`)
      .with({ fastupdate: false })
      .where(listedVisibility(t.visibility)),
  ],
);

/**
 * Public and paid works: what any listing may show (a private, taken-down or held work is
 * private). The predicate of works_listed_search_grams_idx; a query states it so, with its
 * values written out, for the planner to use that index whatever it does with parameters (a
 * generic plan cannot prove that a parameter implies it).
 */
export function listedVisibility(visibility: AnyPgColumn): SQL {
  return sql`${visibility} in ('public', 'public-vip')`;
}

/**
 * A work's chapters. `position` orders them (with `id` breaking ties): gapped integers, so
 * a move or an insert writes one row and only an exhausted gap renumbers a few
 * neighbours (app/server/catalog/chapter-positions.server.ts, docs/decisions/080). The chapter
 * numbers readers see (`?chapter=N`) are derived from this order, never stored.
 */
export const chapters = pgTable(
  "chapters",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    content: text("content").notNull(),
    position: bigint("position", { mode: "number" }).notNull(),
    wordCount: integer("word_count").notNull().default(0),
    /** Readers see published chapters only; the counts count them only (docs/product.md D12). */
    state: chapterState("state").notNull().default("published"),
    /** Scheduled: when it is due (the release poller claims it then); published: when it was. */
    publishAt: timestamp("publish_at", { withTimezone: true }),
    /**
     * Counts every save of the text (保存, autosave, restore): a tab saving on top of an
     * older number is told the chapter changed elsewhere (docs/decisions/095).
     */
    revision: integer("revision").notNull().default(0),
    /**
     * A published chapter's autosaved working copy: readers keep `content` until 保存
     * (docs/decisions/095). Null when there is none; drafts autosave into `content`.
     */
    pendingContent: text("pending_content"),
    /**
     * A published chapter's new title saved while its edit waits for review (decision 213):
     * readers keep `title` until a reviewer approves the edit. Null when there is none.
     */
    pendingTitle: text("pending_title"),
    /**
     * From the generation log (decision 126): how many of `content`'s characters were
     * found in AI text its author generated, and the level that gives.
     */
    aiChars: integer("ai_chars").notNull().default(0),
    aiLevel: aiLevel("ai_level").notNull().default("none"),
    /**
     * The chapter's price in credits when it is VIP, fixed when it is published (or when
     * its work turns to selling by chapter): a later edit does not change it (docs/product.md D13).
     */
    price: integer("price").notNull().default(0),
    /**
     * 作者的话 (docs/decisions/202): the author's note shown under the text, outside 字数 and
     * price. `pendingAuthorNote` is a published chapter's autosaved working copy, as for the text.
     */
    authorNote: text("author_note").notNull().default(""),
    pendingAuthorNote: text("pending_author_note"),
    /**
     * 正文 (`chapter`), 请假条 (`leave`) or 作品相关 (`about`) (docs/decisions/203): a notice
     * chapter has no number, is free, and moves no reading position or unread count.
     */
    kind: text("kind", { enum: ["chapter", "leave", "about"] }).notNull().default("chapter"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("chapters_work_position_idx").on(t.workId, t.position, t.id),
    // The reader's order and numbers count published chapters only.
    index("chapters_work_published_idx").on(t.workId, t.position, t.id).where(sql`${t.state} = 'published' and ${t.kind} = 'chapter'`),
    // The 目录's notice groups (decision 203): a few rows, found without reading the work's chapters.
    index("chapters_work_notices_idx").on(t.workId, t.position, t.id).where(sql`${t.kind} <> 'chapter'`),
    // The release poller's due chapters (app/server/studio/scheduled-release.server.ts).
    index("chapters_due_idx").on(t.publishAt).where(sql`${t.state} = 'scheduled'`),
    check("chapters_price_nonnegative", sql`${t.price} >= 0`),
    check("chapters_kind", sql`${t.kind} in ('chapter', 'leave', 'about')`),
    check("chapters_notice_free", sql`${t.kind} = 'chapter' or ${t.price} = 0`),
    check("chapters_author_note_length", sql`char_length(${t.authorNote}) <= 2000 and char_length(coalesce(${t.pendingAuthorNote}, '')) <= 2000`),
    check("chapters_scheduled_has_time", sql`${t.state} <> 'scheduled' or ${t.publishAt} is not null`),
  ],
);

/**
 * The last saves of a chapter's text (docs/decisions/095): at most CHAPTER_REVISIONS_KEPT
 * per chapter, older ones pruned in the saving transaction. Autosaves within a few minutes
 * of each other share one row (its `savedAt` moves on); 保存 and 恢复 always add one.
 */
export const chapterRevisions = pgTable(
  "chapter_revisions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    chapterId: bigint("chapter_id", { mode: "number" })
      .notNull()
      .references(() => chapters.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["autosave", "save", "restore"] }).notNull(),
    content: text("content").notNull(),
    wordCount: integer("word_count").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    savedAt: timestamp("saved_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("chapter_revisions_chapter_idx").on(t.chapterId, t.id),
    check("chapter_revisions_kind", sql`${t.kind} in ('autosave', 'save', 'restore')`),
  ],
);

/**
 * A volume (卷) of a work: a heading in the same position space as the chapters. The
 * chapters after it, up to the next volume, are its chapters; chapters before the first
 * volume belong to none. Moving a chapter into a volume is therefore a chapter move.
 */
export const volumes = pgTable(
  "volumes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    position: bigint("position", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("volumes_work_position_idx").on(t.workId, t.position),
    check("volumes_title_length", sql`char_length(${t.title}) between 1 and 100`),
  ],
);

export const favorites = pgTable(
  "favorites",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "favorites_pkey", columns: [t.userId, t.workId] }),
    // Followers of a work in user order: the notification delivery reads them in batches.
    index("favorites_work_idx").on(t.workId, t.userId),
    index("favorites_user_created_idx").on(t.userId, t.createdAt),
  ],
);

export const workPurchases = pgTable(
  "work_purchases",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workId: bigint("work_id", { mode: "number" })
      .notNull()
      .references(() => works.id, { onDelete: "cascade" }),
    price: integer("price").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("work_purchases_user_work_unique").on(t.userId, t.workId),
    check("work_purchases_price_nonnegative", sql`${t.price} >= 0`),
    index("work_purchases_work_idx").on(t.workId),
    index("work_purchases_created_idx").on(t.createdAt),
  ],
);

/**
 * A parsed TXT waiting to be published: the author sees the chapter list first, and a
 * form re-posted without JavaScript cannot carry the file again. Kept in the database so
 * any app process can finish the publish.
 */
export const txtImports = pgTable(
  "txt_imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    separator: text("separator").notNull(),
    chapters: jsonb("chapters").$type<{ title: string; content: string }[]>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("txt_imports_user_idx").on(t.userId, t.createdAt)],
);
