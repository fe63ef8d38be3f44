import { randomBytes } from "node:crypto";
import { eq, lt, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import { formSubmissions } from "~/db/schema";
import { pgErrorCode, UNIQUE_VIOLATION } from "./db-utils.server";
import { DomainError } from "./errors.server";

/**
 * One-time form tokens (docs/decisions/077-one-time-form-tokens.md). A creating form (publish,
 * new chapter, top-up order) carries a hidden `formToken` its loader made. The creation
 * records the token in its own transaction, under a unique key; a second submission of
 * the same form finds it and answers with what the first one created. Without a token
 * (an old page, a script) the form creates as before.
 */
const FORM_TOKEN_FIELD = "formToken";

export type FormKind =
  | "publish"
  | "chapter"
  | "top-up"
  | "continuation"
  | "payout"
  | "exchange"
  | "volume"
  | "comment"
  | "entity"
  | "fact"
  | "plot-thread"
  // A passage of a work's 文风 sample (decision 257).
  | "voice-passage"
  // A tip (打赏, decision 207).
  | "tip"
  // A cast of 月票 or 推荐票 (decision 222).
  | "vote"
  // A new 书单, or a work added to one (decision 232): the list's id.
  | "booklist"
  // A reader's token for reading apps (decision 201).
  | "opds-token"
  // The back office's (decision 172): sent by an administrator.
  | "credits-adjustment"
  | "user-message"
  | "redeem-codes"
  | "api-token"
  | "prompt"
  | "api-config"
  // The operator's front page (decision 198): a new 编辑推荐 row, a new 公告.
  | "curated-row"
  | "announcement";

/**
 * Who sent the form: a user's id (readers and authors), or `{ adminId }` for the back
 * office (decision 172); a token is recorded for the one or the other.
 */
export type FormSender = string | { adminId: string };

const senderColumns = (sender: FormSender) =>
  typeof sender === "string" ? { userId: sender, adminId: null } : { userId: null, adminId: sender.adminId };

export const FORM_TOKEN_MESSAGES = {
  invalid: "表单已失效，请刷新页面后重试",
  usedElsewhere: "这个表单已经提交过，请刷新页面后重试",
} as const;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** A fresh token for a form the page renders. */
export function newFormToken(): string {
  return randomBytes(18).toString("base64url");
}

/** The form's token, null without one; a malformed one is a 400. */
export function formTokenOf(form: FormData): string | null {
  const value = form.get(FORM_TOKEN_FIELD);
  if (value === null || value === "") return null;
  if (typeof value !== "string" || !TOKEN_PATTERN.test(value)) throw new DomainError(FORM_TOKEN_MESSAGES.invalid, 400);
  return value;
}

async function earlierResult(sender: FormSender, kind: FormKind, token: string): Promise<string | null> {
  const [row] = await db.select().from(formSubmissions).where(eq(formSubmissions.token, token));
  if (!row) return null;
  const { userId, adminId } = senderColumns(sender);
  if (row.userId !== userId || row.adminId !== adminId || row.kind !== kind) throw new DomainError(FORM_TOKEN_MESSAGES.usedElsewhere, 409);
  return row.resultId;
}

/** Records what a form created, inside the creating transaction. */
export type RecordResult = (tx: Executor, resultId: string | number) => Promise<void>;

/**
 * Runs `create` once per token: `create` gets `record`, to call in its transaction with
 * what it made. A token already recorded (before, or by a concurrent submission that
 * committed first, whose unique key then fails this one's transaction, or a unique key
 * of what it made, reported as a DomainError) gives `existing(resultId)` instead.
 */
export async function oncePerFormToken<T>(
  sender: FormSender,
  kind: FormKind,
  token: string | null,
  create: (record: RecordResult) => Promise<T>,
  existing: (resultId: string) => Promise<T>,
): Promise<T> {
  if (!token) return create(async () => {});
  const before = await earlierResult(sender, kind, token);
  if (before !== null) return existing(before);
  const record: RecordResult = async (tx, resultId) => {
    await tx.insert(formSubmissions).values({ token, ...senderColumns(sender), kind, resultId: String(resultId) });
  };
  try {
    return await create(record);
  } catch (error) {
    // A concurrent submission of the same form that committed first: its token's key
    // fails this one, or a unique key of what it made does first (a prompt's code, which
    // createPrompt answers as 代码已存在); either way the token is recorded now.
    if (!(pgErrorCode(error) === UNIQUE_VIOLATION || error instanceof DomainError)) throw error;
    const first = await earlierResult(sender, kind, token);
    if (first === null) throw error;
    return existing(first);
  }
}

/**
 * Forgets tokens older than a week, users' and administrators' alike (run with the hourly
 * clean-up): forms are not kept open that long.
 */
export async function deleteOldFormTokens(executor: Executor = db): Promise<void> {
  await executor.delete(formSubmissions).where(lt(formSubmissions.createdAt, sql`now() - interval '7 days'`));
}
