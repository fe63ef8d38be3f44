import type { Executor } from "~/db/client.server";
import { adminAuditLog } from "~/db/schema";

/**
 * The back office's audit log (docs/product.md#audit-log, docs/decisions/132): every admin
 * action writes one row through `recordAdminAction`, on the transaction that makes the
 * change, so a change that rolls back leaves no row and a row never describes a change
 * that did not happen.
 */

/** Who acts and from where: the signed-in admin (e-mail as it is now) and the client address. */
export interface AdminActor {
  admin: { id: string | null; email: string };
  address: string;
}

/** An actor who is a signed-in admin (not the system). */
export type SignedInActor = AdminActor & { admin: { id: string } };

export interface AdminActionEntry {
  /** A dotted code, area then verb: `user.nickname`, `settings.payment-api`, `code.generate`. */
  action: string;
  /** What was acted on, e.g. `user`, `work`, `prompt`, `setting`, with its id (or key). */
  targetType?: string | null;
  targetId?: string | number | bigint | null;
  /** The fields as they were and as they became; secrets are redacted here, not by the caller. */
  before?: unknown;
  after?: unknown;
  reason?: string | null;
}

/** Writes one audit row on `tx` (the caller's transaction). */
export async function recordAdminAction(tx: Executor, actor: AdminActor, entry: AdminActionEntry): Promise<void> {
  const { before, after } = redactPair(entry.before, entry.after);
  await tx.insert(adminAuditLog).values({
    adminId: actor.admin.id,
    adminEmail: actor.admin.email,
    action: entry.action,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId === null || entry.targetId === undefined ? null : String(entry.targetId),
    before: before ?? null,
    after: after ?? null,
    reason: entry.reason?.trim() ? entry.reason.trim() : null,
    clientAddress: actor.address || "unknown",
  });
}

/**
 * Keeps only the fields whose value changed, for an edit's before/after (a form that saves
 * ten settings and changes one records one).
 */
export function changedFields<T extends object>(before: T, after: Partial<T>): { before: Partial<T>; after: Partial<T> } {
  const b: Partial<T> = {};
  const a: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    if (JSON.stringify(toJson(before[key])) === JSON.stringify(toJson(after[key]))) continue;
    b[key] = before[key];
    a[key] = after[key] as T[keyof T];
  }
  return { before: b, after: a };
}

/** What a secret reads as in the log; the "changed" form says a new secret was saved. @internal */
export const REDACTED = "（已隐藏）";
/** @internal */
export const REDACTED_CHANGED = "（已隐藏，已更改）";

/**
 * Field names that hold secrets: passwords and their hashes, API and merchant keys, token
 * hashes, TOTP secrets. Token *balances* (`tokens`, `initialTokens`) are not secrets.
 */
const SECRET_KEY = /(password|secret|api_?key|merchant_?key|token_?hash|^token$|authorization|cookie|^sign$)/i;

function isSecretField(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** A before/after pair made JSON-safe with secrets replaced; a changed secret says so in `after`. */
function redactPair(before: unknown, after: unknown): { before: unknown; after: unknown } {
  return { before: redact(toJson(before), undefined), after: redact(toJson(after), toJson(before)) };
}

function redact(value: unknown, previous: unknown): unknown {
  if (Array.isArray(value)) return value.map((v, i) => redact(v, Array.isArray(previous) ? previous[i] : undefined));
  if (value === null || typeof value !== "object") return value;
  const prev = previous && typeof previous === "object" ? (previous as Record<string, unknown>) : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (isSecretField(key) && v !== null && v !== undefined && typeof v !== "object") {
      if (v === "") out[key] = "";
      else out[key] = prev && key in prev && prev[key] !== v ? REDACTED_CHANGED : REDACTED;
    } else {
      out[key] = redact(v, prev?.[key]);
    }
  }
  return out;
}

/** Dates as ISO strings, bigints as strings, undefined fields dropped: what jsonb can hold. */
function toJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)));
}
