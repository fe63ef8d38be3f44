CREATE TABLE "attendance_bonuses" (
	"user_id" uuid NOT NULL,
	"month" text NOT NULL,
	"amount" bigint NOT NULL,
	"min_words" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attendance_bonuses_pkey" PRIMARY KEY("user_id","month"),
	CONSTRAINT "attendance_bonuses_amount_positive" CHECK ("attendance_bonuses"."amount" > 0),
	CONSTRAINT "attendance_bonuses_month" CHECK ("attendance_bonuses"."month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
);
--> statement-breakpoint
ALTER TABLE "income_transactions" DROP CONSTRAINT "income_transactions_type";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "contract" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "attendance_bonuses" ADD CONSTRAINT "attendance_bonuses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_contract" CHECK ("users"."contract" in ('none', 'signed', 'buyout'));--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_type" CHECK ("income_transactions"."type" in ('sale', 'tip', 'bonus', 'payout_request', 'payout_paid', 'payout_refused', 'payout_returned', 'convert'));