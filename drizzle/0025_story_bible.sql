CREATE TABLE "chapter_summaries" (
	"chapter_id" bigint PRIMARY KEY NOT NULL,
	"work_id" bigint NOT NULL,
	"summary" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chapter_summaries_length" CHECK (char_length("chapter_summaries"."summary") between 1 and 2000)
);
--> statement-breakpoint
CREATE TABLE "plot_threads" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "plot_threads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"title" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"planted_chapter" integer NOT NULL,
	"due_chapter" integer,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plot_threads_title_length" CHECK (char_length("plot_threads"."title") between 1 and 100),
	CONSTRAINT "plot_threads_note_length" CHECK (char_length("plot_threads"."note") <= 1000),
	CONSTRAINT "plot_threads_planted_positive" CHECK ("plot_threads"."planted_chapter" >= 1),
	CONSTRAINT "plot_threads_due_after_planted" CHECK ("plot_threads"."due_chapter" is null or "plot_threads"."due_chapter" >= "plot_threads"."planted_chapter"),
	CONSTRAINT "plot_threads_status" CHECK ("plot_threads"."status" in ('open', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "story_entities" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "story_entities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "story_entities_kind" CHECK ("story_entities"."kind" in ('character', 'place', 'item', 'faction')),
	CONSTRAINT "story_entities_name_length" CHECK (char_length("story_entities"."name") between 1 and 50),
	CONSTRAINT "story_entities_description_length" CHECK (char_length("story_entities"."description") <= 2000)
);
--> statement-breakpoint
CREATE TABLE "story_entity_names" (
	"work_id" bigint NOT NULL,
	"name" text NOT NULL,
	"entity_id" bigint NOT NULL,
	"is_alias" boolean DEFAULT true NOT NULL,
	CONSTRAINT "story_entity_names_pkey" PRIMARY KEY("work_id","name"),
	CONSTRAINT "story_entity_names_length" CHECK (char_length("story_entity_names"."name") between 1 and 50)
);
--> statement-breakpoint
CREATE TABLE "story_facts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "story_facts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"entity_id" bigint NOT NULL,
	"content" text NOT NULL,
	"from_chapter" integer,
	"until_chapter" integer,
	"source" text DEFAULT 'author' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "story_facts_content_length" CHECK (char_length("story_facts"."content") between 1 and 500),
	CONSTRAINT "story_facts_from_positive" CHECK ("story_facts"."from_chapter" is null or "story_facts"."from_chapter" >= 1),
	CONSTRAINT "story_facts_until_positive" CHECK ("story_facts"."until_chapter" is null or "story_facts"."until_chapter" >= 1),
	CONSTRAINT "story_facts_range" CHECK ("story_facts"."from_chapter" is null or "story_facts"."until_chapter" is null or "story_facts"."from_chapter" <= "story_facts"."until_chapter"),
	CONSTRAINT "story_facts_source" CHECK ("story_facts"."source" in ('author', 'ai'))
);
--> statement-breakpoint
CREATE TABLE "story_proposals" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "story_proposals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"entity_name" text,
	"entity_kind" text,
	"content" text NOT NULL,
	"from_chapter" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "story_proposals_kind" CHECK ("story_proposals"."kind" in ('summary', 'fact'))
);
--> statement-breakpoint
CREATE TABLE "summary_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "summary_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "summary_jobs_state" CHECK ("summary_jobs"."state" in ('pending', 'done', 'skipped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "volume_summaries" (
	"volume_id" bigint PRIMARY KEY NOT NULL,
	"work_id" bigint NOT NULL,
	"summary" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "volume_summaries_length" CHECK (char_length("volume_summaries"."summary") between 1 and 5000)
);
--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "ai_summaries" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_configs" ADD COLUMN "context_tokens" integer DEFAULT 32000 NOT NULL;--> statement-breakpoint
ALTER TABLE "chapter_summaries" ADD CONSTRAINT "chapter_summaries_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_summaries" ADD CONSTRAINT "chapter_summaries_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plot_threads" ADD CONSTRAINT "plot_threads_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_entities" ADD CONSTRAINT "story_entities_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_entity_names" ADD CONSTRAINT "story_entity_names_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_entity_names" ADD CONSTRAINT "story_entity_names_entity_id_story_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."story_entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_facts" ADD CONSTRAINT "story_facts_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_facts" ADD CONSTRAINT "story_facts_entity_id_story_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."story_entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_proposals" ADD CONSTRAINT "story_proposals_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_proposals" ADD CONSTRAINT "story_proposals_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "summary_jobs" ADD CONSTRAINT "summary_jobs_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "summary_jobs" ADD CONSTRAINT "summary_jobs_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "summary_jobs" ADD CONSTRAINT "summary_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "volume_summaries" ADD CONSTRAINT "volume_summaries_volume_id_volumes_id_fk" FOREIGN KEY ("volume_id") REFERENCES "public"."volumes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "volume_summaries" ADD CONSTRAINT "volume_summaries_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_summaries_work_idx" ON "chapter_summaries" USING btree ("work_id");--> statement-breakpoint
CREATE INDEX "plot_threads_work_idx" ON "plot_threads" USING btree ("work_id","status","due_chapter");--> statement-breakpoint
CREATE INDEX "story_entities_work_idx" ON "story_entities" USING btree ("work_id","kind","id");--> statement-breakpoint
CREATE INDEX "story_entity_names_entity_idx" ON "story_entity_names" USING btree ("entity_id");--> statement-breakpoint
CREATE INDEX "story_facts_entity_idx" ON "story_facts" USING btree ("entity_id","id");--> statement-breakpoint
CREATE INDEX "story_facts_work_idx" ON "story_facts" USING btree ("work_id");--> statement-breakpoint
CREATE INDEX "story_proposals_work_idx" ON "story_proposals" USING btree ("work_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "summary_jobs_chapter_unique" ON "summary_jobs" USING btree ("chapter_id");--> statement-breakpoint
CREATE INDEX "summary_jobs_due_idx" ON "summary_jobs" USING btree ("next_attempt_at","id") WHERE "summary_jobs"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "summary_jobs_work_idx" ON "summary_jobs" USING btree ("work_id","id");