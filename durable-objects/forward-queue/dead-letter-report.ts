/**
 * Dead letters in the storage quota (issue 36 item 3, an extension): what the caller's dead letters hold in
 * its history (rows, and their bodies beside them or in their segment), reported to D1's `project_storage`
 * as one part per caller, by a job of the object's alarm when a dead letter was kept or rows were swept.
 * The same job keeps each dead letter for the project's plan's log retention (free 30 days, standard 90,
 * premium until deleted) instead of the history's 30 days (a caller's own `expires` stays as asked),
 * reading the plan off the request path.
 */
import type { HistoryOwner } from '../../src/forward/history';
import { retentionDays } from '../../src/ticket-log/retention';
import { HISTORY_LIFETIME_DAYS } from '../../src/forward/history-cleanup';
import { deadLetterStoragePart, reportStorage } from '../../src/platform/project-storage';
import type { Job } from '../job-table';
import type { ForwardJobTable } from './forward-jobs';

/** A row's own columns besides its texts (ids, times, status, the url counted apart). */
const ROW_BYTES = 100;
const SIDE_BYTES = `(SELECT length(coalesce(b.request_body, '')) + length(coalesce(b.response_body, '')) + length(coalesce(b.request_headers, ''))
  FROM forward_bodies AS b WHERE b.service_id = f.service_id AND b.caller_key = f.caller_key AND b.method = f.method AND b.url = f.url AND b.id = f.id)`;
const DEAD_LETTER_BYTES_SQL = `SELECT COALESCE(SUM(${ROW_BYTES} + length(f.url) + length(coalesce(f.request_body, '')) + length(coalesce(f.response_body, ''))
  + length(coalesce(f.request_headers, '')) + length(coalesce(f.error, '')) + length(coalesce(f.attempts, '')) + coalesce(f.body_len, 0)
  + coalesce(${SIDE_BYTES}, 0)), 0) AS bytes FROM forward_requests AS f WHERE f.dead_letter IS NOT NULL`;
const REPORTED = 'dead_letter_bytes';
const DAY_MS = 86_400_000;
/** A row kept until deleted: the sweep never reaches it. */
const KEPT_UNTIL_DELETED = Number.MAX_SAFE_INTEGER;

export class DeadLetterReport {
  constructor(
    private readonly sql: SqlStorage,
    private readonly db: D1Database,
    private readonly jobs: ForwardJobTable,
  ) {}

  /** A dead letter was kept, or rows holding some were swept: the report is due (one job at a time). */
  changed(owner: HistoryOwner): void {
    const payload = { serviceId: owner.serviceId, callerKey: owner.callerKey };
    if (!this.jobs.has('report-dead-letters', payload)) this.jobs.add('report-dead-letters', Date.now(), payload);
  }

  /** Rows were swept: the report is due when the last one counted dead letters. */
  swept(owner: HistoryOwner): void {
    if (this.reported() > 0) this.changed(owner);
  }

  async run(job: Job<'report-dead-letters'>): Promise<void> {
    const owner = this.jobs.payloadOf(job);
    await this.keepForPlan(owner.serviceId);
    const bytes = this.bytes();
    if (bytes !== this.reported()) {
      await reportStorage(this.db, owner.serviceId, deadLetterStoragePart(owner.callerKey), bytes, Date.now());
      this.sql.exec('INSERT OR REPLACE INTO caller_meta (name, value) VALUES (?, ?)', REPORTED, bytes);
    }
    // A dead letter kept while D1 was written found this job due and added none: it runs again.
    if (this.bytes() === bytes) this.jobs.delete(job.id);
    else this.jobs.reschedule(job.id, Date.now());
  }

  /** Dead letters (and the segments holding their bodies) expire at their plan's retention after they failed, never sooner. */
  private async keepForPlan(serviceId: string): Promise<void> {
    const project = await this.db.prepare('SELECT plan FROM projects WHERE service_id = ?').bind(serviceId).first<{ plan: string }>();
    if (!project) return;
    const days = retentionDays(project.plan);
    const until = days === null ? `${KEPT_UNTIL_DELETED}` : `updated + ${days * DAY_MS}`;
    // A caller's own `expires` (the spec's) is kept: only a row on the history's default lifetime is extended.
    this.sql.exec(
      `UPDATE forward_requests SET expires_at = ${until} WHERE dead_letter IS NOT NULL AND expires_at = updated + ${HISTORY_LIFETIME_DAYS * DAY_MS} AND expires_at < ${until}`,
    );
    this.sql.exec(
      `UPDATE forward_segments SET expires_at = (SELECT MAX(f.expires_at) FROM forward_requests AS f WHERE f.body_segment = forward_segments.key)
       WHERE key IN (SELECT body_segment FROM forward_requests WHERE dead_letter IS NOT NULL AND body_segment IS NOT NULL)
         AND expires_at < (SELECT MAX(f.expires_at) FROM forward_requests AS f WHERE f.body_segment = forward_segments.key)`,
    );
  }

  private bytes(): number {
    return this.sql.exec<{ bytes: number }>(DEAD_LETTER_BYTES_SQL).one().bytes;
  }

  private reported(): number {
    return this.sql.exec<{ value: number }>('SELECT value FROM caller_meta WHERE name = ?', REPORTED).toArray()[0]?.value ?? 0;
  }
}
