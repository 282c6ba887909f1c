-- sluice_dlq_stats_update(): statement-level AFTER UPDATE trigger on dead_letters
-- (dead_letters_stats_update, transition tables old_rows / new_rows). Replay marks (and
-- any change of task, fingerprint or replayed_at) move as a delete of the old rows'
-- contribution plus an insert of the new rows', netted per (task, fingerprint), upserted
-- in that order (the same lock order as sluice_dlq_stats_insert). first/last seen are
-- left as they are: an update does not change dead_at.
-- The trigger itself is schema (prisma/migrations/20261123000400000_dlq); only the
-- function lives here. Unchanged since that migration.

CREATE OR REPLACE FUNCTION public.sluice_dlq_stats_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH diff AS (
    SELECT task, fingerprint, sum(dn)::bigint AS dn, sum(dp)::bigint AS dp FROM (
      SELECT n.task, n.fingerprint, 1 AS dn, CASE WHEN n.replayed_at IS NULL THEN 1 ELSE 0 END AS dp FROM new_rows n
      UNION ALL
      SELECT o.task, o.fingerprint, -1, CASE WHEN o.replayed_at IS NULL THEN -1 ELSE 0 END FROM old_rows o
    ) x GROUP BY task, fingerprint HAVING sum(dn) <> 0 OR sum(dp) <> 0
  )
  INSERT INTO dlq_fingerprint_stats AS s (task, fingerprint, count, pending, first_seen, last_seen)
  SELECT d.task, d.fingerprint, d.dn, d.dp, NULL, NULL FROM diff d ORDER BY d.task, d.fingerprint
  ON CONFLICT (task, fingerprint) DO UPDATE SET count = s.count + excluded.count, pending = s.pending + excluded.pending;
  RETURN NULL;
END
$function$;
