-- Issue 24: each ticket's consumption log moves into its TicketDO (an index row per consumption, the
-- bodies in R2 segments). D1 keeps only what lists across tickets: a user's signed-in consumptions.
-- ticket_logs and ticket_action_rows stay for the rows written before; a ticket's object takes its
-- rows in from them (and deletes them here) the first time its log is read or cleared.
CREATE TABLE user_consumptions (
  service_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  ticket_id TEXT NOT NULL,
  log_key TEXT NOT NULL,
  PRIMARY KEY (service_id, user_id, timestamp, ticket_id, log_key)
) WITHOUT ROWID;
-- Retention by plan: a project's rows older than the cutoff.
CREATE INDEX user_consumptions_by_time ON user_consumptions (service_id, timestamp);

INSERT OR IGNORE INTO user_consumptions (service_id, user_id, timestamp, ticket_id, log_key)
  SELECT service_id, user_id, timestamp, ticket_id, log_key FROM ticket_logs WHERE signed = 1 AND is_check = 0;

-- Every ticket that has (or had) a log, deleted tickets included (their log is kept): what the retention
-- sweep visits. Registration adds a row; nothing removes it.
CREATE TABLE log_tickets (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  PRIMARY KEY (service_id, ticket_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO log_tickets (service_id, ticket_id) SELECT service_id, ticket_id FROM tickets;
INSERT OR IGNORE INTO log_tickets (service_id, ticket_id) SELECT DISTINCT service_id, ticket_id FROM ticket_logs;
