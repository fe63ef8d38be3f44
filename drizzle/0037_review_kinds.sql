CREATE TYPE "public"."review_kind" AS ENUM('release', 'sample', 'appeal', 'comment');--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind";--> statement-breakpoint
DROP INDEX "review_items_one_pending";--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD COLUMN "held_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "kind" "review_kind" DEFAULT 'release' NOT NULL;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "comment_id" bigint;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "appeal_of" bigint;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "author_note" text;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_comment_id_chapter_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."chapter_comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_appeal_of_review_items_id_fk" FOREIGN KEY ("appeal_of") REFERENCES "public"."review_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_appeal" ON "review_items" USING btree ("appeal_of");--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_comment" ON "review_items" USING btree ("comment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_pending" ON "review_items" USING btree ("chapter_id") WHERE "review_items"."status" = 'pending' and "review_items"."kind" <> 'comment';--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind" CHECK ("notifications"."kind" in ('chapters', 'purchase', 'reply', 'admin', 'payout', 'review'));--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_kind_refs" CHECK (("review_items"."kind" = 'comment') = ("review_items"."comment_id" is not null) and ("review_items"."appeal_of" is null or "review_items"."kind" = 'appeal'));