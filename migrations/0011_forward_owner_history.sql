-- The owner's view of every caller's forwarded requests (issue 15): the headers a request was sent with
-- (as written, $CLIENT_SECRET in place, credentials the caller typed out redacted) and an index that lists
-- a project's requests newest first and finds one by its id whoever made it.
ALTER TABLE forward_requests ADD COLUMN request_headers TEXT;
CREATE INDEX forward_requests_by_service ON forward_requests (service_id, id);
