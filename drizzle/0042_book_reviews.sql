CREATE TABLE "book_review_likes" (
	"review_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "book_review_likes_pkey" PRIMARY KEY("review_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "book_review_reports" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "book_review_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"review_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "book_review_reports_once" UNIQUE("review_id","user_id"),
	CONSTRAINT "book_review_reports_reason_length" CHECK (char_length("book_review_reports"."reason") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "book_reviews" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "book_reviews_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"rating" smallint NOT NULL,
	"body" text NOT NULL,
	"featured" boolean DEFAULT false NOT NULL,
	"pinned_at" timestamp with time zone,
	"author_reply" text,
	"author_replied_at" timestamp with time zone,
	"like_count" integer DEFAULT 0 NOT NULL,
	"hidden_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "book_reviews_one_per_reader" UNIQUE("work_id","user_id"),
	CONSTRAINT "book_reviews_rating_range" CHECK ("book_reviews"."rating" between 1 and 10),
	CONSTRAINT "book_reviews_body_length" CHECK (char_length("book_reviews"."body") between 10 and 5000),
	CONSTRAINT "book_reviews_reply_length" CHECK ("book_reviews"."author_reply" is null or char_length("book_reviews"."author_reply") between 1 and 1000),
	CONSTRAINT "book_reviews_likes_nonnegative" CHECK ("book_reviews"."like_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "book_review_likes" ADD CONSTRAINT "book_review_likes_review_id_book_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."book_reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_review_likes" ADD CONSTRAINT "book_review_likes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_review_reports" ADD CONSTRAINT "book_review_reports_review_id_book_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."book_reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_review_reports" ADD CONSTRAINT "book_review_reports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_reviews" ADD CONSTRAINT "book_reviews_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_reviews" ADD CONSTRAINT "book_reviews_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "book_review_likes_user_idx" ON "book_review_likes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "book_review_reports_open_idx" ON "book_review_reports" USING btree ("created_at") WHERE "book_review_reports"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "book_reviews_work_created_idx" ON "book_reviews" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "book_reviews_user_idx" ON "book_reviews" USING btree ("user_id");