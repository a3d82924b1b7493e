-- Flood control (issue 26): the owner's choice of its consume routes' limits, a JSON object
-- { per_caller_per_ticket?, per_project?, tickets? } of steps (src/limits.ts); NULL = the defaults.
ALTER TABLE projects ADD COLUMN flood_limits TEXT;
