-- Up Migration
-- vacuum_state: what the vacuum maintenance service's own last VACUUM of each table of the
-- schema recorded — the xmin horizon it ran under (a 64-bit transaction id), the dead tuples
-- it left and how long the snapshot holding that horizon had been open — so the next run
-- knows when another would free nothing (a long hold, the horizon has not moved) and when one
-- is due at once (the last was held back and the horizon has moved),
-- server/core/vacuum-policy.ts. One row per table, rewritten at each vacuum: bounded.
CREATE TABLE vacuum_state (
  table_name  text PRIMARY KEY,
  vacuumed_at timestamptz NOT NULL,
  horizon     bigint NOT NULL,
  left_dead   bigint NOT NULL,
  held_ms     bigint NOT NULL
);

-- Down Migration
DROP TABLE IF EXISTS vacuum_state;
