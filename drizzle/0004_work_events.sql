-- docs/product.md D9: every change to a work (price, visibility, chapters, counts, delete) is
-- announced on the channel the app processes LISTEN to (app/server/platform/events.server.ts),
-- whatever code path made it. pg_notify inside a transaction is delivered on commit,
-- and not at all on rollback.
CREATE OR REPLACE FUNCTION inkstone_notify_work_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed_id bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    changed_id := OLD.id;
  ELSE
    changed_id := NEW.id;
  END IF;
  PERFORM pg_notify('inkstone_events', json_build_object('topic', 'work', 'workId', changed_id)::text);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER works_notify_updated
  AFTER UPDATE ON works
  FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION inkstone_notify_work_changed();
--> statement-breakpoint
CREATE TRIGGER works_notify_deleted
  AFTER DELETE ON works
  FOR EACH ROW
  EXECUTE FUNCTION inkstone_notify_work_changed();
