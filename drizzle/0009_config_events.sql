-- The per-process copy of the display settings (app/server/site-config.server.ts) and
-- the visitor page cache (server/page-cache.js) are dropped when site_configs changes.
-- Like works (0004), the announcement comes from the database, so every writer is
-- covered: the admin screens, scripts, other app processes, tests. One notification
-- per statement; inside a transaction it is delivered on commit.
CREATE OR REPLACE FUNCTION inkstone_notify_topic() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('inkstone_events', json_build_object('topic', TG_ARGV[0], 'kind', TG_ARGV[0])::text);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER site_configs_notify
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON site_configs
  FOR EACH STATEMENT
  EXECUTE FUNCTION inkstone_notify_topic('site');
--> statement-breakpoint
-- A new work changes the public listing (the visitor page cache of server.js listens to
-- `work`). One event per statement, without a work id: a new work is in nobody's
-- library yet, and a bulk insert should not raise one notification per row.
CREATE TRIGGER works_notify_inserted
  AFTER INSERT ON works
  FOR EACH STATEMENT
  EXECUTE FUNCTION inkstone_notify_topic('work');
