-- Records written by tickets (pstr) and the private grants on them (acsr); record_access reads these.
CREATE TABLE records (
  service_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  access_group TEXT NOT NULL DEFAULT '0', -- '0'..'99' (0 public, 1 authorized, 99 admin) or 'private'
  user_id TEXT NOT NULL,          -- whose record it is (the project owner when no user_id was given)
  unique_id TEXT,
  data TEXT,                      -- JSON; NULL = never set
  index_name TEXT,
  index_value TEXT,               -- JSON of the value, so its type (string, number, boolean) survives
  tags TEXT NOT NULL DEFAULT '[]',
  reference TEXT,                 -- record_id of the referenced record (a unique id is resolved on write)
  readonly INTEGER NOT NULL DEFAULT 0,
  source TEXT,                    -- JSON: restrictions on records that reference this one
  subscription TEXT,              -- JSON: subscription settings
  ticket_id TEXT,                 -- the ticket and consumption that wrote the record last
  consume_id TEXT,
  version INTEGER NOT NULL DEFAULT 0, -- +1 per update: an update applies only to the version it read
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, record_id)
);
CREATE UNIQUE INDEX records_unique_id ON records (service_id, unique_id) WHERE unique_id IS NOT NULL;
CREATE INDEX records_by_table ON records (service_id, table_name, created, record_id);
CREATE INDEX records_by_created ON records (service_id, created, record_id);
CREATE INDEX records_by_reference ON records (service_id, reference, user_id) WHERE reference IS NOT NULL;

CREATE TABLE record_grants (
  service_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (service_id, record_id, user_id)
);
