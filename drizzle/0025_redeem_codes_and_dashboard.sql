ALTER TABLE "redeem_codes" ADD COLUMN "batch" text;--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD COLUMN "voided_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_orders_paid_day_idx" ON "payment_orders" USING btree ("paid_at","amount") WHERE status = 'paid';--> statement-breakpoint
CREATE INDEX "redeem_codes_batch_idx" ON "redeem_codes" USING btree ("batch","created_at");--> statement-breakpoint
CREATE INDEX "token_transactions_generation_day_idx" ON "token_transactions" USING btree ("created_at","amount") WHERE type = 'generation';--> statement-breakpoint
CREATE INDEX "chapter_reads_day_user_idx" ON "chapter_reads" USING btree ("day","user_id");--> statement-breakpoint
CREATE INDEX "chapter_purchases_created_idx" ON "chapter_purchases" USING btree ("created_at","price");--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD CONSTRAINT "redeem_codes_void_unused" CHECK ("redeem_codes"."voided_at" IS NULL OR "redeem_codes"."status" = 'unused');