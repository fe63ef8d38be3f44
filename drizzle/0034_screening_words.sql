CREATE TYPE "public"."screening_level" AS ENUM('forbid', 'review', 'replace');--> statement-breakpoint
CREATE TABLE "screening_words" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "screening_words_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"word" text NOT NULL,
	"folded" text NOT NULL,
	"category" text NOT NULL,
	"level" "screening_level" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "screening_words_folded_unique" UNIQUE("folded"),
	CONSTRAINT "screening_words_folded_nonempty" CHECK (char_length("screening_words"."folded") > 0)
);
--> statement-breakpoint
CREATE INDEX "screening_words_category_idx" ON "screening_words" USING btree ("category","id");