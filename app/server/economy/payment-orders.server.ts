import { and, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { paymentOrders } from "~/db/schema";

/** The state of one of the user's own orders, read from the database (never from the URL). */
export async function getOwnPaymentOrder(userId: string, outTradeNo: string) {
  if (!outTradeNo || outTradeNo.length > 64) return null;
  const [order] = await db
    .select({
      outTradeNo: paymentOrders.outTradeNo,
      amount: paymentOrders.amount,
      status: paymentOrders.status,
      paidAt: paymentOrders.paidAt,
    })
    .from(paymentOrders)
    .where(and(eq(paymentOrders.outTradeNo, outTradeNo), eq(paymentOrders.userId, userId)));
  return order ?? null;
}
