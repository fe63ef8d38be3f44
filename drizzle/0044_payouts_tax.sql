CREATE TABLE "payout_accounts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payout_accounts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"bank_name" text,
	"account_cipher" text NOT NULL,
	"account_masked" text NOT NULL,
	"holder_cipher" text NOT NULL,
	"holder_masked" text NOT NULL,
	"key_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_accounts_kind" CHECK ("payout_accounts"."kind" in ('bank', 'alipay')),
	CONSTRAINT "payout_accounts_bank_name" CHECK (("payout_accounts"."kind" = 'bank') = ("payout_accounts"."bank_name" is not null))
);
--> statement-breakpoint
CREATE TABLE "payout_statements" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payout_statements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"payout_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"month" text NOT NULL,
	"rule" text NOT NULL,
	"gross_fen" bigint NOT NULL,
	"tax_fen" bigint NOT NULL,
	"net_fen" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_statements_payout_kind" UNIQUE("payout_id","kind"),
	CONSTRAINT "payout_statements_kind" CHECK ("payout_statements"."kind" in ('withholding', 'reversal')),
	CONSTRAINT "payout_statements_rule" CHECK ("payout_statements"."rule" in ('labor', 'royalty')),
	CONSTRAINT "payout_statements_sum" CHECK ("payout_statements"."gross_fen" = "payout_statements"."tax_fen" + "payout_statements"."net_fen"),
	CONSTRAINT "payout_statements_sign" CHECK (case when "payout_statements"."kind" = 'withholding' then "payout_statements"."gross_fen" > 0 and "payout_statements"."tax_fen" >= 0 and "payout_statements"."net_fen" >= 0 else "payout_statements"."gross_fen" < 0 and "payout_statements"."tax_fen" <= 0 and "payout_statements"."net_fen" <= 0 end)
);
--> statement-breakpoint
ALTER TABLE "income_transactions" DROP CONSTRAINT "income_transactions_type";--> statement-breakpoint
ALTER TABLE "payout_requests" DROP CONSTRAINT "payout_requests_status";--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "account_id" bigint;--> statement-breakpoint
ALTER TABLE "payout_accounts" ADD CONSTRAINT "payout_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_statements" ADD CONSTRAINT "payout_statements_payout_id_payout_requests_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."payout_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_statements" ADD CONSTRAINT "payout_statements_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_accounts_user_idx" ON "payout_accounts" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "payout_accounts_key_idx" ON "payout_accounts" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "payout_statements_user_month_idx" ON "payout_statements" USING btree ("user_id","month","id");--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_type" CHECK ("income_transactions"."type" in ('sale', 'tip', 'payout_request', 'payout_paid', 'payout_refused', 'payout_returned', 'convert'));--> statement-breakpoint
ALTER TABLE "payout_requests" ADD CONSTRAINT "payout_requests_status" CHECK ("payout_requests"."status" in ('pending', 'paid', 'refused', 'returned'));