/**
 * Rows waiting to be written to D1, kept in the object's own SQLite in the order they were added and
 * exported in batches by a job of the object's alarm, so the hot path never waits on D1. A building
 * block any object uses by passing its `ctx.storage.sql` and its JobTable.
 */
import { textPieces, utf8Bytes } from '../schemas/utf8';
import type { EmptyKindOf, Job, JobPayloads, JobTable, KindOf } from './job-table';

export interface OutboxEntry<T> {
  id: number;
  value: T;
}

export interface OutboxOptions<T, P extends JobPayloads> {
  /** The job kind that exports this outbox (it carries no payload). */
  exportKind: EmptyKindOf<P>;
  /** Delay before an export, so a burst of rows goes out in one batch. */
  delayMs: number;
  now: () => number;
  /** The stored text of a value (the owner may cut oversized parts here). */
  encode: (value: T) => string;
}

/**
 * Ids rise with insertion order (no AUTOINCREMENT: a new id is still above every id in the table). A payload
 * over PIECE_BYTES is stored as '' in `outbox` and in pieces in `outbox_pieces`; an entry that can never be
 * written goes to `dead_letters` (its pieces in order, the error on piece 0).
 */
const TABLES = `CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS outbox_pieces (id INTEGER NOT NULL, piece INTEGER NOT NULL, txt TEXT NOT NULL, PRIMARY KEY (id, piece)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS dead_letters (id INTEGER NOT NULL, piece INTEGER NOT NULL, at INTEGER NOT NULL, error TEXT, txt TEXT NOT NULL, PRIMARY KEY (id, piece)) WITHOUT ROWID;`;

/** Largest payload kept in one row (a row holds at most 2,000,000 bytes). */
/** Where an export writes: D1, or a caller's own history (durable-objects/sql-database.ts). */
export interface BatchTarget<S> {
  batch(statements: S[]): Promise<unknown>;
}

export const PIECE_BYTES = 1_000_000;

/**
 * Whether an error says the statements can never be written as they are: a value, row, statement or its
 * parameters over their limit (strict mode's `SQL …` breaches, or D1's own refusal). A per-invocation
 * limit (D1 queries, subrequests) is not one: the next invocation has a fresh budget.
 */
export function neverFits(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const limit = (error as { limit?: unknown }).limit;
  if (error.name === 'LimitBreach') return typeof limit === 'string' && limit.startsWith('SQL ');
  return /string or blob too big|SQLITE_TOOBIG|too many SQL variables|statement too long/i.test(error.message);
}

export class Outbox<T, P extends JobPayloads> {
  /** true once an export job is known to exist; undefined = look in the table. */
  private exportScheduled?: true;

  constructor(
    private readonly sql: SqlStorage,
    private readonly jobs: JobTable<P>,
    private readonly options: OutboxOptions<T, P>,
  ) {
    sql.exec(TABLES);
  }

  /** Appends a value and makes sure an export is scheduled. */
  add(value: T): void {
    const payload = this.options.encode(value);
    if (utf8Bytes(payload) <= PIECE_BYTES) this.sql.exec('INSERT INTO outbox (payload) VALUES (?)', payload);
    else {
      const { id } = this.sql.exec<{ id: number }>("INSERT INTO outbox (payload) VALUES ('') RETURNING id").one();
      textPieces(payload, PIECE_BYTES).forEach((txt, piece) => this.sql.exec('INSERT INTO outbox_pieces (id, piece, txt) VALUES (?, ?, ?)', id, piece, txt));
    }
    if (this.exportScheduled) return;
    this.jobs.addOnce(this.options.exportKind, this.options.now() + this.options.delayMs);
    this.exportScheduled = true;
  }

  pending(limit: number): OutboxEntry<T>[] {
    return this.sql
      .exec<{ id: number; payload: string }>('SELECT id, payload FROM outbox ORDER BY id LIMIT ?', limit)
      .toArray()
      .map((r) => ({ id: r.id, value: JSON.parse(r.payload === '' ? this.joined(r.id) : r.payload) as T }));
  }

  private joined(id: number): string {
    return this.sql
      .exec<{ txt: string }>('SELECT txt FROM outbox_pieces WHERE id = ? ORDER BY piece', id)
      .toArray()
      .map((row) => row.txt)
      .join('');
  }

  /** Drops every entry up to the last one exported (pending reads in id order). */
  dropThrough(lastId: number): void {
    this.sql.exec('DELETE FROM outbox WHERE id <= ?', lastId);
    this.sql.exec('DELETE FROM outbox_pieces WHERE id <= ?', lastId);
  }

  /** The entries set aside as never writable: id, when, the error, and the payload as stored. */
  deadLetters(): Array<{ id: number; at: number; error: string; payload: string }> {
    const rows = this.sql
      .exec<{ id: number; at: number; error: string | null; txt: string }>('SELECT id, at, error, txt FROM dead_letters ORDER BY id, piece')
      .toArray();
    const letters: Array<{ id: number; at: number; error: string; payload: string }> = [];
    for (const row of rows) {
      const last = letters[letters.length - 1];
      if (last?.id === row.id) last.payload += row.txt;
      else letters.push({ id: row.id, at: row.at, error: row.error ?? '', payload: row.txt });
    }
    return letters;
  }

  /** Moves one entry to dead_letters (kept to be looked at, never retried) and says so in the log. */
  private deadLetter(entry: OutboxEntry<T>, error: unknown): void {
    const at = this.options.now();
    const message = error instanceof Error ? error.message : String(error);
    this.sql.exec(
      `INSERT INTO dead_letters (id, piece, at, error, txt)
       SELECT id, 0, ?, ?, payload FROM outbox WHERE id = ? AND payload <> ''
       UNION ALL SELECT id, piece, ?, CASE WHEN piece = 0 THEN ? END, txt FROM outbox_pieces WHERE id = ?`,
      at,
      message,
      entry.id,
      at,
      message,
      entry.id,
    );
    this.sql.exec('DELETE FROM outbox WHERE id = ?', entry.id);
    this.sql.exec('DELETE FROM outbox_pieces WHERE id = ?', entry.id);
    console.error(`outbox: entry ${entry.id} (${this.options.exportKind}) can never be written and was dead-lettered: ${message}`);
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
   * each row once). `exported` hears of the values that reached D1. A batch refused because something in it
   * can never fit (see neverFits) is split in halves, in order, down to the single entry, which is
   * dead-lettered while the rest goes through; any other failure leaves the batch for the next run.
   */
  async export<S>(
    job: Job<KindOf<P>>,
    db: BatchTarget<S>,
    statementsOf: (values: T[]) => S[] | Promise<S[]>,
    batch: number,
    exported?: (values: T[]) => void,
  ): Promise<void> {
    const entries = this.pending(batch);
    if (entries.length > 0) await this.write(entries, db, statementsOf, exported);
    if (this.hasPending()) this.jobs.reschedule(job.id, this.options.now());
    else {
      this.jobs.delete(job.id);
      this.exportScheduled = undefined;
    }
  }

  private async write<S>(
    entries: OutboxEntry<T>[],
    db: BatchTarget<S>,
    statementsOf: (values: T[]) => S[] | Promise<S[]>,
    exported?: (values: T[]) => void,
  ): Promise<void> {
    try {
      const statements = await statementsOf(entries.map((entry) => entry.value));
      if (statements.length > 0) await db.batch(statements);
    } catch (error) {
      if (!neverFits(error)) throw error;
      if (entries.length === 1) {
        this.deadLetter(entries[0], error);
        return;
      }
      const half = Math.ceil(entries.length / 2);
      await this.write(entries.slice(0, half), db, statementsOf, exported);
      await this.write(entries.slice(half), db, statementsOf, exported);
      return;
    }
    this.dropThrough(entries[entries.length - 1].id);
    exported?.(entries.map((entry) => entry.value));
  }
}
