-- sluice_dlq_stats_delete(): statement-level AFTER DELETE trigger on dead_letters
-- (dead_letters_stats_delete, transition table old_rows), the counterpart of
-- sluice_dlq_stats_insert (see there for why the counters exist). Locks the touched
-- stats rows in (task, fingerprint) order, subtracts, and re-reads first/last seen of
-- the touched keys through dead_letters_task_fingerprint_idx (two index probes per key);
-- rows that reach 0 are deleted. Purge and trim delete in batches, one statement each.
-- The trigger itself is schema (prisma/migrations/20261123000400000_dlq); only the
-- function lives here. Unchanged since that migration.

CREATE OR REPLACE FUNCTION public.sluice_dlq_stats_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH d AS (
    SELECT o.task, o.fingerprint, count(*) AS n, count(*) FILTER (WHERE o.replayed_at IS NULL) AS p
      FROM old_rows o GROUP BY o.task, o.fingerprint
  ), locked AS (
    SELECT s.task, s.fingerprint FROM dlq_fingerprint_stats s JOIN d USING (task, fingerprint)
     ORDER BY s.task, s.fingerprint FOR NO KEY UPDATE OF s
  )
  UPDATE dlq_fingerprint_stats s
     SET count = s.count - d.n, pending = s.pending - d.p,
         first_seen = (SELECT x.dead_at FROM dead_letters x WHERE x.task = s.task AND x.fingerprint = s.fingerprint ORDER BY x.dead_at, x.id LIMIT 1),
         last_seen = (SELECT x.dead_at FROM dead_letters x WHERE x.task = s.task AND x.fingerprint = s.fingerprint ORDER BY x.dead_at DESC, x.id DESC LIMIT 1)
    FROM d, locked l
   WHERE s.task = d.task AND s.fingerprint = d.fingerprint AND l.task = d.task AND l.fingerprint = d.fingerprint;
  DELETE FROM dlq_fingerprint_stats s WHERE s.count <= 0 AND (s.task, s.fingerprint) IN (SELECT o.task, o.fingerprint FROM old_rows o);
  RETURN NULL;
END
$function$;
