CREATE TABLE "author_blocks" (
	"user_id" uuid NOT NULL,
	"author_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "author_blocks_pkey" PRIMARY KEY("user_id","author_id"),
	CONSTRAINT "author_blocks_not_self" CHECK ("author_blocks"."user_id" <> "author_blocks"."author_id")
);
--> statement-breakpoint
CREATE TABLE "tag_blocks" (
	"user_id" uuid NOT NULL,
	"tag" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tag_blocks_pkey" PRIMARY KEY("user_id","tag"),
	CONSTRAINT "tag_blocks_tag_length" CHECK (char_length("tag_blocks"."tag") between 1 and 20)
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind";--> statement-breakpoint
ALTER TABLE "reading_progress" ADD COLUMN "history_hidden" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "author_blocks" ADD CONSTRAINT "author_blocks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "author_blocks" ADD CONSTRAINT "author_blocks_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_blocks" ADD CONSTRAINT "tag_blocks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind" CHECK ("notifications"."kind" in ('chapters', 'purchase', 'reply', 'admin', 'payout', 'review', 'tip', 'new-work', 'typo'));