-- Streamed forwarding (issue 12): a request sent with stream keeps its answer in its queue object's chunk
-- store; its history row says so (its response_body stays NULL until finalized).
ALTER TABLE forward_requests ADD COLUMN stream INTEGER NOT NULL DEFAULT 0;
