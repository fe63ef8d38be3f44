import { sql } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { writingDays } from "~/db/schema";
import { shanghaiDate } from "~/utils/shanghai-time";

/**
 * Counts `words` (net; negative when text was cut) as written in the work on the China-time
 * day of `at`: the 写作台's 今日字数 (docs/decisions/261). Called in the transaction that
 * saves the text, so a rolled-back save counts nothing.
 */
export async function recordWritten(tx: Executor, workId: number, words: number, at: Date): Promise<void> {
  if (words === 0) return;
  await tx
    .insert(writingDays)
    .values({ workId, day: shanghaiDate(at), words })
    .onConflictDoUpdate({ target: [writingDays.workId, writingDays.day], set: { words: sql`${writingDays.words} + ${words}` } });
}
