DROP INDEX "income_transactions_sale_day_idx";--> statement-breakpoint
DROP INDEX "payout_requests_paid_day_idx";--> statement-breakpoint
CREATE INDEX "payment_orders_paid_keyset_idx" ON "payment_orders" USING btree ("paid_at","out_trade_no") WHERE status = 'paid';--> statement-breakpoint
CREATE INDEX "payment_orders_refunded_keyset_idx" ON "payment_orders" USING btree ("refunded_at","out_trade_no") WHERE refunded_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "income_transactions_returned_day_idx" ON "income_transactions" USING btree ("created_at","amount") WHERE type = 'payout_returned';--> statement-breakpoint
CREATE INDEX "payout_statements_created_idx" ON "payout_statements" USING btree ("created_at","tax_fen");--> statement-breakpoint
CREATE INDEX "income_transactions_sale_day_idx" ON "income_transactions" USING btree ("created_at","type","gross","amount") WHERE type in ('sale', 'tip');--> statement-breakpoint
CREATE INDEX "payout_requests_paid_day_idx" ON "payout_requests" USING btree ("settled_at","amount") WHERE status in ('paid', 'returned');