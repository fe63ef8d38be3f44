ALTER TYPE "public"."review_kind" ADD VALUE 'work';--> statement-breakpoint
ALTER TABLE "review_items" ALTER COLUMN "chapter_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "review_listing" jsonb;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "pending_meta" jsonb;--> statement-breakpoint
ALTER TABLE "review_items" ADD COLUMN "edit_meta" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_work" ON "review_items" USING btree ("work_id") WHERE "review_items"."status" = 'pending' and "review_items"."chapter_id" is null;--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_review_listing" CHECK ("works"."review_listing" is null or "works"."visibility" = 'private');--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_work_meta" CHECK (("review_items"."chapter_id" is null) = ("review_items"."edit_meta" is not null) and ("review_items"."edit_meta" is null or ("review_items"."comment_id" is null and "review_items"."appeal_of" is null and "review_items"."edit_content" is null)));