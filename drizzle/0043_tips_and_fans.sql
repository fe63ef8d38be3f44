CREATE TABLE "work_fans" (
	"work_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"fan_value" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_fans_pkey" PRIMARY KEY("work_id","user_id"),
	CONSTRAINT "work_fans_value_nonnegative" CHECK ("work_fans"."fan_value" >= 0)
);
--> statement-breakpoint
CREATE TABLE "work_tips" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "work_tips_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"work_id" bigint,
	"author_id" uuid NOT NULL,
	"chapter_id" bigint,
	"amount" integer NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"comment_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_tips_amount_positive" CHECK ("work_tips"."amount" >= 1),
	CONSTRAINT "work_tips_message_length" CHECK (char_length("work_tips"."message") <= 100)
);
--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP CONSTRAINT "chapter_comments_body_length";--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind";--> statement-breakpoint
ALTER TABLE "income_transactions" DROP CONSTRAINT "income_transactions_type";--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD COLUMN "tip_amount" integer;--> statement-breakpoint
ALTER TABLE "work_fans" ADD CONSTRAINT "work_fans_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_fans" ADD CONSTRAINT "work_fans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tips" ADD CONSTRAINT "work_tips_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tips" ADD CONSTRAINT "work_tips_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tips" ADD CONSTRAINT "work_tips_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tips" ADD CONSTRAINT "work_tips_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tips" ADD CONSTRAINT "work_tips_comment_id_chapter_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."chapter_comments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "work_fans_ranking_idx" ON "work_fans" USING btree ("work_id","fan_value" DESC NULLS LAST,"user_id");--> statement-breakpoint
CREATE INDEX "work_tips_work_created_idx" ON "work_tips" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "work_tips_user_created_idx" ON "work_tips" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "work_tips_author_idx" ON "work_tips" USING btree ("author_id");--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_body_length" CHECK (("chapter_comments"."tip_amount" is null and char_length("chapter_comments"."body") between 1 and 500) or ("chapter_comments"."tip_amount" >= 1 and char_length("chapter_comments"."body") <= 100));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind" CHECK ("notifications"."kind" in ('chapters', 'purchase', 'reply', 'admin', 'payout', 'review', 'tip'));--> statement-breakpoint
ALTER TABLE "income_transactions" ADD CONSTRAINT "income_transactions_type" CHECK ("income_transactions"."type" in ('sale', 'tip', 'payout_request', 'payout_paid', 'payout_refused', 'convert'));