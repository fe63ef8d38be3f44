CREATE TABLE "outline_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outline_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"volume_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"next_chapter" integer NOT NULL,
	"to_chapter" integer NOT NULL,
	"batch" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outline_jobs_state" CHECK ("outline_jobs"."state" in ('pending', 'done', 'skipped', 'failed')),
	CONSTRAINT "outline_jobs_batch" CHECK ("outline_jobs"."batch" between 1 and 10)
);
--> statement-breakpoint
CREATE TABLE "outline_versions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outline_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"outline_id" bigint NOT NULL,
	"version" integer NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"beats" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source" text DEFAULT 'author' NOT NULL,
	"saved_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outlines" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outlines_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"from_chapter" integer DEFAULT 0 NOT NULL,
	"to_chapter" integer DEFAULT 0 NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"beats" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"source" text DEFAULT 'author' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outlines_kind" CHECK ("outlines"."kind" in ('series', 'volume', 'chapter')),
	CONSTRAINT "outlines_span" CHECK (("outlines"."kind" = 'series') or ("outlines"."from_chapter" between 1 and 100000 and "outlines"."to_chapter" between "outlines"."from_chapter" and 100000)),
	CONSTRAINT "outlines_title_length" CHECK (char_length("outlines"."title") <= 50),
	CONSTRAINT "outlines_body_length" CHECK (char_length("outlines"."body") <= 20000),
	CONSTRAINT "outlines_source" CHECK ("outlines"."source" in ('author', 'ai'))
);
--> statement-breakpoint
ALTER TABLE "outline_jobs" ADD CONSTRAINT "outline_jobs_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outline_jobs" ADD CONSTRAINT "outline_jobs_volume_id_outlines_id_fk" FOREIGN KEY ("volume_id") REFERENCES "public"."outlines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outline_jobs" ADD CONSTRAINT "outline_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outline_versions" ADD CONSTRAINT "outline_versions_outline_id_outlines_id_fk" FOREIGN KEY ("outline_id") REFERENCES "public"."outlines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outlines" ADD CONSTRAINT "outlines_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outline_jobs_due_idx" ON "outline_jobs" USING btree ("next_attempt_at","id") WHERE "outline_jobs"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "outline_jobs_volume_idx" ON "outline_jobs" USING btree ("volume_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "outline_jobs_one_pending" ON "outline_jobs" USING btree ("volume_id") WHERE "outline_jobs"."state" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "outline_versions_unique" ON "outline_versions" USING btree ("outline_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "outlines_series_unique" ON "outlines" USING btree ("work_id") WHERE "outlines"."kind" = 'series';--> statement-breakpoint
CREATE UNIQUE INDEX "outlines_chapter_unique" ON "outlines" USING btree ("work_id","from_chapter") WHERE "outlines"."kind" = 'chapter';--> statement-breakpoint
CREATE INDEX "outlines_work_idx" ON "outlines" USING btree ("work_id","kind","from_chapter");