DROP INDEX "credit_transactions_user_created_idx";--> statement-breakpoint
DROP INDEX "payment_orders_user_idx";--> statement-breakpoint
DROP INDEX "redeem_codes_status_created_idx";--> statement-breakpoint
DROP INDEX "token_transactions_user_created_idx";--> statement-breakpoint
DROP INDEX "favorites_user_created_idx";--> statement-breakpoint
DROP INDEX "works_user_created_idx";--> statement-breakpoint
DROP INDEX "works_listing_idx";--> statement-breakpoint
DROP INDEX "prompts_created_idx";--> statement-breakpoint
DROP INDEX "reading_progress_user_updated_idx";--> statement-breakpoint
DROP INDEX "plot_versions_plot_created_idx";--> statement-breakpoint
DROP INDEX "writing_projects_user_kind_idx";--> statement-breakpoint
CREATE INDEX "credit_transactions_user_created_idx" ON "credit_transactions" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payment_orders_user_idx" ON "payment_orders" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "redeem_codes_status_created_idx" ON "redeem_codes" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "token_transactions_user_created_idx" ON "token_transactions" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "favorites_user_created_idx" ON "favorites" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "works_user_created_idx" ON "works" USING btree ("user_id","visibility","created_at");--> statement-breakpoint
CREATE INDEX "works_listing_idx" ON "works" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "prompts_created_idx" ON "prompts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "reading_progress_user_updated_idx" ON "reading_progress" USING btree ("user_id","updated_at");--> statement-breakpoint
CREATE INDEX "plot_versions_plot_created_idx" ON "plot_versions" USING btree ("plot_id","created_at");--> statement-breakpoint
CREATE INDEX "writing_projects_user_kind_idx" ON "writing_projects" USING btree ("user_id","kind","updated_at");