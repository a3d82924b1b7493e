-- Forward history has a lifetime (issue 24): every row written from now on carries expires_at (the caller's
-- expires, else 30 days after its last change); rows kept before get the same 30 days after their last
-- change, so the daily cleanup (src/forward/history-cleanup.ts) removes them too.
UPDATE forward_requests SET expires_at = updated + 2592000000 WHERE expires_at IS NULL;

-- Bodies out of D1 (issue 24): a settled request's bodies and headers move, a minute after they were written,
-- into one R2 object per batch of a caller's requests (a segment); the row keeps where its part is and the
-- short texts a compact listing shows. Rows with bodies of at most 200 characters in all keep them inline.
ALTER TABLE forward_requests ADD COLUMN body_segment TEXT;   -- R2 key; NULL = bodies inline (or none)
ALTER TABLE forward_requests ADD COLUMN body_at INTEGER;     -- byte offset of the row's part in the segment
ALTER TABLE forward_requests ADD COLUMN body_len INTEGER;    -- its byte length
ALTER TABLE forward_requests ADD COLUMN compact TEXT;        -- JSON [request_text, response_text, complete, has_response]
-- The rows a caller's compaction picks up: only those still holding more than 200 characters inline.
CREATE INDEX forward_requests_inline ON forward_requests (service_id, caller_key, id)
  WHERE body_segment IS NULL AND length(coalesce(request_body, '')) + length(coalesce(response_body, '')) + length(coalesce(request_headers, '')) > 200;
-- Every segment with the last expiry of the rows written into it: the cleanup deletes it from R2 then.
CREATE TABLE forward_segments (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX forward_segments_expiring ON forward_segments (expires_at);
