import type { StoredTicket } from '../schemas/ticket-types';
import type { ActionRow, LogRow } from '../src/consume/types';
import { migrateSchema } from './schema';

const SCHEMA = [
  `CREATE TABLE ticket (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     definition TEXT NOT NULL,
     remaining INTEGER,
     updated INTEGER NOT NULL
   );
   CREATE TABLE user_usage (user_id TEXT PRIMARY KEY, used INTEGER NOT NULL);
   CREATE TABLE outbox (log_key TEXT PRIMARY KEY, row TEXT NOT NULL, action_rows TEXT NOT NULL);`,
];

/** The TicketDO's SQLite tables: definition, remaining count, per-user usage, log outbox. */
export class TicketStore {
  private cached?: { ticket: StoredTicket } | null;

  constructor(private readonly sql: SqlStorage) {
    migrateSchema(sql, SCHEMA);
  }

  /** The definition, kept in memory after the first read (the object is its only writer). */
  ticket(): StoredTicket | null {
    if (this.cached === undefined) {
      const row = this.sql.exec<{ definition: string }>('SELECT definition FROM ticket').toArray()[0];
      this.cached = row ? { ticket: JSON.parse(row.definition) } : null;
    }
    return this.cached?.ticket ?? null;
  }

  remaining(): number | null {
    return this.sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').toArray()[0]?.remaining ?? null;
  }

  /** Writes the definition; count undefined keeps the current remaining count. */
  store(ticket: StoredTicket, count: number | null | undefined, now: number): number | null {
    const exists = this.ticket() !== null;
    const remaining = count === undefined ? (exists ? this.remaining() : null) : count;
    this.sql.exec(
      `INSERT INTO ticket (id, definition, remaining, updated) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET definition = excluded.definition, remaining = excluded.remaining, updated = excluded.updated`,
      JSON.stringify(ticket),
      remaining,
      now,
    );
    this.cached = { ticket };
    return remaining;
  }

  /** Deletes the definition and the per-user counters; the outbox still drains to the log. */
  remove(): boolean {
    const existed = this.ticket() !== null;
    this.sql.exec('DELETE FROM ticket');
    this.sql.exec('DELETE FROM user_usage');
    this.cached = null;
    return existed;
  }

  userUsed(userId: string): number {
    return this.sql.exec<{ used: number }>('SELECT used FROM user_usage WHERE user_id = ?', userId).toArray()[0]?.used ?? 0;
  }

  /** Moves one unit of the count (delta -1 reserves, +1 gives back); unlimited stays unlimited. */
  adjustRemaining(delta: number): void {
    this.sql.exec('UPDATE ticket SET remaining = remaining + ? WHERE remaining IS NOT NULL', delta);
  }

  adjustUserUsage(userId: string, delta: number): void {
    this.sql.exec(
      `INSERT INTO user_usage (user_id, used) VALUES (?, MAX(?, 0))
       ON CONFLICT (user_id) DO UPDATE SET used = MAX(used + ?, 0)`,
      userId,
      delta,
      delta,
    );
  }

  enqueueLog(row: LogRow, actionRows: ActionRow[]): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO outbox (log_key, row, action_rows) VALUES (?, ?, ?)',
      row.log_key,
      JSON.stringify(row),
      JSON.stringify(actionRows),
    );
  }

  pendingLogs(limit: number): { row: LogRow; actionRows: ActionRow[] }[] {
    return this.sql
      .exec<{ row: string; action_rows: string }>('SELECT row, action_rows FROM outbox ORDER BY rowid LIMIT ?', limit)
      .toArray()
      .map((r) => ({ row: JSON.parse(r.row), actionRows: JSON.parse(r.action_rows) }));
  }

  dropLogs(keys: string[]): void {
    for (const key of keys) this.sql.exec('DELETE FROM outbox WHERE log_key = ?', key);
  }

  outboxSize(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM outbox').one().n;
  }
}
