-- Per-process caches of the site configuration, the API configurations and the prompts
-- (app/server/site-config.server.ts, app/server/ai/config.server.ts) are dropped when
-- these tables change. Like works (0004), the announcement comes from the database, so
-- every writer is covered: the admin screens, scripts, other app processes, tests. One
-- notification per statement; inside a transaction it is delivered on commit.
CREATE OR REPLACE FUNCTION inkstone_notify_config_changed() RETURNS trigger
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
  EXECUTE FUNCTION inkstone_notify_config_changed('site');
--> statement-breakpoint
CREATE TRIGGER api_configs_notify
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_configs
  FOR EACH STATEMENT
  EXECUTE FUNCTION inkstone_notify_config_changed('ai-config');
--> statement-breakpoint
CREATE TRIGGER prompts_notify
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON prompts
  FOR EACH STATEMENT
  EXECUTE FUNCTION inkstone_notify_config_changed('ai-config');
--> statement-breakpoint
-- A new work changes the public listing (the visitor page cache of server.js listens to
-- `work`). One event per statement, without a work id: a new work is in nobody's
-- library yet, and a bulk insert should not raise one notification per row.
CREATE TRIGGER works_notify_inserted
  AFTER INSERT ON works
  FOR EACH STATEMENT
  EXECUTE FUNCTION inkstone_notify_config_changed('work');
