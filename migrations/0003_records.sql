-- Records written by tickets (pstr) and the private grants on them (acsr); record_access reads these.
CREATE TABLE records (
  service_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  access_group TEXT NOT NULL DEFAULT '0',
  user_id TEXT NOT NULL,          -- whose record it is (the project owner when no user_id was given)
  unique_id TEXT,
  data TEXT,
  index_name TEXT,
  index_value TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  reference TEXT,
  readonly INTEGER NOT NULL DEFAULT 0,
  source TEXT,
  subscription TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, record_id)
);
CREATE UNIQUE INDEX records_unique_id ON records (service_id, unique_id) WHERE unique_id IS NOT NULL;
CREATE INDEX records_by_table ON records (service_id, table_name, updated);

CREATE TABLE record_grants (
  service_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (service_id, record_id, user_id)
);
