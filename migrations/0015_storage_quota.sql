-- Storage quota per project (issue 24 item 6). What each part of a project stores, reported by the
-- part itself: one row per ticket log ('ticket:<ticket_id>'), bytes = the ticket object's SQLite file
-- plus its R2 segments, written when a segment is packed or a clear or retention step ran (never per
-- consumption). The consume path sums a project's rows with its project read (cached 5 s).
CREATE TABLE project_storage (
  service_id TEXT NOT NULL,
  part TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, part)
) WITHOUT ROWID;

-- The operator's figure for one project, in bytes; NULL = the plan's (STORAGE_QUOTA_BYTES in src/limits.ts).
ALTER TABLE projects ADD COLUMN storage_quota_bytes INTEGER;
