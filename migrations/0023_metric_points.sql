-- Metrics over time (issue 37 item 1, an extension). Each ticket's object counts its consumptions in memory
-- and pushes the counts of each minute here from an alarm job, never a write per consumption; each
-- forwarding caller's object does the same for its Secret Keys and destinations. A point is a flat JSON
-- object of counters (src/metrics/counters.ts), latency sketches included as one counter per bucket, so
-- every merge (parts of a minute pushed apart, the minutes of an hour, the tickets of a project) is a sum
-- per name, done by the upsert itself (src/metrics/metric-store.ts).
CREATE TABLE metric_points (
  service_id TEXT NOT NULL,
  scope TEXT NOT NULL,          -- 'project' | 'ticket:<id>' | 'key:<secret key name>' | 'dest:<origin>'
  grain TEXT NOT NULL,          -- 'm' minute (kept 2 days) | 'h' hour | 'd' day (kept for the plan's log retention)
  start INTEGER NOT NULL,       -- ms: the bucket's start (UTC)
  counts TEXT NOT NULL,         -- {"ok": 10, "fail": 2, "code:INVALID_SIGNATURE": 2, "lc.97": 4, …}
  PRIMARY KEY (service_id, scope, grain, start)
) WITHOUT ROWID;
CREATE INDEX metric_points_by_age ON metric_points (grain, start);

-- A ticket's failed consumptions in a row as of its object's last push (the "N failures in a row" alert).
CREATE TABLE failure_streaks (
  service_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  streak INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (service_id, ticket_id)
) WITHOUT ROWID;
