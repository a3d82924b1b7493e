-- Request forwarding: the history of forwarded requests, the abuse-limit counters of Secret Keys, and the
-- limits themselves.

-- One row per forwarded request, as forwardRequestHistory lists it. Queued requests reach this table from
-- their ForwardQueueDO's outbox (a snapshot per change, upserted); direct ones are written once, settled.
-- caller_key is 'u:<user id>', 'o:<owner id>' or 'v:<hash of IP and user agent>' (never the IP itself).
CREATE TABLE forward_requests (
  service_id TEXT NOT NULL,
  caller_key TEXT NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  id TEXT NOT NULL,                 -- 'stamp:entropy'
  queue_name TEXT,                  -- null for a direct request
  status TEXT NOT NULL,             -- pending | running | resolved | failed
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  executed INTEGER,
  responded INTEGER,
  status_code INTEGER,
  request_body TEXT,                -- JSON of what the caller sent as data (or a note for a multipart body)
  response_body TEXT,               -- JSON of the answer (parsed when it parses, else its text)
  error TEXT,                       -- JSON { code, message } of a failed request
  expires_at INTEGER,               -- ms; the row is gone for every reader from then on
  PRIMARY KEY (service_id, caller_key, method, url, id)
);
-- No index by time: an id starts with the base62 of its ms stamp (same length, digits ordered as ASCII),
-- so the primary key already lists a caller's requests to a url and method in the order they were made.
CREATE INDEX forward_requests_expiring ON forward_requests (expires_at) WHERE expires_at IS NOT NULL;

-- Calls counted against a Secret Key's per-minute limits: one row per key or caller scope per minute.
CREATE TABLE forward_rate (
  service_id TEXT NOT NULL,
  scope TEXT NOT NULL,              -- 'key:<name>' or 'caller:<name>:<caller key>'
  window_start INTEGER NOT NULL,    -- ms, a multiple of 60 000
  calls INTEGER NOT NULL,
  PRIMARY KEY (service_id, scope, window_start)
);

-- A Secret Key's abuse limits, JSON: { per_caller_per_minute?, per_key_per_minute?, queued_per_caller? }.
ALTER TABLE secret_keys ADD COLUMN limits TEXT NOT NULL DEFAULT '{}';
