-- Rows fit (issue 25 item 3): a history row whose bodies are too large to wait in forward_bodies points at a
-- segment of its own in R2 (key .../alone-<id>-<uuid>, written before the row). When the row is written again
-- with another segment or removed, that segment is due for the cleanup at once (the daily sweep deletes it
-- from R2), so the states of a large request (pending, running, settled) leave one segment, not one each.
-- Segments of compaction hold many rows and are never expired here.
CREATE TRIGGER forward_requests_alone_replaced AFTER UPDATE OF body_segment ON forward_requests
WHEN old.body_segment LIKE '%/alone-%' AND new.body_segment IS NOT old.body_segment BEGIN
  UPDATE forward_segments SET expires_at = 0 WHERE key = old.body_segment;
END;
CREATE TRIGGER forward_requests_alone_removed AFTER DELETE ON forward_requests
WHEN old.body_segment LIKE '%/alone-%' BEGIN
  UPDATE forward_segments SET expires_at = 0 WHERE key = old.body_segment;
END;
