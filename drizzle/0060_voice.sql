CREATE TABLE "voice_passages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_passages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"content" text NOT NULL,
	"source" text DEFAULT 'pasted' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "voice_passages_content_length" CHECK (char_length("voice_passages"."content") between 1 and 2000),
	CONSTRAINT "voice_passages_source" CHECK ("voice_passages"."source" in ('chapter', 'pasted', 'ai'))
);
--> statement-breakpoint
CREATE TABLE "work_cliches" (
	"work_id" bigint NOT NULL,
	"phrase" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_cliches_pkey" PRIMARY KEY("work_id","phrase"),
	CONSTRAINT "work_cliches_phrase_length" CHECK (char_length("work_cliches"."phrase") between 2 and 20)
);
--> statement-breakpoint
ALTER TABLE "continuity_findings" ADD COLUMN "source" text DEFAULT 'rule' NOT NULL;--> statement-breakpoint
ALTER TABLE "voice_passages" ADD CONSTRAINT "voice_passages_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_cliches" ADD CONSTRAINT "work_cliches_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "voice_passages_work_idx" ON "voice_passages" USING btree ("work_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_passages_content_unique" ON "voice_passages" USING btree ("work_id",md5("content"));--> statement-breakpoint
ALTER TABLE "continuity_findings" ADD CONSTRAINT "continuity_findings_source" CHECK ("continuity_findings"."source" in ('rule', 'ai'));