// `npm run check:ledger`: reconciles every balance with its ledger and reports any
// difference (exit code 1 when there is one). With PGlite it refuses while the
// server holds the data directory: stop the server first (docs/decisions/075).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";

export interface LedgerDifference {
  userId: string;
  email: string;
  /** What disagrees: the credits balance, the token balance, paid orders, used codes. */
  check: "credits" | "tokens" | "payments" | "refunds" | "redeem" | "income" | "income-held" | "payouts-held" | "tips-paid" | "tips-received";
  /** The stored balance (or, for payments and redeem, what the orders / codes add up to). */
  expected: number;
  /** What the ledger rows add up to. */
  actual: number;
}

/**
 * For every user: credits.balance = recharges - consumes in credit_transactions;
 * profiles.tokens = the sum of token_transactions; the paid payment orders add up to the
 * 在线充值 rows (补单 included), the refunded ones to the 充值退款 rows, and the used redeem codes to the 兑换码充值 rows (each credited exactly once);
 * an author's income balance and held amount are the sums of income_transactions, and the
 * held amount is what their pending payout requests ask for (docs/product.md#author-income);
 * the tips a reader gave add up to their 打赏 debits, and the tips an author received to the
 * gross of their 打赏 income rows (docs/product.md#tips-and-fans, decision 207).
 */
export async function checkLedger(executor?: Executor): Promise<LedgerDifference[]> {
  const db = executor ?? (await import("~/db/client.server")).db;
  const result = await db.execute(sql`
    with credit_sums as (
      select user_id,
             sum(case when type = 'recharge' then amount else -amount end) as total,
             sum(case when type = 'recharge' and description in ('在线充值', '在线充值（补单）') then amount else 0 end) as paid_in,
             sum(case when type = 'consume' and description like '充值退款：%' then amount else 0 end) as refunded_out,
             sum(case when type = 'recharge' and description = '兑换码充值' then amount else 0 end) as redeemed_in,
             sum(case when type = 'consume' and description like '打赏《%' then amount else 0 end) as tipped_out
      from credit_transactions group by user_id
    ),
    tips_given as (select user_id, sum(amount) as total from work_tips group by user_id),
    tips_got as (select author_id as user_id, sum(amount) as total from work_tips group by author_id),
    token_sums as (select user_id, sum(amount) as total from token_transactions group by user_id),
    order_sums as (
      select user_id, sum(amount) as total, sum(case when refunded_at is not null then amount else 0 end) as refunded
      from payment_orders where status = 'paid' group by user_id
    ),
    code_sums as (select used_by as user_id, sum(amount) as total from redeem_codes where status = 'used' and used_by is not null group by used_by),
    income_sums as (
      select user_id, sum(amount) as total, sum(held_change) as held, sum(case when type = 'tip' then gross else 0 end) as tip_gross
      from income_transactions group by user_id
    ),
    pending_sums as (select user_id, sum(amount) as total from payout_requests where status = 'pending' group by user_id),
    per_user as (
      select p.id as user_id, p.email,
             coalesce(c.balance, 0) as balance, coalesce(cs.total, 0) as credit_ledger,
             p.tokens, coalesce(ts.total, 0) as token_ledger,
             coalesce(os.total, 0) as paid_orders, coalesce(cs.paid_in, 0) as paid_in,
             coalesce(os.refunded, 0) as refunded_orders, coalesce(cs.refunded_out, 0) as refunded_out,
             coalesce(rs.total, 0) as used_codes, coalesce(cs.redeemed_in, 0) as redeemed_in,
             coalesce(ai.balance, 0) as income, coalesce(ins.total, 0) as income_ledger,
             coalesce(ai.held, 0) as held, coalesce(ins.held, 0) as held_ledger, coalesce(ps.total, 0) as pending_payouts,
             coalesce(tg.total, 0) as tips_given, coalesce(cs.tipped_out, 0) as tipped_out,
             coalesce(tr.total, 0) as tips_got, coalesce(ins.tip_gross, 0) as tip_gross
      from profiles p
      left join credits c on c.user_id = p.id
      left join credit_sums cs on cs.user_id = p.id
      left join token_sums ts on ts.user_id = p.id
      left join order_sums os on os.user_id = p.id
      left join code_sums rs on rs.user_id = p.id
      left join author_income ai on ai.user_id = p.id
      left join income_sums ins on ins.user_id = p.id
      left join pending_sums ps on ps.user_id = p.id
      left join tips_given tg on tg.user_id = p.id
      left join tips_got tr on tr.user_id = p.id
    )
    select * from per_user
    where balance <> credit_ledger or tokens <> token_ledger or paid_orders <> paid_in or refunded_orders <> refunded_out
       or used_codes <> redeemed_in
       or income <> income_ledger or held <> held_ledger or held <> pending_payouts
       or tips_given <> tipped_out or tips_got <> tip_gross
    order by email`);
  type Row = Record<"user_id" | "email", string> &
    Record<"balance" | "credit_ledger" | "tokens" | "token_ledger" | "paid_orders" | "paid_in" | "refunded_orders" | "refunded_out" | "used_codes" | "redeemed_in", string | number> &
    Record<"income" | "income_ledger" | "held" | "held_ledger" | "pending_payouts", string | number> &
    Record<"tips_given" | "tipped_out" | "tips_got" | "tip_gross", string | number>;
  const differences: LedgerDifference[] = [];
  for (const row of rowsOf<Row>(result)) {
    const pairs: [LedgerDifference["check"], string | number, string | number][] = [
      ["credits", row.balance, row.credit_ledger],
      ["tokens", row.tokens, row.token_ledger],
      ["payments", row.paid_orders, row.paid_in],
      ["refunds", row.refunded_orders, row.refunded_out],
      ["redeem", row.used_codes, row.redeemed_in],
      ["income", row.income, row.income_ledger],
      ["income-held", row.held, row.held_ledger],
      ["payouts-held", row.held, row.pending_payouts],
      ["tips-paid", row.tips_given, row.tipped_out],
      ["tips-received", row.tips_got, row.tip_gross],
    ];
    for (const [check, expected, actual] of pairs) {
      if (Number(expected) !== Number(actual)) {
        differences.push({ userId: row.user_id, email: row.email, check, expected: Number(expected), actual: Number(actual) });
      }
    }
  }
  return differences;
}

const LABELS: Record<LedgerDifference["check"], [string, string]> = {
  credits: ["积分余额", "积分流水合计"],
  tokens: ["Tokens余额", "Tokens流水合计"],
  payments: ["已支付订单合计", "在线充值流水合计"],
  refunds: ["已退款订单合计", "充值退款流水合计"],
  redeem: ["已使用兑换码合计", "兑换码充值流水合计"],
  income: ["收入余额", "收入流水合计"],
  "income-held": ["提现冻结", "冻结流水合计"],
  "payouts-held": ["提现冻结", "待处理提现申请合计"],
  "tips-paid": ["送出的打赏合计", "打赏扣款流水合计"],
  "tips-received": ["收到的打赏合计", "打赏收入流水（读者支付）合计"],
};

export function formatDifferences(differences: LedgerDifference[]): string {
  if (differences.length === 0) return "对账完成：所有用户的余额与流水一致。";
  const lines = differences.map((d) => {
    const [left, right] = LABELS[d.check];
    return `  ${d.email} (${d.userId})  ${left} ${d.expected}，${right} ${d.actual}，相差 ${d.expected - d.actual}`;
  });
  return `对账发现 ${differences.length} 处不一致：\n${lines.join("\n")}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { openDatabase } = await import("./lib/database");
  const client = await openDatabase();
  let code = 0;
  try {
    const differences = await checkLedger(client.db);
    console.log(formatDifferences(differences));
    code = differences.length > 0 ? 1 : 0;
  } finally {
    await client.closeDatabase();
  }
  process.exit(code);
}
