// `npm run check:ledger`: reconciles every balance with its ledger and reports any
// difference (exit code 1 when there is one). With PGlite it refuses while the
// server holds the data directory: stop the server first (docs/decisions/075).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import type { Executor } from "~/db/client.server";
import { rowsOf } from "~/server/platform/db-utils.server";
import { withholdingFen, type TaxRule } from "~/server/economy/payout-tax";

export interface LedgerDifference {
  userId: string;
  email: string;
  /** What disagrees: the credits balance, the token balance, paid orders, used codes. */
  check:
    | "credits"
    | "tokens"
    | "payments"
    | "refunds"
    | "redeem"
    | "income"
    | "income-held"
    | "payouts-held"
    | "payout-gross"
    | "payout-split"
    | "payout-tax"
    | "payout-reversal"
    | "tips-paid"
    | "tips-received"
    | "bonuses";
  /** The China-time month a payout check is about ("2026-11"); none for the balances. */
  month?: string;
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
 * gross of their 打赏 income rows (docs/product.md#tips-and-fans, decision 207); the 全勤奖 paid
 * add up to the `bonus` income rows (decision 236); and the payout statements (decision 209,
 * checkPayoutStatements).
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
      select user_id, sum(amount) as total, sum(held_change) as held, sum(case when type = 'tip' then gross else 0 end) as tip_gross,
             sum(case when type = 'bonus' then amount else 0 end) as bonus_income
      from income_transactions group by user_id
    ),
    bonus_sums as (select user_id, sum(amount) as total from attendance_bonuses group by user_id),
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
             coalesce(tr.total, 0) as tips_got, coalesce(ins.tip_gross, 0) as tip_gross,
             coalesce(bs.total, 0) as bonuses, coalesce(ins.bonus_income, 0) as bonus_income
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
      left join bonus_sums bs on bs.user_id = p.id
    )
    select * from per_user
    where balance <> credit_ledger or tokens <> token_ledger or paid_orders <> paid_in or refunded_orders <> refunded_out
       or used_codes <> redeemed_in
       or income <> income_ledger or held <> held_ledger or held <> pending_payouts
       or tips_given <> tipped_out or tips_got <> tip_gross or bonuses <> bonus_income
    order by email`);
  type Row = Record<"user_id" | "email", string> &
    Record<"balance" | "credit_ledger" | "tokens" | "token_ledger" | "paid_orders" | "paid_in" | "refunded_orders" | "refunded_out" | "used_codes" | "redeemed_in", string | number> &
    Record<"income" | "income_ledger" | "held" | "held_ledger" | "pending_payouts", string | number> &
    Record<"tips_given" | "tipped_out" | "tips_got" | "tip_gross" | "bonuses" | "bonus_income", string | number>;
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
      ["bonuses", row.bonuses, row.bonus_income],
    ];
    for (const [check, expected, actual] of pairs) {
      if (Number(expected) !== Number(actual)) {
        differences.push({ userId: row.user_id, email: row.email, check, expected: Number(expected), actual: Number(actual) });
      }
    }
  }
  return [...differences, ...(await checkPayoutStatements(db))];
}

/**
 * The payout statements (decision 209), per author and China-time month: the payouts paid
 * in the month (amount × 100 fen; those paid before statements existed, with no account and
 * no statement, aside) add up to the withholding rows' gross; gross = tax + net over every
 * row; the tax withheld is what the rule gives when recomputed row by row (the tax on the
 * month's total so far less what the month withheld before); and each returned payout's
 * tax is reversed exactly once.
 */
async function checkPayoutStatements(db: Executor): Promise<LedgerDifference[]> {
  type Row = { user_id: string; email: string; month: string; check: string; expected: string | number; actual: string | number };
  const sums = rowsOf<Row>(
    await db.execute(sql`
      with paid as (
        select p.user_id, to_char((p.settled_at at time zone 'UTC') + interval '8 hours', 'YYYY-MM') as month, sum(p.amount * 100) as gross
        from payout_requests p
        where p.status in ('paid', 'returned')
          and (p.account_id is not null or exists (select 1 from payout_statements s where s.payout_id = p.id))
        group by 1, 2
      ),
      withheld as (
        select user_id, month, sum(gross_fen) filter (where kind = 'withholding') as gross,
               sum(gross_fen) as all_gross, sum(tax_fen + net_fen) as all_split
        from payout_statements group by 1, 2
      ),
      returned as (
        select p.user_id, coalesce(sum(w.tax_fen) filter (where p.status = 'returned'), 0) as withheld_tax,
               coalesce((select -sum(r.tax_fen) from payout_statements r where r.user_id = p.user_id and r.kind = 'reversal'), 0) as reversed_tax
        from payout_requests p left join payout_statements w on w.payout_id = p.id and w.kind = 'withholding'
        where p.status = 'returned' or exists (select 1 from payout_statements r where r.payout_id = p.id and r.kind = 'reversal')
        group by p.user_id
      )
      select coalesce(a.user_id, w.user_id) as user_id, pr.email, coalesce(a.month, w.month) as month, 'payout-gross' as check,
             coalesce(a.gross, 0) as expected, coalesce(w.gross, 0) as actual
      from paid a full join withheld w on w.user_id = a.user_id and w.month = a.month
      join profiles pr on pr.id = coalesce(a.user_id, w.user_id)
      where coalesce(a.gross, 0) <> coalesce(w.gross, 0)
      union all
      select w.user_id, pr.email, w.month, 'payout-split', w.all_gross, w.all_split
      from withheld w join profiles pr on pr.id = w.user_id where w.all_gross <> w.all_split
      union all
      select r.user_id, pr.email, '', 'payout-reversal', r.withheld_tax, r.reversed_tax
      from returned r join profiles pr on pr.id = r.user_id where r.withheld_tax <> r.reversed_tax
      order by 2, 3`),
  );
  const differences: LedgerDifference[] = sums.map((r) => ({
    userId: r.user_id,
    email: r.email,
    check: r.check as LedgerDifference["check"],
    ...(r.month ? { month: r.month } : {}),
    expected: Number(r.expected),
    actual: Number(r.actual),
  }));
  // The tax, recomputed in the order the rows were written, one author-month at a time.
  type Withholding = { user_id: string; email: string; month: string; rule: TaxRule; gross_fen: string | number; tax_fen: string | number };
  const rows = rowsOf<Withholding>(
    await db.execute(sql`
      select s.user_id, pr.email, s.month, s.rule, s.gross_fen, s.tax_fen
      from payout_statements s join profiles pr on pr.id = s.user_id
      where s.kind = 'withholding' order by s.user_id, s.month, s.id`),
  );
  let key = "";
  let gross = 0;
  let recorded = 0;
  let recomputed = 0;
  const flush = (r: Withholding | undefined) => {
    if (r && recorded !== recomputed) differences.push({ userId: r.user_id, email: r.email, check: "payout-tax", month: r.month, expected: recomputed, actual: recorded });
  };
  rows.forEach((r, i) => {
    if (`${r.user_id} ${r.month}` !== key) {
      flush(rows[i - 1]);
      key = `${r.user_id} ${r.month}`;
      gross = recorded = recomputed = 0;
    }
    // Each row's tax given what the month had withheld before it (as recorded), so one wrong row is found, not its successors.
    recomputed += withholdingFen(Number(r.gross_fen), gross, recorded, r.rule);
    gross += Number(r.gross_fen);
    recorded += Number(r.tax_fen);
  });
  flush(rows.at(-1));
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
  bonuses: ["已发放全勤奖合计", "全勤奖收入流水合计"],
  "payout-gross": ["当月已支付提现（分）", "当月结算单应发合计"],
  "payout-split": ["结算单应发合计", "个税与实发合计"],
  "payout-tax": ["按规则重算的代扣个税", "结算单代扣个税合计"],
  "payout-reversal": ["已退回提现的代扣个税", "冲回个税合计"],
};

export function formatDifferences(differences: LedgerDifference[]): string {
  if (differences.length === 0) return "对账完成：所有用户的余额与流水一致。";
  const lines = differences.map((d) => {
    const [left, right] = LABELS[d.check];
    return `  ${d.email} (${d.userId})${d.month ? ` ${d.month}` : ""}  ${left} ${d.expected}，${right} ${d.actual}，相差 ${d.expected - d.actual}`;
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
