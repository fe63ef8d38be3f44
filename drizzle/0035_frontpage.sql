CREATE TABLE "announcement_reads" (
	"user_id" uuid NOT NULL,
	"announcement_id" bigint NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "announcement_reads_pkey" PRIMARY KEY("user_id","announcement_id")
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "announcements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"body" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "announcements_title_length" CHECK (char_length("announcements"."title") between 1 and 100),
	CONSTRAINT "announcements_body_length" CHECK (char_length("announcements"."body") between 1 and 5000),
	CONSTRAINT "announcements_window" CHECK ("announcements"."ends_at" is null or "announcements"."ends_at" > "announcements"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "curated_row_works" (
	"row_id" bigint NOT NULL,
	"work_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"starts_at" timestamp with time zone,
	"ends_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "curated_row_works_pkey" PRIMARY KEY("row_id","work_id"),
	CONSTRAINT "curated_row_works_window" CHECK ("curated_row_works"."starts_at" is null or "curated_row_works"."ends_at" is null or "curated_row_works"."ends_at" > "curated_row_works"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "curated_rows" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "curated_rows_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "curated_rows_name_length" CHECK (char_length("curated_rows"."name") between 1 and 30)
);
--> statement-breakpoint
CREATE TABLE "ranking_removals" (
	"work_id" bigint PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ranking_removals_reason_length" CHECK (char_length("ranking_removals"."reason") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "announcement_reads" ADD CONSTRAINT "announcement_reads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_reads" ADD CONSTRAINT "announcement_reads_announcement_id_announcements_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "curated_row_works" ADD CONSTRAINT "curated_row_works_row_id_curated_rows_id_fk" FOREIGN KEY ("row_id") REFERENCES "public"."curated_rows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "curated_row_works" ADD CONSTRAINT "curated_row_works_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ranking_removals" ADD CONSTRAINT "ranking_removals_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "announcement_reads_announcement_idx" ON "announcement_reads" USING btree ("announcement_id");--> statement-breakpoint
CREATE INDEX "announcements_starts_idx" ON "announcements" USING btree ("starts_at","id");--> statement-breakpoint
CREATE INDEX "curated_row_works_work_idx" ON "curated_row_works" USING btree ("work_id");--> statement-breakpoint
CREATE INDEX "curated_rows_position_idx" ON "curated_rows" USING btree ("position","id");