CREATE TABLE "booklist_entries" (
	"booklist_id" bigint NOT NULL,
	"work_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booklist_entries_pkey" PRIMARY KEY("booklist_id","work_id"),
	CONSTRAINT "booklist_entries_note_length" CHECK (char_length("booklist_entries"."note") <= 200)
);
--> statement-breakpoint
CREATE TABLE "booklist_follows" (
	"booklist_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booklist_follows_pkey" PRIMARY KEY("booklist_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "booklists" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "booklists_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"follower_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booklists_title_length" CHECK (char_length("booklists"."title") between 1 and 30),
	CONSTRAINT "booklists_description_length" CHECK (char_length("booklists"."description") <= 500),
	CONSTRAINT "booklists_followers_nonnegative" CHECK ("booklists"."follower_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "booklist_entries" ADD CONSTRAINT "booklist_entries_booklist_id_booklists_id_fk" FOREIGN KEY ("booklist_id") REFERENCES "public"."booklists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booklist_entries" ADD CONSTRAINT "booklist_entries_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booklist_follows" ADD CONSTRAINT "booklist_follows_booklist_id_booklists_id_fk" FOREIGN KEY ("booklist_id") REFERENCES "public"."booklists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booklist_follows" ADD CONSTRAINT "booklist_follows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booklists" ADD CONSTRAINT "booklists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "booklist_entries_order_idx" ON "booklist_entries" USING btree ("booklist_id","position");--> statement-breakpoint
CREATE INDEX "booklist_entries_work_idx" ON "booklist_entries" USING btree ("work_id");--> statement-breakpoint
CREATE INDEX "booklist_follows_user_idx" ON "booklist_follows" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "booklists_popular_idx" ON "booklists" USING btree ("follower_count" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "booklists_created_idx" ON "booklists" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "booklists_user_idx" ON "booklists" USING btree ("user_id","created_at");