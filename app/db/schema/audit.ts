import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { admins } from "./admins";

/**
 * The back office's audit log (docs/product.md#audit-log, docs/decisions/132): one row per
 * admin action, written in the same transaction as the change it records. The admin's
 * e-mail is copied as it was at the time, so a renamed or removed admin's rows still say
 * who acted; `before` and `after` hold the changed fields with secrets redacted.
 */
export const adminAuditLog = pgTable(
  "admin_audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    adminId: uuid("admin_id").references(() => admins.id, { onDelete: "set null" }),
    adminEmail: text("admin_email").notNull(),
    /** A dotted code naming what was done, e.g. `user.update`, `settings.payment-api`. */
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    clientAddress: text("client_address").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("admin_audit_log_created_idx").on(t.createdAt, t.id),
    index("admin_audit_log_admin_idx").on(t.adminId, t.createdAt),
    index("admin_audit_log_action_idx").on(t.action, t.createdAt),
    index("admin_audit_log_target_idx").on(t.targetType, t.targetId, t.createdAt),
  ],
);
