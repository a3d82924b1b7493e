-- Mail bodies leave D1 (issue 24): a body over 1 KiB lives in R2 (env.BODIES, key mail/<expiry day>/<service_id>/<uuid>),
-- the row keeps the index and `body_key`; every mail and newsletter send has a lifetime (src/mail/lifetime.ts).
-- Rows written before this migration keep their inline html/text and are read as before; their `expires` stays NULL
-- and means created + 30 days, so no statement here rewrites an existing row.

ALTER TABLE mail_outbox ADD COLUMN body_key TEXT;       -- NULL: html/text are inline; else the R2 key of the body
ALTER TABLE mail_outbox ADD COLUMN body_bytes INTEGER;  -- html + text bytes (NULL before 0014)
ALTER TABLE mail_outbox ADD COLUMN expires INTEGER;     -- when the row and its body leave; NULL: created + 30 days
CREATE INDEX mail_outbox_by_expiry ON mail_outbox (expires, created);

ALTER TABLE newsletter_sends ADD COLUMN body_key TEXT;  -- NULL: the snapshot is inline (or gone once sent); else its R2 key
ALTER TABLE newsletter_sends ADD COLUMN expires INTEGER;
CREATE INDEX newsletter_sends_by_expiry ON newsletter_sends (expires, created);
