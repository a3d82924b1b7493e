/**
 * Rows waiting to be written to D1, kept in the object's own SQLite in the order they were added and
 * exported in batches by a job of the object's alarm, so the hot path never waits on D1. A building
 * block any object uses by passing its `ctx.storage.sql` and its JobTable.
 */
import type { Job, JobTable } from './job-table';

export interface OutboxEntry<T> {
  id: number;
  value: T;
}

export interface OutboxOptions<T, K extends string> {
  /** The job kind that exports this outbox. */
  exportKind: K;
  /** Delay before an export, so a burst of rows goes out in one batch. */
  delayMs: number;
  now: () => number;
  /** The stored text of a value (the owner may cut oversized parts here). */
  encode: (value: T) => string;
}

/** Ids rise with insertion order (no AUTOINCREMENT: a new id is still above every id in the table). */
const TABLE = 'CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)';

export class Outbox<T, K extends string> {
  /** true once an export job is known to exist; undefined = look in the table. */
  private exportScheduled?: true;

  constructor(
    private readonly sql: SqlStorage,
    private readonly jobs: JobTable<K>,
    private readonly options: OutboxOptions<T, K>,
  ) {
    sql.exec(TABLE);
  }

  /** Appends a value and makes sure an export is scheduled. */
  add(value: T): void {
    this.sql.exec('INSERT INTO outbox (payload) VALUES (?)', this.options.encode(value));
    if (this.exportScheduled) return;
    this.jobs.addOnce(this.options.exportKind, this.options.now() + this.options.delayMs);
    this.exportScheduled = true;
  }

  pending(limit: number): OutboxEntry<T>[] {
    return this.sql
      .exec<{ id: number; payload: string }>('SELECT id, payload FROM outbox ORDER BY id LIMIT ?', limit)
      .toArray()
      .map((r) => ({ id: r.id, value: JSON.parse(r.payload) as T }));
  }

  /** Drops every entry up to the last one exported (pending reads in id order). */
  dropThrough(lastId: number): void {
    this.sql.exec('DELETE FROM outbox WHERE id <= ?', lastId);
  }

  hasPending(): boolean {
    return this.sql.exec<{ pending: number }>('SELECT EXISTS (SELECT 1 FROM outbox) AS pending').one().pending === 1;
  }

  size(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM outbox').one().n;
  }

  /**
   * The export job's run: writes up to `batch` entries to D1 in one batch and drops them. The job stays
   * due while more wait. `statementsOf` turns the entries, in order, into as few statements as it can
   * (each counts against an invocation's D1 queries); they must be idempotent (a retried export writes
   * each row once). `exported` hears of the values that reached D1.
   */
  async export(
    job: Job<K>,
    db: D1Database,
    statementsOf: (values: T[]) => D1PreparedStatement[],
    batch: number,
    exported?: (values: T[]) => void,
  ): Promise<void> {
    const entries = this.pending(batch);
    if (entries.length > 0) {
      await db.batch(statementsOf(entries.map((entry) => entry.value)));
      this.dropThrough(entries[entries.length - 1].id);
      exported?.(entries.map((entry) => entry.value));
    }
    if (this.hasPending()) this.jobs.reschedule(job.id, this.options.now());
    else {
      this.jobs.delete(job.id);
      this.exportScheduled = undefined;
    }
  }
}
