CREATE TYPE "public"."plot_version_kind" AS ENUM('generation', 'manual');--> statement-breakpoint
CREATE TYPE "public"."writing_kind" AS ENUM('free', 'short');--> statement-breakpoint
CREATE TABLE "plot_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"plot_id" uuid NOT NULL,
	"kind" "plot_version_kind" NOT NULL,
	"content" text NOT NULL,
	"model" text,
	"tokens_charged" integer DEFAULT 0 NOT NULL,
	"prompt_chars" integer,
	"output_chars" integer,
	"end_reason" text,
	"transaction_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plot_versions_tokens_nonnegative" CHECK ("plot_versions"."tokens_charged" >= 0)
);
--> statement-breakpoint
CREATE TABLE "writing_characters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"personality" text NOT NULL,
	"appearance" text NOT NULL,
	"other" text DEFAULT '' NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "writing_plot_characters" (
	"plot_id" uuid NOT NULL,
	"character_id" uuid NOT NULL,
	CONSTRAINT "writing_plot_characters_pkey" PRIMARY KEY("plot_id","character_id")
);
--> statement-breakpoint
CREATE TABLE "writing_plots" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"environment" text NOT NULL,
	"expected_words" integer DEFAULT 1000 NOT NULL,
	"additional_notes" text DEFAULT '' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"current_version_id" uuid,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "writing_plots_expected_words" CHECK ("writing_plots"."expected_words" between 100 and 20000)
);
--> statement-breakpoint
CREATE TABLE "writing_projects" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" "writing_kind" NOT NULL,
	"name" text NOT NULL,
	"theme" text DEFAULT '' NOT NULL,
	"draft" text DEFAULT '' NOT NULL,
	"source_work_id" bigint,
	"source_title" text,
	"source_text" text,
	"analyzed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "writing_projects_name_length" CHECK (char_length("writing_projects"."name") between 1 and 50)
);
--> statement-breakpoint
ALTER TABLE "plot_versions" ADD CONSTRAINT "plot_versions_plot_id_writing_plots_id_fk" FOREIGN KEY ("plot_id") REFERENCES "public"."writing_plots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plot_versions" ADD CONSTRAINT "plot_versions_transaction_id_token_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."token_transactions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_characters" ADD CONSTRAINT "writing_characters_project_id_writing_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."writing_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_plot_characters" ADD CONSTRAINT "writing_plot_characters_plot_id_writing_plots_id_fk" FOREIGN KEY ("plot_id") REFERENCES "public"."writing_plots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_plot_characters" ADD CONSTRAINT "writing_plot_characters_character_id_writing_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."writing_characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_plots" ADD CONSTRAINT "writing_plots_project_id_writing_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."writing_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_plots" ADD CONSTRAINT "writing_plots_current_version_id_plot_versions_id_fk" FOREIGN KEY ("current_version_id") REFERENCES "public"."plot_versions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_projects" ADD CONSTRAINT "writing_projects_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "writing_projects" ADD CONSTRAINT "writing_projects_source_work_id_works_id_fk" FOREIGN KEY ("source_work_id") REFERENCES "public"."works"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "plot_versions_plot_created_idx" ON "plot_versions" USING btree ("plot_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "writing_characters_project_idx" ON "writing_characters" USING btree ("project_id","position");--> statement-breakpoint
CREATE INDEX "writing_plot_characters_character_idx" ON "writing_plot_characters" USING btree ("character_id");--> statement-breakpoint
CREATE INDEX "writing_plots_project_idx" ON "writing_plots" USING btree ("project_id","position");--> statement-breakpoint
CREATE INDEX "writing_projects_user_kind_idx" ON "writing_projects" USING btree ("user_id","kind","updated_at" DESC NULLS LAST);