CREATE TABLE "work_stats_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "work_stats_queue_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"work_id" bigint NOT NULL
);
--> statement-breakpoint
-- Every writer of a counted row queues its works (decision 267): one statement trigger per
-- table and event, one queue row per work the statement touched, whatever the number of
-- rows (a bulk delete of an account's follows adds one per work, not one per row).
CREATE OR REPLACE FUNCTION inkstone_queue_work_stats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO work_stats_queue (work_id) SELECT DISTINCT work_id FROM changed WHERE work_id IS NOT NULL;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER favorites_queue_stats_insert AFTER INSERT ON favorites REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER favorites_queue_stats_delete AFTER DELETE ON favorites REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER work_purchases_queue_stats_insert AFTER INSERT ON work_purchases REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER work_purchases_queue_stats_delete AFTER DELETE ON work_purchases REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER chapter_purchases_queue_stats_insert AFTER INSERT ON chapter_purchases REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER chapter_purchases_queue_stats_delete AFTER DELETE ON chapter_purchases REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER income_transactions_queue_stats_insert AFTER INSERT ON income_transactions REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER income_transactions_queue_stats_delete AFTER DELETE ON income_transactions REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER chapter_reads_queue_stats_insert AFTER INSERT ON chapter_reads REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
--> statement-breakpoint
CREATE TRIGGER chapter_reads_queue_stats_delete AFTER DELETE ON chapter_reads REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inkstone_queue_work_stats();
