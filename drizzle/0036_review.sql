CREATE TYPE "public"."review_status" AS ENUM('pending', 'approved', 'returned', 'rejected', 'withdrawn');--> statement-breakpoint
ALTER TYPE "public"."admin_role" ADD VALUE 'chief_editor';--> statement-breakpoint
ALTER TYPE "public"."admin_role" ADD VALUE 'reviewer';--> statement-breakpoint
ALTER TYPE "public"."chapter_state" ADD VALUE 'review';--> statement-breakpoint
CREATE TABLE "review_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "review_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chapter_id" bigint NOT NULL,
	"work_id" bigint NOT NULL,
	"author_id" uuid NOT NULL,
	"status" "review_status" DEFAULT 'pending' NOT NULL,
	"content_hash" text NOT NULL,
	"revision" integer NOT NULL,
	"reason" text NOT NULL,
	"submitted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" uuid,
	"claimed_at" timestamp with time zone,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"note" text,
	CONSTRAINT "review_items_decided" CHECK (("review_items"."status" in ('pending', 'withdrawn')) = ("review_items"."decided_at" is null))
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "review_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_chapter_id_chapters_id_fk" FOREIGN KEY ("chapter_id") REFERENCES "public"."chapters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_claimed_by_admins_id_fk" FOREIGN KEY ("claimed_by") REFERENCES "public"."admins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_decided_by_admins_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."admins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "review_items_pending_idx" ON "review_items" USING btree ("submitted_at","id") WHERE "review_items"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "review_items_chapter_idx" ON "review_items" USING btree ("chapter_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "review_items_one_pending" ON "review_items" USING btree ("chapter_id") WHERE "review_items"."status" = 'pending';