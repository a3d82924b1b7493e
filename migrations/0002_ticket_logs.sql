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
-- getTickets log listing (newest first, paged by (timestamp, log_key)) and clearTicketLog.
CREATE INDEX ticket_logs_by_time ON ticket_logs (service_id, ticket_id, timestamp, log_key);
-- getConsumedTickets: a user's own signed-in consumptions.
CREATE INDEX ticket_logs_by_user ON ticket_logs (service_id, user_id, signed, timestamp);
-- Retention by plan: a project's rows older than the cutoff.
CREATE INDEX ticket_logs_by_service_time ON ticket_logs (service_id, timestamp);

CREATE TABLE ticket_action_rows (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  consume_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  act TEXT NOT NULL,
  -- JSON as the runner wrote it; the listing reads sent (secrets redacted), received, error,
  -- attempts (tries made, 1 = no retry), retried and warning from it.
  detail TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  PRIMARY KEY (service_id, ticket_id, consume_id, seq)
);
-- clearTicketLog (one ticket) and retention (one project) delete action rows by time.
CREATE INDEX ticket_action_rows_by_time ON ticket_action_rows (service_id, ticket_id, timestamp);
CREATE INDEX ticket_action_rows_by_service_time ON ticket_action_rows (service_id, timestamp);
