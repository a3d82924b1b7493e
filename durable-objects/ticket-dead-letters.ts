/**
 * A ticket's dead letters (extension, docs/api.md "Dead letters"), in its object's SQLite: one row per
 * consumption whose run after the answer ran out of its retry schedule, with the listing's facts and the
 * run's state at the failed action (never listed: a partial replay reads it). Kept for the plan's log
 * retention by the object's `expire-dead-letters` job; their bytes are in the object's storage report.
 */
import type { RunState } from '../src/actions/runner';
import type { TicketDeadLetter, TicketDeadLetterQuery } from '../src/consume/dead-letter';

export const TICKET_DEAD_LETTERS_SCHEMA = `CREATE TABLE IF NOT EXISTS dead_letters (
     consume_id TEXT PRIMARY KEY,
     created INTEGER NOT NULL,
     failed_at INTEGER NOT NULL,
     reason TEXT NOT NULL,
     facts TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS dead_letters_by_time ON dead_letters (failed_at, consume_id);
   CREATE TABLE IF NOT EXISTS dead_letter_state (consume_id TEXT NOT NULL, piece INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (consume_id, piece)) WITHOUT ROWID;`;

/**
 * Characters of a run state per row: a state may hold megabytes (a 1 MiB answer in a Then chain, the
 * request), past the 2 MB a Durable Object's row may hold, so it is kept in pieces of at most 1.5 MB of UTF-8.
 */
const PIECE_CHARS = 500_000;

interface Row extends Record<string, SqlStorageValue> {
  consume_id: string;
  created: number;
  failed_at: number;
  facts: string;
}

const among = (ids: string[] | undefined) => (ids ? 'AND consume_id IN (SELECT value FROM json_each(?))' : '');

const listed = (row: Row): TicketDeadLetter => ({ consume_id: row.consume_id, created: row.created, failed_at: row.failed_at, ...JSON.parse(row.facts) });

export class TicketDeadLetters {
  constructor(
    private readonly sql: SqlStorage,
    /** A dead letter was kept that failed at `failedAt` (the store schedules its expiry). */
    private readonly kept: (failedAt: number) => void,
  ) {}

  add(letter: TicketDeadLetter, state: RunState): void {
    const { consume_id, created, failed_at, ...facts } = letter;
    this.sql.exec(
      `INSERT INTO dead_letters (consume_id, created, failed_at, reason, facts) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (consume_id) DO UPDATE SET failed_at = excluded.failed_at, reason = excluded.reason, facts = excluded.facts`,
      consume_id,
      created,
      failed_at,
      facts.reason,
      JSON.stringify(facts),
    );
    this.sql.exec('DELETE FROM dead_letter_state WHERE consume_id = ?', consume_id);
    const text = JSON.stringify(state);
    for (let at = 0, piece = 0; at < text.length; at += PIECE_CHARS, piece++) {
      this.sql.exec('INSERT INTO dead_letter_state (consume_id, piece, text) VALUES (?, ?, ?)', consume_id, piece, text.slice(at, at + PIECE_CHARS));
    }
    this.kept(failed_at);
  }

  /** A page, newest failure first. */
  page(query: TicketDeadLetterQuery): TicketDeadLetter[] {
    const after = query.after ? 'AND (failed_at < ? OR (failed_at = ? AND consume_id < ?))' : '';
    const reason = query.reason ? 'AND reason = ?' : '';
    return this.sql
      .exec<Row>(
        `SELECT consume_id, created, failed_at, facts FROM dead_letters WHERE failed_at BETWEEN ? AND ? ${reason} ${after}
         ORDER BY failed_at DESC, consume_id DESC LIMIT ?`,
        query.from,
        query.to,
        ...(query.reason ? [query.reason] : []),
        ...(query.after ? [query.after.t, query.after.t, query.after.k] : []),
        query.count,
      )
      .toArray()
      .map(listed);
  }

  /** The run state a partial replay goes on from; undefined when the consumption is not a dead letter. */
  stateOf(consumeId: string): RunState | undefined {
    const pieces = this.sql.exec<{ text: string }>('SELECT text FROM dead_letter_state WHERE consume_id = ? ORDER BY piece', consumeId).toArray();
    return pieces.length > 0 ? (JSON.parse(pieces.map((p) => p.text).join('')) as RunState) : undefined;
  }

  /** Whether the consumption is a dead letter (without reading its state). */
  has(consumeId: string): boolean {
    return this.sql.exec('SELECT 1 FROM dead_letters WHERE consume_id = ?', consumeId).toArray().length > 0;
  }

  /** Dead letters in a time range of failing (among `ids` when given), oldest first, after a cursor (a bulk replay's selection). */
  keysAfter(from: number, to: number, after: { t: number; k: string } | null, count: number, ids?: string[]): { consume_id: string; failed_at: number }[] {
    const cursor = after ? 'AND (failed_at > ? OR (failed_at = ? AND consume_id > ?))' : '';
    return this.sql
      .exec<{ consume_id: string; failed_at: number }>(
        `SELECT consume_id, failed_at FROM dead_letters WHERE failed_at BETWEEN ? AND ? ${among(ids)} ${cursor} ORDER BY failed_at, consume_id LIMIT ?`,
        from,
        to,
        ...(ids ? [JSON.stringify(ids)] : []),
        ...(after ? [after.t, after.t, after.k] : []),
        count,
      )
      .toArray();
  }

  count(from: number, to: number, ids?: string[]): number {
    return this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM dead_letters WHERE failed_at BETWEEN ? AND ? ${among(ids)}`,
        from,
        to,
        ...(ids ? [JSON.stringify(ids)] : []),
      )
      .one().n;
  }

  delete(consumeId: string): boolean {
    this.sql.exec('DELETE FROM dead_letter_state WHERE consume_id = ?', consumeId);
    return this.sql.exec('DELETE FROM dead_letters WHERE consume_id = ?', consumeId).rowsWritten > 0;
  }

  clear(): void {
    this.sql.exec('DELETE FROM dead_letter_state');
    this.sql.exec('DELETE FROM dead_letters');
  }

  /** Deletes up to `batch` dead letters that failed before `before`; answers the oldest failing time left, or null. */
  expire(before: number, batch: number): number | null {
    const expired = 'SELECT consume_id FROM dead_letters WHERE failed_at < ? ORDER BY failed_at LIMIT ?';
    this.sql.exec(`DELETE FROM dead_letter_state WHERE consume_id IN (${expired})`, before, batch);
    this.sql.exec(`DELETE FROM dead_letters WHERE consume_id IN (${expired})`, before, batch);
    return this.sql.exec<{ t: number | null }>('SELECT MIN(failed_at) AS t FROM dead_letters').one().t;
  }
}
