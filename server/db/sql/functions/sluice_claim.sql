-- sluice_claim(coordinator, task, max, lease_ms): the claim loop's claim (server/db/claim-executions.ts)
-- — sluice_claim_rows over every partition this coordinator owns, waiting for locks in the
-- engine's order as usual. sluice_claim_rows.sql holds the claim itself and says what was
-- measured; this name and reply stay for coordinators of every release.
-- plpgsql since 2026-12-07: a VOLATILE LANGUAGE sql function is parsed and planned again on
-- every call (0.08 ms a claim of its own here; sluice_release_oldest.sql says more).

CREATE OR REPLACE FUNCTION public.sluice_claim(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer)
 RETURNS TABLE(id bigint, task text, partition integer, attempts integer, payload jsonb, groups jsonb, stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamp with time zone, run_at timestamp with time zone)
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN QUERY SELECT * FROM sluice_claim_rows(p_coordinator, p_task, p_max, p_lease_ms, NULL::integer[], 0);
END
$function$;
