-- Replay (issue 15): each consumption's log row keeps the request it received (JSON: method, headers
-- with authorization and cookie redacted, query, body up to 64 KiB, caller), and a replay names the
-- consumption it replays.
ALTER TABLE ticket_logs ADD COLUMN request TEXT DEFAULT NULL;
ALTER TABLE ticket_logs ADD COLUMN replay_of TEXT DEFAULT NULL;
