-- Forward history has a lifetime (issue 24): every row written from now on carries expires_at (the caller's
-- expires, else 30 days after its last change); rows kept before get the same 30 days after their last
-- change, so the daily cleanup (src/forward/history-cleanup.ts) removes them too.
UPDATE forward_requests SET expires_at = updated + 2592000000 WHERE expires_at IS NULL;
