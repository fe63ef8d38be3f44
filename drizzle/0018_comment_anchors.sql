CREATE TABLE "comment_anchors" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "comment_anchors_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chapter_id" bigint NOT NULL,
	"paragraph_index" integer,
	"paragraph_text" text NOT NULL,
	CONSTRAINT "comment_anchors_paragraph_nonnegative" CHECK ("comment_anchors"."paragraph_index" is null or "comment_anchors"."paragraph_index" >= 0)
);
--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP CONSTRAINT "chapter_comments_paragraph_nonnegative";--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP CONSTRAINT "chapter_comments_reply_has_no_anchor";--> statement-breakpoint
DROP INDEX "chapter_comments_paragraph_idx";--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD COLUMN "anchor_id" bigint;--> statement-breakpoint
ALTER TABLE "comment_anchors" ADD CONSTRAINT "comment_anchors_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comment_anchors_chapter_paragraph_idx" ON "comment_anchors" USING btree ("chapter_id","paragraph_index");--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_anchor_id_comment_anchors_id_fk" FOREIGN KEY ("anchor_id") REFERENCES "public"."comment_anchors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_comments_anchor_idx" ON "chapter_comments" USING btree ("anchor_id") WHERE "chapter_comments"."parent_id" is null and "chapter_comments"."hidden_at" is null;--> statement-breakpoint
CREATE INDEX "chapter_comments_talk_idx" ON "chapter_comments" USING btree ("chapter_id") WHERE "chapter_comments"."anchor_id" is null and "chapter_comments"."parent_id" is null and "chapter_comments"."hidden_at" is null;--> statement-breakpoint
-- Existing 段评 get their anchors (decision 102): one per chapter, paragraph and words; a
-- 段评 already moved to 本章说 keeps its quote on an anchor without a paragraph.
INSERT INTO "comment_anchors" ("chapter_id", "paragraph_index", "paragraph_text")
SELECT DISTINCT "chapter_id", "paragraph_index", "paragraph_text" FROM "chapter_comments"
WHERE "parent_id" IS NULL AND "paragraph_text" IS NOT NULL;--> statement-breakpoint
UPDATE "chapter_comments" c SET "anchor_id" = a."id" FROM "comment_anchors" a
WHERE c."parent_id" IS NULL AND c."paragraph_text" IS NOT NULL AND a."chapter_id" = c."chapter_id"
  AND a."paragraph_text" = c."paragraph_text" AND a."paragraph_index" IS NOT DISTINCT FROM c."paragraph_index";--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP COLUMN "paragraph_index";--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP COLUMN "paragraph_text";--> statement-breakpoint
ALTER TABLE "chapter_comments" DROP COLUMN "detached";--> statement-breakpoint
ALTER TABLE "chapter_comments" ADD CONSTRAINT "chapter_comments_reply_has_no_anchor" CHECK ("chapter_comments"."parent_id" is null or "chapter_comments"."anchor_id" is null);