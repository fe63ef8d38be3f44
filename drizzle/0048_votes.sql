CREATE TABLE "reader_vote_days" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"recommend_used" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "reader_vote_days_pkey" PRIMARY KEY("user_id","day"),
	CONSTRAINT "reader_vote_days_nonnegative" CHECK ("reader_vote_days"."recommend_used" >= 0)
);
--> statement-breakpoint
CREATE TABLE "reader_vote_months" (
	"user_id" uuid NOT NULL,
	"month" date NOT NULL,
	"spent" bigint DEFAULT 0 NOT NULL,
	"monthly_used" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "reader_vote_months_pkey" PRIMARY KEY("user_id","month"),
	CONSTRAINT "reader_vote_months_nonnegative" CHECK ("reader_vote_months"."spent" >= 0 and "reader_vote_months"."monthly_used" >= 0)
);
--> statement-breakpoint
CREATE TABLE "work_ranking_tallies" (
	"metric" text NOT NULL,
	"period" text NOT NULL,
	"starts_on" date NOT NULL,
	"work_id" bigint NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "work_ranking_tallies_pkey" PRIMARY KEY("metric","period","starts_on","work_id"),
	CONSTRAINT "work_ranking_tallies_metric" CHECK ("work_ranking_tallies"."metric" in ('monthly', 'recommend', 'tip')),
	CONSTRAINT "work_ranking_tallies_period" CHECK ("work_ranking_tallies"."period" in ('day', 'week', 'month'))
);
--> statement-breakpoint
CREATE TABLE "work_votes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "work_votes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"work_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"count" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_votes_kind" CHECK ("work_votes"."kind" in ('monthly', 'recommend')),
	CONSTRAINT "work_votes_count_positive" CHECK ("work_votes"."count" >= 1)
);
--> statement-breakpoint
ALTER TABLE "reader_vote_days" ADD CONSTRAINT "reader_vote_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reader_vote_months" ADD CONSTRAINT "reader_vote_months_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_ranking_tallies" ADD CONSTRAINT "work_ranking_tallies_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_votes" ADD CONSTRAINT "work_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_votes" ADD CONSTRAINT "work_votes_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "work_ranking_tallies_board_idx" ON "work_ranking_tallies" USING btree ("metric","period","starts_on","total" DESC NULLS LAST,"work_id");--> statement-breakpoint
CREATE INDEX "work_votes_work_created_idx" ON "work_votes" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "work_votes_user_created_idx" ON "work_votes" USING btree ("user_id","created_at");--> statement-breakpoint
-- The 打赏 rankings start from the tips already given (decision 222), by China-time day, week and month.
INSERT INTO "work_ranking_tallies" ("metric", "period", "starts_on", "work_id", "total")
SELECT 'tip', p.period, p.starts_on, t.work_id, sum(t.amount)
FROM "work_tips" t
CROSS JOIN LATERAL (VALUES
  ('day', ((t.created_at AT TIME ZONE 'UTC') + interval '8 hours')::date),
  ('week', date_trunc('week', (t.created_at AT TIME ZONE 'UTC') + interval '8 hours')::date),
  ('month', date_trunc('month', (t.created_at AT TIME ZONE 'UTC') + interval '8 hours')::date)
) AS p(period, starts_on)
WHERE t.work_id IS NOT NULL
GROUP BY 1, 2, 3, 4;
