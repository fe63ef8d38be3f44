/** The order list's status filter (decision 136). */
export const ORDER_FILTERS = ["all", "pending", "paid", "refunded"] as const;
export type OrderFilter = (typeof ORDER_FILTERS)[number];

/** Labels of payment orders in the back office (decision 136). */
export const ORDER_FILTER_LABELS = { all: "全部", pending: "待支付", paid: "已支付", refunded: "已退款" } as const;

export const CREDITED_VIA_LABELS: Record<string, string> = { notify: "支付通知", query: "查单", manual: "补单" };

export function orderStatusLabel(order: { status: string; refundedAt: Date | string | null }): string {
  return order.refundedAt ? "已退款" : order.status === "paid" ? "已支付" : "待支付";
}
