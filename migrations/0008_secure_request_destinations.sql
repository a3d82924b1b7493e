-- Destinations of the secureRequest key (issue 13 follow-up): a JSON list of URLs every url of a
-- secureRequest call must match, as a Secret Key's Destinations are matched; NULL when none is set.
ALTER TABLE projects ADD COLUMN secure_request_destinations TEXT DEFAULT NULL;
