/**
 * The scheduled jobs of a Durable Object, in its own SQLite: one row per job, served by the object's
 * one alarm (job-alarm.ts). A building block any object uses by passing its `ctx.storage.sql`.
 */

// A type, not an interface: SQL rows must be assignable to an index signature.
export type Job<K extends string = string> = {
  id: number;
  kind: K;
  run_at: number;
  payload: string;
};

/** The table, as the TicketDO's schema step 2 first made it; created here for an object that has none. */
const TABLE = `CREATE TABLE IF NOT EXISTS jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     run_at INTEGER NOT NULL,
     payload TEXT NOT NULL DEFAULT '{}'
   );
   CREATE INDEX IF NOT EXISTS jobs_by_time ON jobs (run_at);`;

export class JobTable<K extends string> {
  /** Set when the table changed, so the object re-arms its alarm only then. */
  private changed = true;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(TABLE);
  }

  add(kind: K, runAt: number, payload = '{}'): number {
    this.changed = true;
    return this.sql.exec<{ id: number }>('INSERT INTO jobs (kind, run_at, payload) VALUES (?, ?, ?) RETURNING id', kind, runAt, payload).one().id;
  }

  /** Adds a job of this kind unless one is already scheduled (a job that gathers work, like an export). */
  addOnce(kind: K, runAt: number, payload = '{}'): void {
    this.changed = true;
    this.sql.exec('INSERT INTO jobs (kind, run_at, payload) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = ?)', kind, runAt, payload, kind);
  }

  /** Whether a job of this kind with exactly this payload is scheduled. */
  has(kind: K, payload: string): boolean {
    return this.sql.exec('SELECT 1 FROM jobs WHERE kind = ? AND payload = ? LIMIT 1', kind, payload).toArray().length > 0;
  }

  /** Saves a job's progress (a continuation's state after each action). */
  update(id: number, payload: string): void {
    this.sql.exec('UPDATE jobs SET payload = ? WHERE id = ?', payload, id);
  }

  reschedule(id: number, runAt: number): void {
    this.changed = true;
    this.sql.exec('UPDATE jobs SET run_at = ? WHERE id = ?', runAt, id);
  }

  delete(id: number): void {
    this.changed = true;
    this.sql.exec('DELETE FROM jobs WHERE id = ?', id);
  }

  deleteKind(kind: K): void {
    this.changed = true;
    this.sql.exec('DELETE FROM jobs WHERE kind = ?', kind);
  }

  get(id: number): Job<K> | null {
    return this.sql.exec<Job<K>>('SELECT id, kind, run_at, payload FROM jobs WHERE id = ?', id).toArray()[0] ?? null;
  }

  /** Jobs whose time has come, oldest first. */
  due(now: number): Job<K>[] {
    return this.sql.exec<Job<K>>('SELECT id, kind, run_at, payload FROM jobs WHERE run_at <= ? ORDER BY run_at, id', now).toArray();
  }

  all(): Job<K>[] {
    return this.sql.exec<Job<K>>('SELECT id, kind, run_at, payload FROM jobs ORDER BY run_at, id').toArray();
  }

  /** When the alarm must next fire for the jobs other than `running` and of no kind in `waiting`; null when none is. */
  nextAt(running: readonly number[] = [], waiting: readonly K[] = []): number | null {
    return this.sql
      .exec<{ at: number | null }>(
        'SELECT MIN(run_at) AS at FROM jobs WHERE id NOT IN (SELECT value FROM json_each(?)) AND kind NOT IN (SELECT value FROM json_each(?))',
        JSON.stringify(running),
        JSON.stringify(waiting),
      )
      .one().at;
  }

  /** Whether the table changed since the last call (the alarm may need to move). */
  takeChanged(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }
}
