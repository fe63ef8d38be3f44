-- pg_trgm backs the benchmark's comparison index; the app's own search uses
-- work_search_grams below, which also covers 1- and 2-character queries.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Distinct lower-cased characters and character pairs (whitespace excluded) of a
-- work's title and description. A 1-character query matches exactly the rows whose
-- array contains it; a 2-character query likewise; longer queries need all their
-- pairs present and are rechecked with ILIKE.
CREATE OR REPLACE FUNCTION work_search_grams(title text, description text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT g), '{}'::text[])
  FROM (
    SELECT lower(coalesce(title, '')) AS t
    UNION ALL
    SELECT lower(coalesce(description, ''))
  ) AS src,
  LATERAL (
    SELECT substr(src.t, i, 1) AS g FROM generate_series(1, char_length(src.t)) AS i
    UNION ALL
    SELECT substr(src.t, i, 2) FROM generate_series(1, char_length(src.t) - 1) AS i
  ) AS grams
  WHERE g !~ '\s'
$$;
