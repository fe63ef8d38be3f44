CREATE TYPE "public"."identity_document" AS ENUM('resident_id', 'passport', 'hmt_permit');--> statement-breakpoint
CREATE TYPE "public"."identity_status" AS ENUM('pending', 'approved', 'rejected');--> statement-breakpoint
CREATE TABLE "author_identities" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "author_identities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"status" "identity_status" DEFAULT 'pending' NOT NULL,
	"document_type" "identity_document" NOT NULL,
	"name_cipher" text NOT NULL,
	"number_cipher" text NOT NULL,
	"name_masked" text NOT NULL,
	"number_masked" text NOT NULL,
	"key_id" text NOT NULL,
	"verifier" text DEFAULT 'manual' NOT NULL,
	"submitted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" uuid,
	"claimed_at" timestamp with time zone,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"note" text,
	CONSTRAINT "author_identities_decided" CHECK (("author_identities"."status" = 'pending') = ("author_identities"."decided_at" is null))
);
--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "payee_name" text;--> statement-breakpoint
ALTER TABLE "author_identities" ADD CONSTRAINT "author_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "author_identities" ADD CONSTRAINT "author_identities_claimed_by_admins_id_fk" FOREIGN KEY ("claimed_by") REFERENCES "public"."admins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "author_identities" ADD CONSTRAINT "author_identities_decided_by_admins_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."admins"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "author_identities_pending_idx" ON "author_identities" USING btree ("submitted_at","id") WHERE "author_identities"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "author_identities_user_idx" ON "author_identities" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "author_identities_one_open" ON "author_identities" USING btree ("user_id") WHERE "author_identities"."status" in ('pending', 'approved');--> statement-breakpoint
CREATE INDEX "author_identities_key_idx" ON "author_identities" USING btree ("key_id");