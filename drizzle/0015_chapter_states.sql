CREATE TYPE "public"."chapter_state" AS ENUM('draft', 'scheduled', 'published');--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "state" "chapter_state" DEFAULT 'published' NOT NULL;--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "publish_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "chapters_work_published_idx" ON "chapters" USING btree ("work_id","position","id") WHERE "chapters"."state" = 'published';--> statement-breakpoint
CREATE INDEX "chapters_due_idx" ON "chapters" USING btree ("publish_at") WHERE "chapters"."state" = 'scheduled';--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_scheduled_has_time" CHECK ("chapters"."state" <> 'scheduled' or "chapters"."publish_at" is not null);