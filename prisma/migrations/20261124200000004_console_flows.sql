-- Up Migration
-- A replay is frozen at confirmation like a purge: the replay dialog freezes the exact
-- dead letters (not yet replayed) into a preview, shows their count, and the job is made
-- from those ids only, so dead letters that arrive between the preview and the click are
-- not swept in. The preview tables are the purge's (dlq_purge_previews and its items);
-- `purpose` says which action a preview may be applied to (a replay preview can never be
-- purged, a purge preview never replayed).
ALTER TABLE dlq_purge_previews ADD COLUMN purpose text NOT NULL DEFAULT 'purge' CHECK (purpose IN ('purge', 'replay'));

-- An operator can end a silence early (services/alerts.ts unsilenceAlertById): its own
-- event in the alert's history.
ALTER TABLE alert_events DROP CONSTRAINT alert_events_type_check;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_type_check
  CHECK (type IN ('fired', 'escalated', 'acknowledged', 'silenced', 'unsilenced', 'resolved'));

-- Down Migration
DELETE FROM alert_events WHERE type = 'unsilenced';
ALTER TABLE alert_events DROP CONSTRAINT alert_events_type_check;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_type_check
  CHECK (type IN ('fired', 'escalated', 'acknowledged', 'silenced', 'resolved'));
ALTER TABLE dlq_purge_previews DROP COLUMN purpose;
