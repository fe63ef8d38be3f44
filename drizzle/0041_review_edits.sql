ALTER TYPE "public"."review_kind" ADD VALUE 'edit';--> statement-breakpoint
DROP INDEX "review_items_one_pending";--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "pending_title" text;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "edit_title" text;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "edit_content" text;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "edit_author_note" text;--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_edit" ON "review_items" USING btree ("chapter_id") WHERE "review_items"."status" = 'pending' and "review_items"."edit_content" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_pending" ON "review_items" USING btree ("chapter_id") WHERE "review_items"."status" = 'pending' and "review_items"."kind" <> 'comment' and "review_items"."edit_content" is null;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_edit_text" CHECK (("review_items"."edit_content" is null) = ("review_items"."edit_title" is null) and ("review_items"."edit_content" is null) = ("review_items"."edit_author_note" is null) and ("review_items"."edit_content" is null or ("review_items"."comment_id" is null and "review_items"."appeal_of" is null)));