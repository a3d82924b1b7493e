-- The forwarding history moves to each caller's ForwardQueueDO (issue 34 item 2). D1 keeps one row per
-- caller of a project, touched by the caller's object at most once a minute, so the owner's view knows
-- which objects to ask. The callers of rows already in D1 are listed here; each object moves its rows
-- out of forward_requests, forward_bodies and forward_segments on its first history call
-- (src/forward/history-import.ts), and the cron wakes those no request reaches.
CREATE TABLE forward_callers (
  service_id TEXT NOT NULL,
  first_at INTEGER NOT NULL,       -- ms of the caller's first request (the owner's listing walks callers newest first)
  caller_key TEXT NOT NULL,
  last_at INTEGER NOT NULL,        -- ms; at most a minute behind the caller's last request
  PRIMARY KEY (service_id, first_at, caller_key)
) WITHOUT ROWID;
INSERT INTO forward_callers (service_id, first_at, caller_key, last_at)
  SELECT service_id, MIN(created), caller_key, MAX(updated) FROM forward_requests GROUP BY service_id, caller_key;
