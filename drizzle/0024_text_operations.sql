CREATE TYPE "public"."text_candidate_status" AS ENUM('generating', 'ready', 'failed');--> statement-breakpoint
CREATE TYPE "public"."text_operation_kind" AS ENUM('continue', 'rewrite', 'expand', 'condense', 'polish');--> statement-breakpoint
CREATE TYPE "public"."text_operation_status" AS ENUM('open', 'accepted', 'rejected');--> statement-breakpoint
CREATE TABLE "text_candidates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"operation_id" uuid NOT NULL,
	"index" integer NOT NULL,
	"status" text_candidate_status DEFAULT 'generating' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"model" text,
	"tokens_charged" integer DEFAULT 0 NOT NULL,
	"end_reason" text,
	"error" text,
	"transaction_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "text_candidates_index" CHECK ("text_candidates"."index" between 0 and 2)
);
--> statement-breakpoint
CREATE TABLE "text_operations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"plot_id" uuid NOT NULL,
	"request_key" text NOT NULL,
	"kind" text_operation_kind NOT NULL,
	"selection_start" integer NOT NULL,
	"selection_end" integer NOT NULL,
	"source" text NOT NULL,
	"base_hash" text NOT NULL,
	"candidate_count" integer NOT NULL,
	"status" text_operation_status DEFAULT 'open' NOT NULL,
	"accepted_index" integer,
	"version_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "text_operations_count" CHECK ("text_operations"."candidate_count" between 1 and 3),
	CONSTRAINT "text_operations_range" CHECK (0 <= "text_operations"."selection_start" and "text_operations"."selection_start" <= "text_operations"."selection_end")
);
--> statement-breakpoint
ALTER TABLE "plot_versions" ADD COLUMN "operation" text_operation_kind;--> statement-breakpoint
ALTER TABLE "text_candidates" ADD CONSTRAINT "text_candidates_operation_id_text_operations_id_fk" FOREIGN KEY ("operation_id") REFERENCES "public"."text_operations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_candidates" ADD CONSTRAINT "text_candidates_transaction_id_token_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."token_transactions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_operations" ADD CONSTRAINT "text_operations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_operations" ADD CONSTRAINT "text_operations_plot_id_writing_plots_id_fk" FOREIGN KEY ("plot_id") REFERENCES "public"."writing_plots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_operations" ADD CONSTRAINT "text_operations_version_id_plot_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."plot_versions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "text_candidates_operation_index_idx" ON "text_candidates" USING btree ("operation_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "text_operations_user_key_idx" ON "text_operations" USING btree ("user_id","request_key");--> statement-breakpoint
CREATE INDEX "text_operations_plot_idx" ON "text_operations" USING btree ("plot_id","created_at");