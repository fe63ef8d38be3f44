CREATE TABLE "author_follows" (
	"user_id" uuid NOT NULL,
	"author_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "author_follows_pkey" PRIMARY KEY("user_id","author_id"),
	CONSTRAINT "author_follows_not_self" CHECK ("author_follows"."user_id" <> "author_follows"."author_id")
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind";--> statement-breakpoint
ALTER TABLE "author_follows" ADD CONSTRAINT "author_follows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "author_follows" ADD CONSTRAINT "author_follows_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "author_follows_author_idx" ON "author_follows" USING btree ("author_id","user_id");--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind" CHECK ("notifications"."kind" in ('chapters', 'purchase', 'reply', 'admin', 'payout', 'review', 'tip', 'new-work'));