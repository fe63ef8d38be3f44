-- The gram indexes without a pending list: a search reads all of a GIN index's pending list
-- (up to gin_pending_list_limit, 4 MB, between vacuums), 9 ms a lookup measured at a million
-- profiles. Set in place, and the lists there now moved into the indexes (docs/decisions/281).
ALTER INDEX "works_search_grams_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('works_search_grams_idx');--> statement-breakpoint
ALTER INDEX "profiles_nickname_grams_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('profiles_nickname_grams_idx');--> statement-breakpoint
-- The community search's gram index over listed works only. IF NOT EXISTS: a large site may
-- build it first with CREATE INDEX CONCURRENTLY under this name.
CREATE INDEX IF NOT EXISTS "works_listed_search_grams_idx" ON "works" USING gin (work_search_grams("title", "description")) WITH (fastupdate = false) WHERE "works"."visibility" in ('public', 'public-vip');
