CREATE TABLE "chapter_reads" (
	"chapter_id" bigint NOT NULL,
	"day" date NOT NULL,
	"user_id" uuid NOT NULL,
	"work_id" bigint NOT NULL,
	CONSTRAINT "chapter_reads_pkey" PRIMARY KEY("chapter_id","day","user_id")
);
--> statement-breakpoint
ALTER TABLE "chapter_reads" ADD CONSTRAINT "chapter_reads_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_reads" ADD CONSTRAINT "chapter_reads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chapter_reads" ADD CONSTRAINT "chapter_reads_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chapter_reads_work_day_idx" ON "chapter_reads" USING btree ("work_id","day","user_id");