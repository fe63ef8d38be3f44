import { sql } from "drizzle-orm";
import { bigint, check, date, index, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { admins } from "./admins";
import { users } from "./users";

/** 实名认证's life (docs/product.md#author-identity, decision 204): 审核中, then 已通过 or 已退回. */
export const identityStatus = pgEnum("identity_status", ["pending", "approved", "rejected"]);

/** The document an author submits: 居民身份证, 护照, 港澳台居民往来内地通行证 / 居住证. */
export const identityDocument = pgEnum("identity_document", ["resident_id", "passport", "hmt_permit"]);

/**
 * One 实名认证 submission (decision 204). The legal name and the document number are stored
 * only encrypted (AES-256-GCM, `v1.<key id>.<iv>.<tag>.<ciphertext>`, the key id naming the
 * IDENTITY_KEY that sealed it, so `npm run identity:rotate-key` finds what to re-encrypt),
 * beside their masked forms (张*, 1101**********123X) that every page shows. An author has at
 * most one submission pending or approved; a rejected one stays as history.
 */
export const authorIdentities = pgTable(
  "author_identities",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: identityStatus("status").notNull().default("pending"),
    documentType: identityDocument("document_type").notNull(),
    nameCipher: text("name_cipher").notNull(),
    numberCipher: text("number_cipher").notNull(),
    nameMasked: text("name_masked").notNull(),
    numberMasked: text("number_masked").notNull(),
    /** The key id both ciphers were sealed with (the rotation script's filter). */
    keyId: text("key_id").notNull(),
    /** Which IdentityVerifier decides (`manual`: the operators' queue). */
    verifier: text("verifier").notNull().default("manual"),
    submittedAt: timestamp("submitted_at", { withTimezone: true }).notNull().defaultNow(),
    claimedBy: uuid("claimed_by").references(() => admins.id, { onDelete: "set null" }),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    decidedBy: uuid("decided_by").references(() => admins.id, { onDelete: "set null" }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** The reason of a 退回, shown to the author. */
    note: text("note"),
    /**
     * The day the person turns 18 (China time), from the document's birth date: while an
     * approved row's day is ahead, they are in 青少年模式 (decision 218). Null on rows
     * submitted before it was kept.
     */
    adultOn: date("adult_on"),
  },
  (t) => [
    index("author_identities_pending_idx").on(t.submittedAt, t.id).where(sql`${t.status} = 'pending'`),
    index("author_identities_user_idx").on(t.userId, t.id),
    uniqueIndex("author_identities_one_open").on(t.userId).where(sql`${t.status} in ('pending', 'approved')`),
    index("author_identities_key_idx").on(t.keyId),
    check("author_identities_decided", sql`(${t.status} = 'pending') = (${t.decidedAt} is null)`),
  ],
);
