import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { apiProvider, promptType } from "./enums";

export const siteConfigs = pgTable("site_configs", {
  key: text("key").primaryKey(),
  value: text("value").notNull().default(""),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const prompts = pgTable(
  "prompts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    code: text("code").notNull().unique(),
    title: text("title").notNull(),
    systemContent: text("system_content").notNull(),
    userContent: text("user_content").notNull(),
    type: promptType("type").notNull().default("free"),
    isSystem: boolean("is_system").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("prompts_code_nonempty", sql`char_length(trim(${t.code})) > 0`),
    index("prompts_created_idx").on(t.createdAt),
  ],
);

export const apiConfigs = pgTable("api_configs", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  provider: apiProvider("provider").notNull().default("openai"),
  endpoint: text("endpoint").notNull(),
  apiKey: text("api_key").notNull(),
  model: text("model").notNull(),
  /** The most a continuation prompt may take, in estimated tokens (docs/decisions/127). */
  contextTokens: integer("context_tokens").notNull().default(32000),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
