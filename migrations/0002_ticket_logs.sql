-- Consumption log rows (one per consumption or dry run) and the action rows of each consumption.
-- Written from each TicketDO's outbox; keyed so that a repeated export writes a row once.
CREATE TABLE ticket_logs (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  log_key TEXT NOT NULL,        -- consume_id, or consume_id:CHK for a dry run
  consume_id TEXT NOT NULL,
  user_id TEXT NOT NULL,        -- the user id on signed-in routes, else '<ip>(<user agent>)'
  signed INTEGER NOT NULL,      -- 1 when consumed on the signed-in endpoint
  is_check INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  code TEXT,
  timestamp INTEGER NOT NULL,
  description TEXT NOT NULL,    -- the consumption log as JSON; outcome.ok says whether it succeeded
  PRIMARY KEY (service_id, ticket_id, log_key)
);
CREATE INDEX ticket_logs_by_time ON ticket_logs (service_id, ticket_id, timestamp);
CREATE INDEX ticket_logs_by_user ON ticket_logs (service_id, user_id, signed, timestamp);

CREATE TABLE ticket_action_rows (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  consume_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  act TEXT NOT NULL,
  detail TEXT NOT NULL,         -- JSON: what was sent (secrets redacted), what came back, the error
  timestamp INTEGER NOT NULL,
  PRIMARY KEY (service_id, ticket_id, consume_id, seq)
);
