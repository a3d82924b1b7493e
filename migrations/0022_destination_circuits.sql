-- Pausing a failing destination (issue 36 item 6, an extension): each forwarding caller's object reports its
-- open and half-open destination circuits here (src/forward/destination-report.ts), off the request path, so
-- the owner's listing (GET /v1/projects/{service_id}/destinations) and an alert rule read one table by project.
-- The object replaces its caller's rows on every change; a circuit that closes leaves no row.
CREATE TABLE destination_circuits (
  service_id TEXT NOT NULL,
  caller_key TEXT NOT NULL,
  origin TEXT NOT NULL,
  state TEXT NOT NULL,          -- 'open' | 'half-open'
  since INTEGER NOT NULL,       -- ms: when the circuit opened
  failures INTEGER NOT NULL,    -- failures counted since the run of them began
  probe_at INTEGER NOT NULL,    -- ms: the next probe (open) or the end of the probe's lease (half-open)
  reported_at INTEGER NOT NULL, -- ms: when the caller's object wrote it
  PRIMARY KEY (service_id, caller_key, origin)
) WITHOUT ROWID;
