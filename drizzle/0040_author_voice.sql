DROP INDEX "chapters_work_published_idx";--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "author_note" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "pending_author_note" text;--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "kind" text DEFAULT 'chapter' NOT NULL;--> statement-breakpoint
CREATE INDEX "chapters_work_notices_idx" ON "chapters" USING btree ("work_id","position","id") WHERE "chapters"."kind" <> 'chapter';--> statement-breakpoint
CREATE INDEX "chapters_work_published_idx" ON "chapters" USING btree ("work_id","position","id") WHERE "chapters"."state" = 'published' and "chapters"."kind" = 'chapter';--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_kind" CHECK ("chapters"."kind" in ('chapter', 'leave', 'about'));--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_notice_free" CHECK ("chapters"."kind" = 'chapter' or "chapters"."price" = 0);--> statement-breakpoint
ALTER TABLE "chapters" ADD CONSTRAINT "chapters_author_note_length" CHECK (char_length("chapters"."author_note") <= 2000 and char_length(coalesce("chapters"."pending_author_note", '')) <= 2000);