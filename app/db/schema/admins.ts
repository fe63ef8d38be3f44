import {
  bigint,
  boolean,
  index,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { adminRole } from "./enums";

export const admins = pgTable("admins", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  /** docs/product.md#admin-roles: 超级管理员 (super), 运营 (operator), 总编辑 (chief_editor) or 审核员 (reviewer). */
  role: adminRole("role").notNull().default("operator"),
  /** A disabled admin cannot sign in; their sessions and API tokens stop working. */
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  /** TOTP two-factor (docs/decisions/134): the base32 secret, set at enrolment. */
  totpSecret: text("totp_secret"),
  /** Set once a code from the authenticator confirmed the enrolment; login then asks for a code. */
  totpEnabledAt: timestamp("totp_enabled_at", { withTimezone: true }),
  /** The time step of the last accepted code: a code is accepted once. */
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * An administrator's single-use recovery codes for the two-factor sign-in
 * (docs/decisions/167): ten at a time, made when two-factor is turned on or on request,
 * shown once and stored only as their SHA-256; a code is used once.
 */
export const adminRecoveryCodes = pgTable(
  "admin_recovery_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    adminId: uuid("admin_id")
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("admin_recovery_codes_admin_id_idx").on(t.adminId)],
);

/** Administrator sessions are kept apart from user sessions (docs/product.md D8). */
export const adminSessions = pgTable(
  "admin_sessions",
  {
    id: text("id").primaryKey(),
    adminId: uuid("admin_id")
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    /** Password accepted, TOTP code not yet: such a session opens no admin page. */
    secondFactorPending: boolean("second_factor_pending").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("admin_sessions_admin_idx").on(t.adminId)],
);

/** Bearer tokens for export scripts; only a SHA-256 of the token is stored. */
export const adminApiTokens = pgTable(
  "admin_api_tokens",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    adminId: uuid("admin_id")
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("admin_api_tokens_admin_idx").on(t.adminId)],
);
