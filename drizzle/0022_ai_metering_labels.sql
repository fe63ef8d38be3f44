CREATE TYPE "public"."ai_level" AS ENUM('none', 'assisted', 'generated');--> statement-breakpoint
CREATE TYPE "public"."token_metering" AS ENUM('actual', 'estimate');--> statement-breakpoint
CREATE TABLE "ai_text_marks" (
	"user_id" uuid NOT NULL,
	"mark" integer NOT NULL,
	CONSTRAINT "ai_text_marks_pkey" PRIMARY KEY("user_id","mark")
);
--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "ai_day" date;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "ai_day_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "token_transactions" ADD COLUMN "input_tokens" integer;--> statement-breakpoint
ALTER TABLE "token_transactions" ADD COLUMN "output_tokens" integer;--> statement-breakpoint
ALTER TABLE "token_transactions" ADD COLUMN "metering" "token_metering";--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "ai_chars" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chapters" ADD COLUMN "ai_level" "ai_level" DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "works" ADD COLUMN "ai_level" "ai_level" DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "ai_text_marks" ADD CONSTRAINT "ai_text_marks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_ai_day_tokens_nonnegative" CHECK ("profiles"."ai_day_tokens" >= 0);--> statement-breakpoint
-- hand-written: generations settled before usage was read were charged by the estimate (decision 125).
UPDATE "token_transactions" SET "metering" = 'estimate', "input_tokens" = ceil(coalesce("prompt_chars", 0) / 4.0)::int, "output_tokens" = ceil(coalesce("output_chars", 0) / 4.0)::int WHERE "type" = 'generation' AND "output_chars" > 0;
