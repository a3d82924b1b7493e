-- Each isolate reads the ticket ids registered since its last read (src/consume/ticket-ids.ts): by project and time.
CREATE INDEX tickets_updated ON tickets (service_id, updated);
