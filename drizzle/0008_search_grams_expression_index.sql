DROP INDEX "works_search_grams_idx";--> statement-breakpoint
CREATE INDEX "works_search_grams_idx" ON "works" USING gin (work_search_grams("title", "description"));--> statement-breakpoint
ALTER TABLE "works" DROP COLUMN "search_grams";