CREATE TABLE "writing_days" (
	"work_id" bigint NOT NULL,
	"day" date NOT NULL,
	"words" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "writing_days_pkey" PRIMARY KEY("work_id","day")
);
--> statement-breakpoint
CREATE TABLE "writing_targets" (
	"work_id" bigint PRIMARY KEY NOT NULL,
	"words" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "writing_targets_words" CHECK ("writing_targets"."words" between 1 and 50000)
);
--> statement-breakpoint
ALTER TABLE "writing_days" ADD CONSTRAINT "writing_days_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_targets" ADD CONSTRAINT "writing_targets_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;