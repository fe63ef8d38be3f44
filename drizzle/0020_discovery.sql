CREATE TABLE "categories" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "categories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "categories_name_unique" UNIQUE("name"),
	CONSTRAINT "categories_name_length" CHECK (char_length("categories"."name") between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "stats_refreshes" (
	"id" smallint PRIMARY KEY NOT NULL,
	"refreshed_at" timestamp with time zone,
	CONSTRAINT "stats_refreshes_one_row" CHECK ("stats_refreshes"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "work_stats" (
	"work_id" bigint PRIMARY KEY NOT NULL,
	"favorites" integer DEFAULT 0 NOT NULL,
	"purchases" integer DEFAULT 0 NOT NULL,
	"credits_7d" bigint DEFAULT 0 NOT NULL,
	"credits_30d" bigint DEFAULT 0 NOT NULL,
	"hot_7d" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "category_id" bigint;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "completed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "work_stats" ADD CONSTRAINT "work_stats_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "work_stats_favorites_idx" ON "work_stats" USING btree ("favorites","work_id");--> statement-breakpoint
CREATE INDEX "work_stats_purchases_idx" ON "work_stats" USING btree ("purchases","work_id");--> statement-breakpoint
CREATE INDEX "work_stats_credits_7d_idx" ON "work_stats" USING btree ("credits_7d","work_id");--> statement-breakpoint
CREATE INDEX "work_stats_credits_30d_idx" ON "work_stats" USING btree ("credits_30d","work_id");--> statement-breakpoint
CREATE INDEX "work_stats_hot_idx" ON "work_stats" USING btree ("hot_7d","work_id");--> statement-breakpoint
ALTER TABLE "works" ADD CONSTRAINT "works_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "works_completed_idx" ON "works" USING btree ("completed_at","id") WHERE "works"."status" = 'completed';--> statement-breakpoint
CREATE INDEX "works_updated_idx" ON "works" USING btree ("updated_at","id");--> statement-breakpoint
-- hand-written: the starting categories (docs/decisions/121), the stats row, and when
-- the works already 完本 were finished (their last update is the best guess).
INSERT INTO "categories" ("name", "position") VALUES
  ('玄幻', 1), ('都市', 2), ('言情', 3), ('科幻', 4), ('悬疑', 5), ('历史', 6), ('同人', 7), ('其他', 8)
  ON CONFLICT ("name") DO NOTHING;--> statement-breakpoint
INSERT INTO "stats_refreshes" ("id", "refreshed_at") VALUES (1, NULL) ON CONFLICT ("id") DO NOTHING;--> statement-breakpoint
UPDATE "works" SET "completed_at" = "updated_at" WHERE "status" = 'completed';
