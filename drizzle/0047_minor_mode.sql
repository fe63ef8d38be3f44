CREATE TABLE "minor_modes" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"pin_hash" text NOT NULL,
	"failed_pins" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "minor_modes_failed_pins" CHECK ("minor_modes"."failed_pins" >= 0)
);
--> statement-breakpoint
CREATE TABLE "minor_spending" (
	"user_id" uuid NOT NULL,
	"month" date NOT NULL,
	"spent" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "minor_spending_user_id_month_pk" PRIMARY KEY("user_id","month"),
	CONSTRAINT "minor_spending_spent" CHECK ("minor_spending"."spent" >= 0)
);
--> statement-breakpoint
ALTER TABLE "author_identities" ADD COLUMN "adult_on" date;--> statement-breakpoint
ALTER TABLE "minor_modes" ADD CONSTRAINT "minor_modes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "minor_spending" ADD CONSTRAINT "minor_spending_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;