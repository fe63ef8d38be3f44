-- docs/decisions/080: chapters are ordered by a gapped position (65536 apart), so a move
-- or an insert writes one row; public chapter numbers are derived from the order.
-- Volumes (卷) are headings in the same position space.
CREATE TABLE "volumes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "volumes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL,
	"title" text NOT NULL,
	"position" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "volumes_title_length" CHECK (char_length("volumes"."title") between 1 and 100)
);
--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "position" bigint;--> statement-breakpoint
UPDATE "chapters" SET "position" = "order"::bigint * 65536;--> statement-breakpoint
ALTER TABLE "chapters" ALTER COLUMN "position" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "volumes" ADD CONSTRAINT "volumes_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "public"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "volumes_work_position_idx" ON "volumes" USING btree ("work_id","position");--> statement-breakpoint
CREATE INDEX "chapters_work_position_idx" ON "chapters" USING btree ("work_id","position","id");--> statement-breakpoint
ALTER TABLE "chapters" DROP CONSTRAINT "chapters_work_order_unique";--> statement-breakpoint
ALTER TABLE "chapters" DROP CONSTRAINT "chapters_order_positive";--> statement-breakpoint
ALTER TABLE "chapters" DROP COLUMN "order";
