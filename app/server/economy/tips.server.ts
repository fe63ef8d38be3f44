import { and, desc, eq, sql } from "drizzle-orm";
import { db } from "~/db/client.server";
import { credits, profiles, users, workTips, works } from "~/db/schema";
import { refuseWithoutPhone } from "~/server/identity/phone-verification.server";
import { isInMinorMode } from "~/server/identity/minor-mode.server";
import { DomainError } from "~/server/platform/errors.server";
import { sendInOrder } from "~/server/platform/db-utils.server";
import { userChangedStatement } from "~/server/platform/events.server";
import type { RecordResult } from "~/server/platform/form-tokens.server";
import { banActive } from "~/server/identity/auth.server";
import { getWorkForViewer, type Viewer } from "~/server/catalog/works.server";
import { COMMENT_MESSAGES, postTipNotice, tipNoticeTarget } from "~/server/community/comments.server";
import { fanRanking, fanValueStatements } from "~/server/community/fans.server";
import { rankingTallyStatement } from "~/server/community/votes.server";
import { workTippedStatement } from "~/server/community/notifications.server";
import { isOnlyInvisible } from "~/server/screening/matcher.server";
import { maskTexts, refuseForbidden, screenText } from "~/server/screening/screening.server";
import { TIP_MAX_AMOUNT, TIP_MESSAGE_MAX_CHARS } from "~/schemas/tips";
import type { TipView } from "~/types/fans";
import { getEconomySettings } from "./economy-settings.server";
import { debitBalance, LEDGER_MESSAGES, LedgerError } from "./ledger.server";
import { saleStatements } from "./sale-income.server";
import { chargeMinorSpend } from "./minor-caps.server";

/**
 * 打赏 (docs/product.md#tips-and-fans, D18, decision 207). A reader gives a work credits,
 * from a chapter's end or the work page, with an optional short message. One transaction:
 * the tipper's debit (积分余额不足 leaves nothing written), the author's share into income
 * as `creditSale` pays a sale's (the sales' share and rate, on an income row of type `tip`), the
 * `work_tips` row, the notice in that chapter's 本章说 (from a chapter's end), the reader's
 * 粉丝值 and the author's inbox line.
 */

/** @internal */
export const TIP_MESSAGES = {
  amount: "请输入打赏积分（不小于 1 的整数）",
  tooMuch: `单次打赏最多 ${TIP_MAX_AMOUNT} 积分`,
  messageTooLong: `打赏留言最多 ${TIP_MESSAGE_MAX_CHARS} 字`,
  ownWork: "不能打赏自己的作品",
  banned: "账号已被封禁，不能打赏",
  gated: "当前显示设置下无法打赏该作品",
} as const;

export interface TipInput {
  workId: number;
  /** The chapter (its number as readers see it) whose end the tip was given from; null from the work page. */
  chapterOrder: number | null;
  amount: unknown;
  message: unknown;
}

export interface TipResult {
  id: number;
  amount: number;
  balance: number;
  /** The chapter whose 本章说 shows the notice, or null. */
  noticeOrder: number | null;
}

function tipAmount(value: unknown): number {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d{1,12}$/.test(text) || Number(text) < 1) throw new DomainError(TIP_MESSAGES.amount, 400, "amount");
  const n = Number(text);
  if (n > TIP_MAX_AMOUNT) throw new DomainError(TIP_MESSAGES.tooMuch, 400, "amount");
  return n;
}

function tipMessage(value: unknown): string {
  const text = (typeof value === "string" ? value : "").replace(/\s+/g, " ").trim();
  if (!text || isOnlyInvisible(text)) return "";
  if (Array.from(text).length > TIP_MESSAGE_MAX_CHARS) throw new DomainError(TIP_MESSAGES.messageTooLong, 400, "message");
  return text;
}

/**
 * Tips a work. Refusals, each with nothing written: a bad amount or message (400), a
 * message with a 禁止 word (400, naming it), the reader's own work or a banned reader
 * (403), a work they may not see (404) or read the chapter of (403), too few credits
 * (402, 积分余额不足). `record` writes the form's one-time token in the same transaction,
 * so the same form sent twice tips once (decision 077).
 */
export async function tipWork(user: NonNullable<Viewer>, input: TipInput, record?: RecordResult): Promise<TipResult> {
  const amount = tipAmount(input.amount);
  const message = tipMessage(input.message);
  const { held } = message ? await refuseForbidden([{ label: "打赏留言", field: "message", text: message }]) : { held: false };
  // The reads are independent: asked at once (bench:rewards; each awaited by Promise.all, so none rejects unheard).
  const [view, [account], [tipper], settings] = await Promise.all([
    getWorkForViewer(input.workId, user),
    db.select({ banned: banActive }).from(users).where(eq(users.id, user.id)),
    db.select({ nickname: profiles.nickname }).from(profiles).where(eq(profiles.id, user.id)),
    getEconomySettings(),
  ]);
  if (view.isOwner) throw new DomainError(TIP_MESSAGES.ownWork, 403);
  if (view.gate !== "ok") throw new DomainError(TIP_MESSAGES.gated, 403);
  if (!account) throw new LedgerError(LEDGER_MESSAGES.userMissing, 404);
  if (account.banned) throw new DomainError(TIP_MESSAGES.banned, 403);
  const target = input.chapterOrder === null ? null : await tipNoticeTarget(user, input.workId, input.chapterOrder);
  if (target?.muted && message) throw new DomainError(COMMENT_MESSAGES.muted, 403, "message");
  // A message is said in public like a comment: 后台实名 applies to it, not to the tip (decision 235).
  if (message) await refuseWithoutPhone(user.id, "message");

  return db.transaction(async (tx) => {
    // The work as it is now (FOR SHARE, as a sale): still there and still someone else's;
    // asked with the reader's 青少年模式 (bench:rewards: each round trip counts).
    const [[work], inMinorMode] = await Promise.all([
      tx
        .select({ id: works.id, userId: works.userId, title: works.title, takenDownAt: works.takenDownAt })
        .from(works)
        .where(eq(works.id, input.workId))
        .for("share"),
      isInMinorMode(user.id, tx),
    ]);
    if (!work || work.takenDownAt) throw new LedgerError(LEDGER_MESSAGES.workMissing, 404);
    if (work.userId === user.id) throw new DomainError(TIP_MESSAGES.ownWork, 403);
    await chargeMinorSpend(tx, user.id, amount, inMinorMode);
    const { balance, ledgerRow } = await debitBalance(tx, user.id, amount, `打赏《${work.title}》`);
    const chapterId = target?.chapterId ?? null;
    // The rest needs no answer from the others: sent at once, in this order (the debit's
    // ledger row, the author's income, the tip, the 粉丝值 and 月票 spend, the 打赏 rankings by day, week and month
    // (decision 222), the author's inbox line, the reader's pages told), so that locks
    // are taken in the same order as by a sale and a vote (decision 207).
    const income = saleStatements(tx, work.userId, amount, settings, {
      workId: work.id,
      chapterId,
      description: `《${work.title}》收到打赏（${tipper?.nickname ?? "读者"}）`,
      type: "tip",
    }).statements;
    const tipRow = tx
      .insert(workTips)
      .values({ userId: user.id, workId: work.id, authorId: work.userId, chapterId, amount, message })
      .returning({ id: workTips.id })
      .getSQL();
    const answers = await sendInOrder(tx, [
      ledgerRow,
      ...income,
      tipRow,
      ...fanValueStatements(tx, user.id, work.id, amount),
      rankingTallyStatement(tx, "tip", work.id, amount),
      workTippedStatement({ authorId: work.userId, tipperId: user.id, workId: work.id, chapterId, amount }),
      userChangedStatement(user.id, "balance"),
    ]);
    const tip = { id: Number((answers[1 + income.length][0] as { id: number | string }).id) };
    if (target && !target.muted) {
      const commentId = await postTipNotice(tx, { workId: work.id, chapterId: target.chapterId, userId: user.id, amount, message, held });
      await tx.update(workTips).set({ commentId }).where(eq(workTips.id, tip.id));
    }
    await record?.(tx, tip.id);
    return { id: tip.id, amount, balance, noticeOrder: target && !target.muted ? target.order : null };
  });
}

/** A tip already made (a form sent twice): what the first submission did, for its answer. */
export async function tipById(userId: string, tipId: number): Promise<{ amount: number }> {
  const [row] = await db
    .select({ amount: workTips.amount })
    .from(workTips)
    .where(and(eq(workTips.id, tipId), eq(workTips.userId, userId)));
  if (!row) throw new DomainError(TIP_MESSAGES.amount, 404);
  return { amount: row.amount };
}

/**
 * A work's latest tips for its page (最近打赏): nickname, amount, message (替换 masked). A
 * message that holds a 审核 word (held in 本章说 for a reviewer, or from the work page,
 * where nothing reviews it) is left out: the amount shows, the words do not.
 */
export async function recentTips(workId: number, limit = 10): Promise<TipView[]> {
  const rows = await db
    .select({
      id: workTips.id,
      nickname: profiles.nickname,
      amount: workTips.amount,
      message: workTips.message,
      createdAt: workTips.createdAt,
    })
    .from(workTips)
    .innerJoin(profiles, eq(profiles.id, workTips.userId))
    .where(and(eq(workTips.workId, workId), sql`not exists (select 1 from ${users} where ${users.id} = ${workTips.userId} and ${banActive})`))
    .orderBy(desc(workTips.createdAt), desc(workTips.id))
    .limit(limit);
  const shown = await Promise.all(rows.map(async (r) => (r.message && !(await screenText(r.message)).held ? r.message : "")));
  const masked = await maskTexts(shown);
  return rows.map((r, i) => ({ id: r.id, nickname: r.nickname, amount: r.amount, message: masked[i], createdAt: r.createdAt.toISOString() }));
}

/**
 * What the tip page shows (/works/:id/tip): the work, the chapter whose end the reader
 * came from (if they may read its comments), the reader's balance and 粉丝值 on the work.
 * The reader's own work is refused here already (403, 不能打赏自己的作品).
 */
export async function tipPage(user: NonNullable<Viewer>, workId: number, chapterOrder: number | null) {
  const view = await getWorkForViewer(workId, user);
  if (view.isOwner) throw new DomainError(TIP_MESSAGES.ownWork, 403);
  if (view.gate !== "ok") throw new DomainError(TIP_MESSAGES.gated, 403);
  const target = chapterOrder === null ? null : await tipNoticeTarget(user, workId, chapterOrder);
  const [[account], fans] = await Promise.all([
    db.select({ balance: credits.balance }).from(credits).where(eq(credits.userId, user.id)),
    fanRanking(workId, user.id, { limit: 0 }),
  ]);
  return {
    work: { id: view.work.id, title: view.work.title, authorNickname: view.author.nickname },
    chapterOrder: target?.order ?? null,
    muted: target?.muted ?? false,
    balance: Number(account?.balance ?? 0),
    fan: fans.viewer,
  };
}
