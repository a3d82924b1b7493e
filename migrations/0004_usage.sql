-- Metered use per project per calendar month (UTC): queued ticket runs, i.e. runs that go on after a
-- resp action (spec 2.4, 8). Checked against the plan's quota before the run is queued.
CREATE TABLE usage_monthly (
  service_id TEXT NOT NULL,
  month TEXT NOT NULL,              -- 'YYYY-MM', UTC
  queued_runs INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (service_id, month)
);
