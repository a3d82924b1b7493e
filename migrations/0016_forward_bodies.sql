-- Forward history rows at their final size (issue 24): bodies and headers of more than 200 characters in all
-- are written to a table of their own instead of inline, and leave it (whole rows, so whole pages go back to
-- the free list for the next bodies) when the caller's object moves them into an R2 segment a minute later.
-- Written inline and shrunk in place, each kept row held a 4 KiB page of its own (docs/capacity.md).
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
-- A request removed from the history (cancelled, withdrawn, expired) takes its bodies with it.
CREATE TRIGGER forward_requests_drop_bodies AFTER DELETE ON forward_requests BEGIN
  DELETE FROM forward_bodies
  WHERE service_id = old.service_id AND caller_key = old.caller_key AND method = old.method AND url = old.url AND id = old.id;
END;
