ALTER TABLE "redeem_codes" ADD COLUMN "batch" text;--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD COLUMN "voided_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "redeem_codes_batch_idx" ON "redeem_codes" USING btree ("batch","created_at");--> statement-breakpoint
ALTER TABLE "redeem_codes" ADD CONSTRAINT "redeem_codes_void_unused" CHECK ("redeem_codes"."voided_at" IS NULL OR "redeem_codes"."status" = 'unused');