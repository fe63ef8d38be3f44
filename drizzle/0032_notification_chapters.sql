ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind";--> statement-breakpoint
ALTER TABLE "notification_jobs" ADD COLUMN "chapter_ids" bigint[];--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "chapter_ids" bigint[];--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind" CHECK ("notifications"."kind" in ('chapters', 'purchase', 'reply', 'admin', 'payout'));