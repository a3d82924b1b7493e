-- Service ids made from now on carry a keyed check (src/platform/service-ids.ts): id_checked = 1.
-- The projects made before it keep 0 (the default, also for a row an older Worker inserts during a
-- rollout) and are the list each isolate reads once (src/platform/known-services.ts).
ALTER TABLE projects ADD COLUMN id_checked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX projects_unchecked_ids ON projects (service_id) WHERE id_checked = 0;
