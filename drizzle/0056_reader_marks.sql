CREATE TABLE "reader_marks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reader_marks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"work_id" bigint NOT NULL,
	"chapter_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"paragraph" integer NOT NULL,
	"start_offset" integer DEFAULT 0 NOT NULL,
	"end_offset" integer DEFAULT 0 NOT NULL,
	"quote" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reader_marks_kind" CHECK ("reader_marks"."kind" in ('bookmark', 'highlight')),
	CONSTRAINT "reader_marks_range" CHECK ("reader_marks"."paragraph" >= 0 and "reader_marks"."start_offset" >= 0 and "reader_marks"."end_offset" >= "reader_marks"."start_offset"),
	CONSTRAINT "reader_marks_note_length" CHECK (char_length("reader_marks"."note") <= 500),
	CONSTRAINT "reader_marks_quote_length" CHECK (char_length("reader_marks"."quote") between 1 and 3000)
);
--> statement-breakpoint
ALTER TABLE "reader_marks" ADD CONSTRAINT "reader_marks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reader_marks" ADD CONSTRAINT "reader_marks_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reader_marks" ADD CONSTRAINT "reader_marks_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reader_marks_place_key" ON "reader_marks" USING btree ("user_id","chapter_id","kind","paragraph","start_offset","end_offset");--> statement-breakpoint
CREATE INDEX "reader_marks_user_work_idx" ON "reader_marks" USING btree ("user_id","work_id","chapter_id");--> statement-breakpoint
CREATE INDEX "reader_marks_user_created_idx" ON "reader_marks" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);