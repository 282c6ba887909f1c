-- sluice_claim_rows' last argument was `p_after_finish boolean`, unused since the slot
-- counters' moves were logged (20261202000100000_slot_deltas); it is now `p_finished
-- integer` (server/db/sql/functions/sluice_claim_rows.sql: the finished rows of the caller's
-- transaction whose in_flight the claim moves with its own, so sluice_cycle updates
-- task_runtime once a cycle; issue #18, 2026-12-03). A changed argument type is another
-- function to Postgres: the old one goes here, before the function files create the new one
-- and the callers (sluice_claim, sluice_cycle) that use it.
DROP FUNCTION IF EXISTS sluice_claim_rows(uuid, text, integer, integer, integer[], boolean);
