-- Mail: the local outbox (the default transport), monthly mail counts, newsletter sends and their batches.

-- Every mail the local transport delivered; message_key makes a send idempotent.
CREATE TABLE mail_outbox (
  service_id TEXT NOT NULL,
  message_key TEXT NOT NULL,      -- mail:<consume_id>:<action path>, or newsletter:<send_id>:<address>
  kind TEXT NOT NULL,             -- 'mail' | 'newsletter'
  mail_from TEXT NOT NULL,
  mail_to TEXT NOT NULL,
  subject TEXT NOT NULL,
  html TEXT NOT NULL,
  text TEXT NOT NULL,
  ticket_id TEXT,
  consume_id TEXT,
  send_id TEXT,                   -- the newsletter send, for kind 'newsletter'
  created INTEGER NOT NULL,
  PRIMARY KEY (service_id, message_key)
);
CREATE INDEX mail_outbox_by_time ON mail_outbox (service_id, created, message_key);

-- Mails sent per project per calendar month (UTC), whatever the transport.
CREATE TABLE mail_usage (
  service_id TEXT NOT NULL,
  month TEXT NOT NULL,            -- 'YYYY-MM', UTC
  mails INTEGER NOT NULL DEFAULT 0,
  newsletter_mails INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (service_id, month)
);

-- One per nlsd action run: a snapshot of the newsletter, so later edits do not change a send under way.
CREATE TABLE newsletter_sends (
  service_id TEXT NOT NULL,
  send_id TEXT NOT NULL,
  grp TEXT NOT NULL,
  message_id TEXT NOT NULL,
  mail_from TEXT NOT NULL,
  subject TEXT NOT NULL,
  html TEXT NOT NULL,
  text TEXT NOT NULL,
  service_name TEXT NOT NULL,
  ticket_id TEXT,
  consume_id TEXT,
  action_path TEXT,
  planned_batches INTEGER,        -- NULL until every subscriber has been put in a batch
  warning TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, send_id)
);

-- One per batch of a send; a batch marked 'sent' is never sent again (a redelivered message is a no-op).
CREATE TABLE newsletter_batches (
  service_id TEXT NOT NULL,
  send_id TEXT NOT NULL,
  batch INTEGER NOT NULL,
  status TEXT NOT NULL,           -- 'sending' | 'sent'
  recipients INTEGER NOT NULL,
  delivered INTEGER NOT NULL DEFAULT 0,
  refused INTEGER NOT NULL DEFAULT 0,   -- addresses the provider refused for good
  warning TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, send_id, batch)
);
