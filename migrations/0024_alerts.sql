-- Alerts (issue 37 item 5, an extension): an owner's alert rules, per project or per ticket, and the incidents
-- they open. A cron trigger each minute evaluates the enabled rules in pages (src/alerts/run.ts) from D1 only
-- (metric_points, failure_streaks, destination_circuits); notifications leave through the work queue.
CREATE TABLE alert_rules (
  service_id TEXT NOT NULL,
  rule_id TEXT NOT NULL,             -- 'ar_' + 16 base62
  name TEXT NOT NULL DEFAULT '',
  ticket_id TEXT,                    -- null: the whole project
  kind TEXT NOT NULL,                -- failure_rate | failure_streak | p95_latency | flood_refused | dead_letter | destination_paused
  params TEXT NOT NULL,              -- JSON: the kind's bounds ({ threshold_percent, min_volume } | { failures } | { p95_ms } | {})
  window_minutes INTEGER NOT NULL,
  cooldown_minutes INTEGER NOT NULL,
  email_to TEXT NOT NULL DEFAULT '[]', -- JSON array of addresses
  webhook_url TEXT,
  webhook_secret_enc TEXT,           -- the whsec_ secret, encrypted under SECRETS_KEY (src/platform/crypto.ts)
  enabled INTEGER NOT NULL DEFAULT 1,
  open_incident TEXT,                -- the incident open or acknowledged now, else null
  false_since INTEGER,               -- ms: since when the condition of the open incident has been false
  last_resolved INTEGER,             -- ms: the last incident's resolve (the cooldown counts from it)
  last_delivery TEXT,                -- JSON { at, event, ok, status?, error? } of the last notification sent
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, rule_id)
) WITHOUT ROWID;

-- The evaluation pages through the enabled rules of every project in key order (a cursor of service_id, rule_id).
CREATE INDEX alert_rules_enabled ON alert_rules (enabled, service_id, rule_id);

CREATE TABLE alert_incidents (
  service_id TEXT NOT NULL,
  incident_id TEXT NOT NULL,         -- 'inc_' + 16 base62
  rule_id TEXT NOT NULL,
  state TEXT NOT NULL,               -- open | acknowledged | resolved
  opened_at INTEGER NOT NULL,
  acknowledged_at INTEGER,
  resolved_at INTEGER,
  observed TEXT NOT NULL,            -- JSON: what the evaluation saw when it opened ({ value, bound, ... })
  last_delivery TEXT,                -- JSON { at, event, ok, status?, error? }
  PRIMARY KEY (service_id, incident_id)
) WITHOUT ROWID;

CREATE INDEX alert_incidents_by_time ON alert_incidents (service_id, opened_at, incident_id);
-- A rule keeps its newest KEPT_PER_RULE incidents (src/alerts/run.ts prunes the rest when one opens).
CREATE INDEX alert_incidents_by_rule ON alert_incidents (service_id, rule_id, opened_at);
