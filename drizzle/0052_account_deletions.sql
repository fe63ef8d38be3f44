CREATE TABLE "account_deletions" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"works" text NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "account_deletions_works" CHECK ("account_deletions"."works" in ('take_down', 'keep')),
	CONSTRAINT "account_deletions_due_after_request" CHECK ("account_deletions"."due_at" > "account_deletions"."requested_at")
);
--> statement-breakpoint
ALTER TABLE "account_deletions" ADD CONSTRAINT "account_deletions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_deletions_due_idx" ON "account_deletions" USING btree ("due_at") WHERE "account_deletions"."deleted_at" is null;