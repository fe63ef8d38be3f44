CREATE TABLE "continuity_findings" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "continuity_findings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"chapter_number" integer NOT NULL,
	"rule" text NOT NULL,
	"key" text NOT NULL,
	"entity_id" bigint,
	"message" text NOT NULL,
	"quote" text DEFAULT '' NOT NULL,
	"facts" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "continuity_waivers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "continuity_waivers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"key" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "continuity_waivers_note_length" CHECK (char_length("continuity_waivers"."note") <= 200)
);
--> statement-breakpoint
CREATE TABLE "story_ladder_rungs" (
	"work_id" bigint NOT NULL,
	"rank" integer NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "story_ladder_rungs_pkey" PRIMARY KEY("work_id","rank"),
	CONSTRAINT "story_ladder_rungs_rank" CHECK ("story_ladder_rungs"."rank" >= 1),
	CONSTRAINT "story_ladder_rungs_name_length" CHECK (char_length("story_ladder_rungs"."name") between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "story_states" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "story_states_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"entity_id" bigint,
	"chapter" integer NOT NULL,
	"kind" text NOT NULL,
	"value" text DEFAULT '' NOT NULL,
	"num" integer,
	"action" text,
	"note" text DEFAULT '' NOT NULL,
	"source" text DEFAULT 'author' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "story_states_kind" CHECK ("story_states"."kind" in ('realm', 'life', 'location', 'item', 'age', 'time', 'knowledge')),
	CONSTRAINT "story_states_entity" CHECK (("story_states"."kind" = 'time') = ("story_states"."entity_id" is null)),
	CONSTRAINT "story_states_chapter" CHECK ("story_states"."chapter" between 1 and 100000),
	CONSTRAINT "story_states_value_length" CHECK (char_length("story_states"."value") <= 100),
	CONSTRAINT "story_states_note_length" CHECK (char_length("story_states"."note") <= 200),
	CONSTRAINT "story_states_action" CHECK (("story_states"."kind" = 'item') = ("story_states"."action" is not null)),
	CONSTRAINT "story_states_num" CHECK (("story_states"."kind" in ('age', 'time')) = ("story_states"."num" is not null)),
	CONSTRAINT "story_states_source" CHECK ("story_states"."source" in ('author', 'ai'))
);
--> statement-breakpoint
ALTER TABLE "story_proposals" DROP CONSTRAINT "story_proposals_kind";--> statement-breakpoint
ALTER TABLE "story_proposals" ADD COLUMN "state" jsonb;--> statement-breakpoint
ALTER TABLE "continuity_findings" ADD CONSTRAINT "continuity_findings_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "continuity_findings" ADD CONSTRAINT "continuity_findings_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "continuity_findings" ADD CONSTRAINT "continuity_findings_entity_id_story_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."story_entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "continuity_waivers" ADD CONSTRAINT "continuity_waivers_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "continuity_waivers" ADD CONSTRAINT "continuity_waivers_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_ladder_rungs" ADD CONSTRAINT "story_ladder_rungs_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_states" ADD CONSTRAINT "story_states_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "story_states" ADD CONSTRAINT "story_states_entity_id_story_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."story_entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "continuity_findings_work_idx" ON "continuity_findings" USING btree ("work_id","chapter_number","id");--> statement-breakpoint
CREATE UNIQUE INDEX "continuity_findings_key_unique" ON "continuity_findings" USING btree ("chapter_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "continuity_waivers_key_unique" ON "continuity_waivers" USING btree ("chapter_id","key");--> statement-breakpoint
CREATE INDEX "continuity_waivers_work_idx" ON "continuity_waivers" USING btree ("work_id");--> statement-breakpoint
CREATE UNIQUE INDEX "story_ladder_rungs_name_unique" ON "story_ladder_rungs" USING btree ("work_id","name");--> statement-breakpoint
CREATE INDEX "story_states_work_chapter_idx" ON "story_states" USING btree ("work_id","chapter","id");--> statement-breakpoint
CREATE INDEX "story_states_entity_idx" ON "story_states" USING btree ("entity_id","chapter");--> statement-breakpoint
CREATE UNIQUE INDEX "story_states_single_unique" ON "story_states" USING btree ("entity_id","kind","chapter") WHERE "story_states"."kind" in ('realm', 'life', 'location', 'age');--> statement-breakpoint
CREATE UNIQUE INDEX "story_states_time_unique" ON "story_states" USING btree ("work_id","chapter") WHERE "story_states"."kind" = 'time';--> statement-breakpoint
ALTER TABLE "story_proposals" ADD CONSTRAINT "story_proposals_kind" CHECK ("story_proposals"."kind" in ('summary', 'fact', 'state'));