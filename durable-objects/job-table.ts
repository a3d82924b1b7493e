/**
 * The scheduled jobs of a Durable Object, in its own SQLite: one row per job, served by the object's
 * one alarm (job-alarm.ts). A building block any object uses by passing its `ctx.storage.sql`. A payload
 * over PIECE_BYTES (a continuation's state) is stored in pieces beside its row: a row holds at most
 * 2,000,000 bytes.
 */
import { textPieces, utf8Bytes } from '../schemas/utf8';

// A type, not an interface: SQL rows must be assignable to an index signature.
export type Job<K extends string = string> = {
  id: number;
  kind: K;
  run_at: number;
  /** The payload as stored (JSON text); read it with the table's `payloadOf`. */
  payload: string;
};

/** An object's job kinds and the payload each carries, e.g. `{ run: { queue: string }; export: NoPayload }`. */
export type JobPayloads = Record<string, unknown>;
/** The payload of a job that carries nothing (stored as '{}'). */
export type NoPayload = Record<string, never>;
/** The job kinds of a payload map. */
export type KindOf<P extends JobPayloads> = Extract<keyof P, string>;
/** The kinds of a payload map whose jobs carry nothing: they are added without a payload. */
export type EmptyKindOf<P extends JobPayloads> = { [K in KindOf<P>]: P[K] extends NoPayload ? K : never }[KindOf<P>];

/** The table, as the TicketDO's schema step 2 first made it; created here for an object that has none. */
const TABLE = `CREATE TABLE IF NOT EXISTS jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     run_at INTEGER NOT NULL,
     payload TEXT NOT NULL DEFAULT '{}'
   );
   CREATE INDEX IF NOT EXISTS jobs_by_time ON jobs (run_at);
   CREATE TABLE IF NOT EXISTS job_pieces (id INTEGER NOT NULL, piece INTEGER NOT NULL, txt TEXT NOT NULL, PRIMARY KEY (id, piece)) WITHOUT ROWID;
   CREATE TRIGGER IF NOT EXISTS jobs_drop_pieces AFTER DELETE ON jobs BEGIN DELETE FROM job_pieces WHERE id = old.id; END;`;

/**
 * Failed tries of a job (a row only while its last try failed), and the jobs given up after too many:
 * kept to be looked at, never run again (job-alarm.ts). Created here for every object that has a table.
 */
const FAILURES = `CREATE TABLE IF NOT EXISTS job_tries (id INTEGER PRIMARY KEY, tries INTEGER NOT NULL, error TEXT NOT NULL);
   CREATE TRIGGER IF NOT EXISTS jobs_drop_tries AFTER DELETE ON jobs BEGIN DELETE FROM job_tries WHERE id = old.id; END;
   CREATE TABLE IF NOT EXISTS dead_jobs (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, died_at INTEGER NOT NULL, tries INTEGER NOT NULL, error TEXT NOT NULL, payload TEXT NOT NULL);`;

/** A job given up after failing on every try. */
export type DeadJob = { id: number; kind: string; died_at: number; tries: number; error: string; payload: string };

/** The payload a dead job keeps: its start, enough to tell which work it was. */
const DEAD_PAYLOAD_CHARS = 2_000;
/** Dead jobs kept per object: the oldest go past this. */
const DEAD_KEPT = 100;

/** Largest payload kept in the job's own row; the row of a longer one holds '' and the text is in job_pieces. */
const PIECE_BYTES = 1_000_000;
/** The columns a read takes: a payload in pieces joined in SQL would pass the value limit, so it is joined here. */
const COLUMNS = 'id, kind, run_at, payload';

/**
 * The table, typed by its payload map `P`: a payload goes in as its value and is read back by `payloadOf`
 * (the one JSON.parse of a payload); it is stored as JSON text, so `has` compares that text.
 */
export class JobTable<P extends JobPayloads> {
  /** Set when the table changed, so the object re-arms its alarm only then. */
  private changed = true;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(TABLE);
    sql.exec(FAILURES);
  }

  /** Counts a failed try of job `id`; answers the tries so far. */
  failed(id: number, error: string): number {
    return this.sql
      .exec<{ tries: number }>(
        'INSERT INTO job_tries (id, tries, error) VALUES (?, 1, ?) ON CONFLICT (id) DO UPDATE SET tries = tries + 1, error = excluded.error RETURNING tries',
        id,
        error.slice(0, 1_000),
      )
      .one().tries;
  }

  /** A try that worked: the count starts again. */
  succeeded(id: number): void {
    this.sql.exec('DELETE FROM job_tries WHERE id = ?', id);
  }

  /** The jobs whose last try failed (they wait out their backoff). */
  retrying(): Set<number> {
    return new Set(
      this.sql
        .exec<{ id: number }>('SELECT id FROM job_tries')
        .toArray()
        .map((row) => row.id),
    );
  }

  /** Moves job `id` to dead_jobs: never run again, kept to be looked at. */
  bury(job: Job<KindOf<P>>, tries: number, error: string, now: number): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO dead_jobs (id, kind, died_at, tries, error, payload) VALUES (?, ?, ?, ?, ?, ?)',
      job.id,
      job.kind,
      now,
      tries,
      error.slice(0, 1_000),
      job.payload.slice(0, DEAD_PAYLOAD_CHARS),
    );
    this.sql.exec('DELETE FROM dead_jobs WHERE id NOT IN (SELECT id FROM dead_jobs ORDER BY died_at DESC, id DESC LIMIT ?)', DEAD_KEPT);
    this.delete(job.id);
  }

  /** The jobs given up, newest first. */
  dead(): DeadJob[] {
    return this.sql.exec<DeadJob>('SELECT id, kind, died_at, tries, error, payload FROM dead_jobs ORDER BY died_at DESC, id DESC').toArray();
  }

  add(kind: EmptyKindOf<P>, runAt: number): number;
  add<T extends KindOf<P>>(kind: T, runAt: number, payload: P[T]): number;
  add(kind: KindOf<P>, runAt: number, payload?: unknown): number {
    return this.addEncoded(kind, runAt, encode(payload));
  }

  /** Adds a job whose payload is already JSON text of its kind's payload (one the owner's caller encoded). */
  addEncoded(kind: KindOf<P>, runAt: number, payload: string): number {
    this.changed = true;
    const fits = utf8Bytes(payload) <= PIECE_BYTES;
    const { id } = this.sql
      .exec<{ id: number }>('INSERT INTO jobs (kind, run_at, payload) VALUES (?, ?, ?) RETURNING id', kind, runAt, fits ? payload : '')
      .one();
    if (!fits) this.writePieces(id, payload);
    return id;
  }

  private writePieces(id: number, payload: string): void {
    this.sql.exec('DELETE FROM job_pieces WHERE id = ?', id);
    textPieces(payload, PIECE_BYTES).forEach((txt, piece) => this.sql.exec('INSERT INTO job_pieces (id, piece, txt) VALUES (?, ?, ?)', id, piece, txt));
  }

  /** Rows as read, their payloads joined from their pieces where they have some. */
  private joined(rows: Job<KindOf<P>>[]): Job<KindOf<P>>[] {
    for (const row of rows) {
      if (row.payload !== '') continue;
      row.payload = this.sql
        .exec<{ txt: string }>('SELECT txt FROM job_pieces WHERE id = ? ORDER BY piece', row.id)
        .toArray()
        .map((piece) => piece.txt)
        .join('');
    }
    return rows;
  }

  /** Adds a job of this kind unless one is already scheduled (a job that gathers work, like an export). */
  addOnce(kind: EmptyKindOf<P>, runAt: number): void;
  addOnce<T extends KindOf<P>>(kind: T, runAt: number, payload: P[T]): void;
  addOnce(kind: KindOf<P>, runAt: number, value?: unknown): void {
    this.changed = true;
    const payload = encode(value);
    this.sql.exec('INSERT INTO jobs (kind, run_at, payload) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = ?)', kind, runAt, payload, kind);
  }

  /** Whether a job of this kind with exactly this payload is scheduled. */
  has<T extends KindOf<P>>(kind: T, value: P[T]): boolean {
    return this.sql.exec('SELECT 1 FROM jobs WHERE kind = ? AND payload = ? LIMIT 1', kind, encode(value)).toArray().length > 0;
  }

  /** A job's payload as its kind's value. */
  payloadOf<T extends KindOf<P>>(job: Job<T>): P[T] {
    return JSON.parse(job.payload) as P[T];
  }

  /** Saves a job's progress (a continuation's state after each action). */
  update<T extends KindOf<P>>(job: Job<T>, value: P[T]): void {
    const { id } = job;
    const payload = encode(value);
    const fits = utf8Bytes(payload) <= PIECE_BYTES;
    this.sql.exec('UPDATE jobs SET payload = ? WHERE id = ?', fits ? payload : '', id);
    if (fits) this.sql.exec('DELETE FROM job_pieces WHERE id = ?', id);
    else this.writePieces(id, payload);
  }

  reschedule(id: number, runAt: number): void {
    this.changed = true;
    this.sql.exec('UPDATE jobs SET run_at = ? WHERE id = ?', runAt, id);
  }

  delete(id: number): void {
    this.changed = true;
    this.sql.exec('DELETE FROM jobs WHERE id = ?', id);
  }

  deleteKind(kind: KindOf<P>): void {
    this.changed = true;
    this.sql.exec('DELETE FROM jobs WHERE kind = ?', kind);
  }

  get(id: number): Job<KindOf<P>> | null {
    return this.joined(this.sql.exec<Job<KindOf<P>>>(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`, id).toArray())[0] ?? null;
  }

  /** Jobs whose time has come, oldest first. */
  due(now: number): Job<KindOf<P>>[] {
    return this.joined(this.sql.exec<Job<KindOf<P>>>(`SELECT ${COLUMNS} FROM jobs WHERE run_at <= ? ORDER BY run_at, id`, now).toArray());
  }

  all(): Job<KindOf<P>>[] {
    return this.joined(this.sql.exec<Job<KindOf<P>>>(`SELECT ${COLUMNS} FROM jobs ORDER BY run_at, id`).toArray());
  }

  /** When the alarm must next fire for the jobs other than `running` and of no kind in `waiting`; null when none is. */
  nextAt(running: readonly number[] = [], waiting: readonly KindOf<P>[] = []): number | null {
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

/** A payload's stored text: a job that carries nothing stores '{}'. */
const encode = (value: unknown): string => JSON.stringify(value ?? {});
