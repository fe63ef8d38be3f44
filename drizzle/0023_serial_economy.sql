CREATE TABLE "author_income" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"held" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "author_income_balance_nonnegative" CHECK ("author_income"."balance" >= 0),
	CONSTRAINT "author_income_held_nonnegative" CHECK ("author_income"."held" >= 0)
);
--> statement-breakpoint
CREATE TABLE "auto_subscriptions" (
	"user_id" uuid NOT NULL,
	"work_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_subscriptions_pkey" PRIMARY KEY("user_id","work_id")
);
--> statement-breakpoint
CREATE TABLE "chapter_purchases" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chapter_purchases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"chapter_id" bigint NOT NULL,
	"work_id" bigint NOT NULL,
	"price" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chapter_purchases_user_chapter_unique" UNIQUE("user_id","chapter_id"),
	CONSTRAINT "chapter_purchases_price_nonnegative" CHECK ("chapter_purchases"."price" >= 0)
);
--> statement-breakpoint
CREATE TABLE "income_transactions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "income_transactions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"amount" bigint NOT NULL,
	"held_change" bigint DEFAULT 0 NOT NULL,
	"gross" bigint DEFAULT 0 NOT NULL,
	"work_id" bigint,
	"chapter_id" bigint,
	"payout_id" bigint,
	"description" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "income_transactions_type" CHECK ("income_transactions"."type" in ('sale', 'payout_request', 'payout_paid', 'payout_refused', 'convert'))
);
--> statement-breakpoint
CREATE TABLE "payout_requests" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payout_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"amount" bigint NOT NULL,
	"payee" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reference" text,
	"settled_by" uuid,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_requests_amount_positive" CHECK ("payout_requests"."amount" > 0),
	CONSTRAINT "payout_requests_status" CHECK ("payout_requests"."status" in ('pending', 'paid', 'refused')),
	CONSTRAINT "payout_requests_settled" CHECK (("payout_requests"."status" = 'pending') = ("payout_requests"."settled_at" is null))
);
--> statement-breakpoint
ALTER TABLE "works" DROP CONSTRAINT "works_price_matches_visibility";--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "price" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "sale_mode" text DEFAULT 'whole' NOT NULL;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "vip_from" integer;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "price_per_thousand" integer;--> statement-breakpoint
ALTER TABLE "author_income" ADD CONSTRAINT "author_income_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_subscriptions" ADD CONSTRAINT "auto_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_subscriptions" ADD CONSTRAINT "auto_subscriptions_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_purchases" ADD CONSTRAINT "chapter_purchases_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_purchases" ADD CONSTRAINT "chapter_purchases_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD CONSTRAINT "payout_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD CONSTRAINT "payout_requests_settled_by_admins_id_fk" FOREIGN KEY ("settled_by") REFERENCES "public"."admins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_purchases_user_work_idx" ON "chapter_purchases" USING btree ("user_id","work_id");--> statement-breakpoint
CREATE INDEX "chapter_purchases_work_created_idx" ON "chapter_purchases" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "income_transactions_user_created_idx" ON "income_transactions" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "income_transactions_work_idx" ON "income_transactions" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "payout_requests_status_created_idx" ON "payout_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "payout_requests_user_created_idx" ON "payout_requests" USING btree ("user_id","created_at");--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_price_nonnegative" CHECK ("chapters"."price" >= 0);--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_sale_mode" CHECK ("works"."sale_mode" in ('whole', 'chapter'));--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_chapter_sale_terms" CHECK ("works"."sale_mode" <> 'chapter' or ("works"."vip_from" >= 1 and "works"."price_per_thousand" >= 1));--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_price_matches_visibility" CHECK (("works"."visibility" = 'public-vip' and ("works"."price" >= 1 or "works"."sale_mode" = 'chapter')) or ("works"."visibility" <> 'public-vip' and "works"."price" = 0));