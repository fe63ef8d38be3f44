CREATE TABLE "chapter_comments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chapter_comments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"parent_id" bigint,
	"paragraph_index" integer,
	"paragraph_text" text,
	"detached" boolean DEFAULT false NOT NULL,
	"body" text NOT NULL,
	"like_count" integer DEFAULT 0 NOT NULL,
	"reply_count" integer DEFAULT 0 NOT NULL,
	"hidden_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chapter_comments_body_length" CHECK (char_length("chapter_comments"."body") between 1 and 500),
	CONSTRAINT "chapter_comments_paragraph_nonnegative" CHECK ("chapter_comments"."paragraph_index" is null or "chapter_comments"."paragraph_index" >= 0),
	CONSTRAINT "chapter_comments_counts_nonnegative" CHECK ("chapter_comments"."like_count" >= 0 and "chapter_comments"."reply_count" >= 0),
	CONSTRAINT "chapter_comments_reply_has_no_anchor" CHECK ("chapter_comments"."parent_id" is null or ("chapter_comments"."paragraph_index" is null and "chapter_comments"."paragraph_text" is null))
);
--> statement-breakpoint
CREATE TABLE "comment_likes" (
	"comment_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comment_likes_pkey" PRIMARY KEY("comment_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "comment_mutes" (
	"work_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comment_mutes_pkey" PRIMARY KEY("work_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "comment_reports" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "comment_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"comment_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "comment_reports_once" UNIQUE("comment_id","user_id"),
	CONSTRAINT "comment_reports_reason_length" CHECK (char_length("comment_reports"."reason") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_parent_id_chapter_comments_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."chapter_comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_likes" ADD CONSTRAINT "comment_likes_comment_id_chapter_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."chapter_comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_likes" ADD CONSTRAINT "comment_likes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_mutes" ADD CONSTRAINT "comment_mutes_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_mutes" ADD CONSTRAINT "comment_mutes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reports" ADD CONSTRAINT "comment_reports_comment_id_chapter_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."chapter_comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reports" ADD CONSTRAINT "comment_reports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_comments_paragraph_idx" ON "chapter_comments" USING btree ("chapter_id","paragraph_index") WHERE "chapter_comments"."parent_id" is null and "chapter_comments"."hidden_at" is null and "chapter_comments"."paragraph_index" is not null;--> statement-breakpoint
CREATE INDEX "chapter_comments_chapter_created_idx" ON "chapter_comments" USING btree ("chapter_id","created_at");--> statement-breakpoint
CREATE INDEX "chapter_comments_parent_idx" ON "chapter_comments" USING btree ("parent_id","created_at");--> statement-breakpoint
CREATE INDEX "chapter_comments_user_idx" ON "chapter_comments" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "comment_likes_user_idx" ON "comment_likes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "comment_reports_open_idx" ON "comment_reports" USING btree ("created_at") WHERE "comment_reports"."resolved_at" is null;