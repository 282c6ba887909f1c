-- sluice_dlq_stats_insert(): statement-level AFTER INSERT trigger on dead_letters
-- (dead_letters_stats_insert, transition table new_rows). Keeps dlq_fingerprint_stats —
-- per (task, fingerprint) count, pending (not replayed), first/last seen — exact, so the
-- DLQ's grouped view reads counters instead of aggregating dead_letters: measured at 1M
-- dead letters, the unfiltered groups went from ~2 s (aggregate) to a few ms.
-- Statement level: one upsert per statement however many rows it inserted (the engine's
-- batched finish inserts many dead letters in one statement). Upserts go in (task,
-- fingerprint) order, so concurrent writers lock stats rows in one order.
-- The trigger itself is schema (prisma/migrations/20261123000400000_dlq); only the
-- function lives here. Unchanged since that migration.

CREATE OR REPLACE FUNCTION public.sluice_dlq_stats_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO dlq_fingerprint_stats AS s (task, fingerprint, count, pending, first_seen, last_seen)
  SELECT n.task, n.fingerprint, count(*), count(*) FILTER (WHERE n.replayed_at IS NULL), min(n.dead_at), max(n.dead_at)
    FROM new_rows n GROUP BY n.task, n.fingerprint ORDER BY n.task, n.fingerprint
  ON CONFLICT (task, fingerprint) DO UPDATE
    SET count = s.count + excluded.count, pending = s.pending + excluded.pending,
        first_seen = least(s.first_seen, excluded.first_seen), last_seen = greatest(s.last_seen, excluded.last_seen);
  RETURN NULL;
END
$function$;
