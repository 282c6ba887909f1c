-- Up Migration
-- Drops sluice_finish_and_claim, the busy cycle of the release before sluice_cycle.
--
-- From this release on, database functions live one per file in server/db/sql/functions/
-- and are (re-)applied by the repeatable step after these migrations (server/db/migrate.ts,
-- docs/architecture.md § "Database functions"); migrations carry schema changes only. A
-- function leaves the database only through a migration like this one, written on
-- purpose: deleting its file alone leaves it in place (and the functions drift test fails).
--
-- Why it is safe now. 20261123000800000_lean_cycle introduced sluice_cycle with a new reply
-- and kept sluice_finish_and_claim so that coordinators of the release before it could keep
-- finishing and claiming while a rolling upgrade replaced them (its test called it beside
-- sluice_cycle). That deprecation window is one release: coordinators of this release and
-- of the previous one (lean_cycle) call sluice_cycle (server/db/finish-and-claim-executions.ts)
-- and nothing else calls the old function. Upgrading straight from a release older than
-- lean_cycle must stop its coordinators before migrating (they would get "function
-- sluice_finish_and_claim(...) does not exist" on their next busy cycle, and their leases
-- would expire and be rescued, not lost).
DROP FUNCTION IF EXISTS sluice_finish_and_claim(uuid, text, integer, integer, bigint[], uuid[], text[], timestamptz[], text[], text[], text[]);

-- Down Migration
-- Not restated here (no superseded function copies in migrations): its last definition is
-- in prisma/migrations/20261123000500000_engine_perf.sql. Roll forward instead.
DO $$ BEGIN
  RAISE EXCEPTION 'migration drop_finish_and_claim cannot be undone; apply a new migration instead';
END $$;
