import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import type { ReaderSettings } from "~/schemas/reader-settings-rules";

/** Login identity. The password hash never leaves the server. */
export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull().unique(),
    passwordHash: text("password_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
    /**
     * A ban by an administrator (docs/product.md: Back office, users; decision 137): set
     * while banned, with the reason shown at sign-in and an optional end (null: no end).
     */
    bannedAt: timestamp("banned_at", { withTimezone: true }),
    bannedUntil: timestamp("banned_until", { withTimezone: true }),
    banReason: text("ban_reason"),
    /**
     * 先审名单 (docs/product.md#review): an operator put this author under review before
     * publishing whatever the policy's count says (decision 196).
     */
    reviewRequired: boolean("review_required").notNull().default(false),
    /**
     * 签约状态 (docs/product.md#contracts, decision 236): 未签约 `none`, 签约 `signed`, 买断
     * `buyout`, set by an operator; signed and bought-out authors earn 全勤奖.
     */
    contract: text("contract", { enum: ["none", "signed", "buyout"] }).notNull().default("none"),
    /**
     * The verified phone number (后台实名, docs/product.md#phone-verification, decision 235):
     * mainland 11 digits, stored normalised, one account per number; set only by a code.
     */
    phone: text("phone").unique(),
    phoneVerifiedAt: timestamp("phone_verified_at", { withTimezone: true }),
  },
  (t) => [
    check("users_email_lower", sql`${t.email} = lower(${t.email})`),
    check("users_ban_reason", sql`(${t.bannedAt} IS NULL) = (${t.banReason} IS NULL)`),
    check("users_contract", sql`${t.contract} in ('none', 'signed', 'buyout')`),
    check("users_phone_shape", sql`${t.phone} ~ '^1[3-9][0-9]{9}$'`),
    check("users_phone_verified", sql`(${t.phone} IS NULL) = (${t.phoneVerifiedAt} IS NULL)`),
  ],
);

/** What the site shows about a user, and their token balance. */
export const profiles = pgTable(
  "profiles",
  {
    id: uuid("id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    nickname: text("nickname").notNull(),
    avatarUrl: text("avatar_url"),
    pixivId: text("pixiv_id").unique(),
    showR18: boolean("show_r18").notNull().default(false),
    showAi: boolean("show_ai").notNull().default(true),
    tokens: bigint("tokens", { mode: "number" }).notNull().default(0),
    /**
     * Tokens spent on AI generation on `aiDay` (a day in China's time zone), kept beside
     * the balance by the same conditional updates, for the daily cap (decision 125).
     */
    aiDay: date("ai_day"),
    aiDayTokens: bigint("ai_day_tokens", { mode: "number" }).notNull().default(0),
    /** The reader's font size, line height, page width and background (decision 106). */
    readerSettings: jsonb("reader_settings").$type<ReaderSettings>(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("profiles_tokens_nonnegative", sql`${t.tokens} >= 0`),
    check("profiles_ai_day_tokens_nonnegative", sql`${t.aiDayTokens} >= 0`),
    index("profiles_created_at_idx").on(t.createdAt),
    // The search's author names (app/server/catalog/search.server.ts, docs/decisions/162): the
    // works' gram function over the nickname alone, so a search reads the few profiles
    // whose nickname holds the query's grams instead of every profile. No pending list: a
    // search would read all of it (docs/decisions/281).
    index("profiles_nickname_grams_idx").using("gin", sql`work_search_grams(${t.nickname}, '')`).with({ fastupdate: false }),
  ],
);

/** Server-side sessions: the cookie holds only the signed random id. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId)],
);

/** Fixed-window counters shared by every app process (login and register limits). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
  count: bigint("count", { mode: "number" }).notNull(),
});

/**
 * Password reset links (docs/decisions/067): only the SHA-256 of the token is kept, so a
 * copy of the database opens no account. One live row per user at most: a new request
 * replaces the older ones; a used row stays until the next request, to say 已使用.
 */
export const passwordResetTokens = pgTable(
  "password_reset_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("password_reset_tokens_user_id_idx").on(t.userId)],
);

/**
 * A phone code sent to bind a number (decision 235): 6 digits, stored as a salted SHA-256,
 * valid 5 minutes, used once, refused after too many wrong tries. The newest code of a
 * user and number is the one that counts.
 */
export const phoneCodes = pgTable(
  "phone_codes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
    codeHash: text("code_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    wrongTries: integer("wrong_tries").notNull().default(0),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("phone_codes_user_phone_idx").on(t.userId, t.phone, t.id), index("phone_codes_created_at_idx").on(t.createdAt)],
);
