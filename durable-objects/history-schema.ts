/**
 * A caller's forwarding history in its ForwardQueueDO (issue 34 item 2): the tables D1 held (migrations 0006
 * to 0018) with the same columns, so the history's SQL (src/forward/history*.ts) runs here unchanged; every
 * row of one object has the same service_id and caller_key. `caller_meta` keeps the caller's place in D1's
 * caller index and whether rows D1 held were moved here.
 */
export const HISTORY_SCHEMA = `
  CREATE TABLE forward_requests (
    service_id TEXT NOT NULL,
    caller_key TEXT NOT NULL,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    id TEXT NOT NULL,
    queue_name TEXT,
    status TEXT NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    executed INTEGER,
    responded INTEGER,
    status_code INTEGER,
    request_body TEXT,
    response_body TEXT,
    error TEXT,
    expires_at INTEGER,
    stream INTEGER NOT NULL DEFAULT 0,
    request_headers TEXT,
    body_segment TEXT,
    body_at INTEGER,
    body_len INTEGER,
    compact TEXT,
    PRIMARY KEY (service_id, caller_key, method, url, id)
  );
  CREATE INDEX forward_requests_expiring ON forward_requests (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX forward_requests_by_service ON forward_requests (service_id, id);
  CREATE INDEX forward_requests_inline ON forward_requests (service_id, caller_key, id)
    WHERE body_segment IS NULL AND length(coalesce(request_body, '')) + length(coalesce(response_body, '')) + length(coalesce(request_headers, '')) > 200;
  CREATE TABLE forward_segments (
    key TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX forward_segments_expiring ON forward_segments (expires_at);
  CREATE TABLE forward_bodies (
    service_id TEXT NOT NULL,
    caller_key TEXT NOT NULL,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    id TEXT NOT NULL,
    request_body TEXT,
    response_body TEXT,
    request_headers TEXT,
    UNIQUE (service_id, caller_key, method, url, id)
  );
  CREATE TRIGGER forward_requests_drop_bodies AFTER DELETE ON forward_requests BEGIN
    DELETE FROM forward_bodies
    WHERE service_id = old.service_id AND caller_key = old.caller_key AND method = old.method AND url = old.url AND id = old.id;
  END;
  CREATE TRIGGER forward_requests_alone_replaced AFTER UPDATE OF body_segment ON forward_requests
  WHEN old.body_segment LIKE '%/alone-%' AND new.body_segment IS NOT old.body_segment BEGIN
    UPDATE forward_segments SET expires_at = 0 WHERE key = old.body_segment;
  END;
  CREATE TRIGGER forward_requests_alone_removed AFTER DELETE ON forward_requests
  WHEN old.body_segment LIKE '%/alone-%' BEGIN
    UPDATE forward_segments SET expires_at = 0 WHERE key = old.body_segment;
  END;
  CREATE TABLE caller_meta (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  );`;

/** Extension (issue 36 item 2): the sends of a request sent with retry that were waited out, as JSON (ForwardAttempt[]). */
export const HISTORY_ATTEMPTS_STEP = 'ALTER TABLE forward_requests ADD COLUMN attempts TEXT;';

/**
 * Extension (issue 36 item 3): a dead letter's reason (src/forward/dead-letters.ts), and the dead letters
 * indexed so that listing them reads them alone.
 */
export const HISTORY_DEAD_LETTER_STEP = `ALTER TABLE forward_requests ADD COLUMN dead_letter TEXT;
  CREATE INDEX forward_requests_dead_letters ON forward_requests (service_id, caller_key, id) WHERE dead_letter IS NOT NULL;`;
