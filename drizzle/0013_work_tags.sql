ALTER TABLE "works" ADD COLUMN "tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "works_tags_idx" ON "works" USING gin ("tags");--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_tags_count" CHECK (cardinality("works"."tags") <= 10);