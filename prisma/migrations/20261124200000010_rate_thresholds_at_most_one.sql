-- Rate thresholds (retryRate, dlqRate) are fractions and task definitions now refuse values
-- above 1 ('must be at most 100%'). A stored config written before that with e.g. 10 for
-- "10%" would no longer validate, and the config editor reads the current version through
-- the same schema: it could not be opened to fix it. Such a line never fired (a rate is at
-- most 1), so clamping it (critical 1, warning 0.99) keeps what it did — fire only at total
-- failure — and keeps every stored version readable. Rewrites the versions' JSON and task_runtime's copy in place; rows with
-- nothing above 1 are untouched.
-- One line pair: critical above 1 becomes 1; warning above 1, or no longer below the new
-- critical, becomes critical − 0.01 (warning must stay below critical).
CREATE FUNCTION pg_temp.sluice_clamp_pair(v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN jsonb_typeof(v -> 'warning') IS DISTINCT FROM 'number' OR jsonb_typeof(v -> 'critical') IS DISTINCT FROM 'number'
      OR ((v ->> 'warning')::numeric <= 1 AND (v ->> 'critical')::numeric <= 1) THEN v
    ELSE v || jsonb_build_object(
      'critical', least((v ->> 'critical')::numeric, 1),
      'warning', CASE WHEN (v ->> 'warning')::numeric >= least((v ->> 'critical')::numeric, 1)
                      THEN least((v ->> 'critical')::numeric, 1) - 0.01 ELSE (v ->> 'warning')::numeric END)
  END
$$;

CREATE FUNCTION pg_temp.sluice_clamp_rates(t jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(t -> 'thresholds') IS DISTINCT FROM 'object' THEN t ELSE
    jsonb_set(t, '{thresholds}', (
      SELECT coalesce(jsonb_object_agg(k, CASE
               WHEN k IN ('retryRate', 'dlqRate') AND jsonb_typeof(v) = 'object' THEN pg_temp.sluice_clamp_pair(v)
               ELSE v END), '{}'::jsonb)
        FROM jsonb_each(t -> 'thresholds') AS e(k, v)))
  END
$$;

CREATE FUNCTION pg_temp.sluice_rates_above_one(t jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(t -> 'thresholds') = 'object' THEN t -> 'thresholds' ELSE '{}'::jsonb END) AS e(k, v),
                  jsonb_each(CASE WHEN jsonb_typeof(v) = 'object' THEN v ELSE '{}'::jsonb END) AS l(lk, lv)
     WHERE k IN ('retryRate', 'dlqRate') AND jsonb_typeof(lv) = 'number' AND (lv #>> '{}')::numeric > 1)
$$;

UPDATE config_versions
   SET config = jsonb_set(config, '{tasks}', (
         SELECT jsonb_agg(pg_temp.sluice_clamp_rates(x.t) ORDER BY x.ord)
           FROM jsonb_array_elements(config -> 'tasks') WITH ORDINALITY AS x(t, ord)))
 WHERE jsonb_typeof(config -> 'tasks') = 'array'
   AND EXISTS (SELECT 1 FROM jsonb_array_elements(config -> 'tasks') AS x(t) WHERE pg_temp.sluice_rates_above_one(x.t));

UPDATE task_runtime
   SET definition = pg_temp.sluice_clamp_rates(definition)
 WHERE pg_temp.sluice_rates_above_one(definition);
