/** A payout's statement as the pages show it (app/server/economy/payout-statements.server.ts, decision 209). */
interface StatementFiguresView {
  month: string;
  rule: "labor" | "royalty";
  grossFen: number;
  taxFen: number;
  netFen: number;
  createdAt: string;
}

export interface PayoutStatementPageView {
  id: number;
  amount: number;
  status: "pending" | "paid" | "refused" | "returned";
  payee: string;
  payeeName: string | null;
  reference: string | null;
  createdAt: string;
  settledAt: string | null;
  withholding: (StatementFiguresView & { monthGrossFen: number; monthTaxFen: number }) | null;
  reversal: StatementFiguresView | null;
}

export const PAYOUT_STATUS_LABELS = { pending: "处理中", paid: "已支付", refused: "已拒绝", returned: "款项已退回" } as const;
export const TAX_RULE_NAMES = { labor: "劳务报酬所得", royalty: "稿酬所得" } as const;
