/**
 * 个人所得税 withheld at payout (docs/product.md#author-income, decision 209). Money is in fen
 * (integers); the tax is rounded once, half up, to the fen. Pure: the settlement reads the
 * month's rows and calls these; `npm run check:ledger` calls them again to reconcile.
 */

export type TaxRule = "labor" | "royalty";

/** Income up to this (fen) is reduced by 800 yuan; above it by 20%. */
const FLAT_DEDUCTION_LIMIT = 400_000;
const FLAT_DEDUCTION = 80_000;

/** n / d rounded half up, for n ≥ 0 and d > 0 (integers). */
function roundHalfUp(n: number, d: number): number {
  return Math.floor((2 * n + d) / (2 * d));
}

/**
 * Five times the taxable amount, in fen (exact: 80% of an amount in fen is a fifth short of
 * a whole fen at most): income ≤ 4,000 yuan → income − 800 (not below 0), above → income × 80%.
 */
function taxableTimesFive(incomeFen: number): number {
  if (incomeFen <= 0) return 0;
  return incomeFen <= FLAT_DEDUCTION_LIMIT ? 5 * Math.max(0, incomeFen - FLAT_DEDUCTION) : 4 * incomeFen;
}

/**
 * The tax on one month's income (fen) under a rule:
 * - 劳务报酬所得: taxable ≤ 20,000 → 20%; ≤ 50,000 → 30% − 2,000; above → 40% − 7,000.
 * - 稿酬所得: taxable × 70% × 20%.
 * @internal
 */
export function incomeTaxFen(incomeFen: number, rule: TaxRule): number {
  const t5 = taxableTimesFive(incomeFen);
  if (t5 === 0) return 0;
  if (rule === "royalty") return roundHalfUp(t5 * 14, 500);
  if (t5 <= 5 * 2_000_000) return roundHalfUp(t5 * 20, 500);
  if (t5 <= 5 * 5_000_000) return roundHalfUp(t5 * 30, 500) - 200_000;
  return roundHalfUp(t5 * 40, 500) - 700_000;
}

/**
 * The tax withheld from one payout: the tax on the month's total paid so far including this
 * one, less what was already withheld in the month (never below zero: a rule changed in the
 * middle of a month takes nothing back).
 */
export function withholdingFen(grossFen: number, monthGrossBefore: number, monthTaxBefore: number, rule: TaxRule): number {
  return Math.max(0, incomeTaxFen(monthGrossBefore + grossFen, rule) - monthTaxBefore);
}

/** Credits (积分) to fen: a credit is a yuan (an online top-up is 1 yuan = 1 credit). */
export const CREDIT_IN_FEN = 100;
