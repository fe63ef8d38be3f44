CREATE TABLE "payment_notifies" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_notifies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"out_trade_no" text,
	"method" text NOT NULL,
	"outcome" text NOT NULL,
	"params" jsonb NOT NULL,
	"address" text
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "banned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "banned_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "ban_reason" text;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "credited_via" text;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "credited_by" uuid;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "credit_note" text;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "refunded_by" uuid;--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "refund_reason" text;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "taken_down_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "takedown_reason" text;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "takedown_previous" jsonb;--> statement-breakpoint
CREATE INDEX "payment_notifies_received_idx" ON "payment_notifies" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "payment_notifies_order_idx" ON "payment_notifies" USING btree ("out_trade_no","received_at");--> statement-breakpoint
CREATE INDEX "payment_orders_created_idx" ON "payment_orders" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_ban_reason" CHECK (("users"."banned_at" IS NULL) = ("users"."ban_reason" IS NULL));--> statement-breakpoint
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_credited_via" CHECK ("payment_orders"."credited_via" IN ('notify', 'query', 'manual'));--> statement-breakpoint
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_refund_paid" CHECK ("payment_orders"."refunded_at" IS NULL OR ("payment_orders"."status" = 'paid' AND "payment_orders"."refund_reason" IS NOT NULL));--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_takedown" CHECK ("works"."taken_down_at" is null or ("works"."visibility" = 'private' and "works"."takedown_reason" is not null and "works"."takedown_previous" is not null));
--> statement-breakpoint
-- hand-written: orders paid before 补单 existed were credited by the notify (docs/decisions/136).
UPDATE "payment_orders" SET "credited_via" = 'notify' WHERE "status" = 'paid';
