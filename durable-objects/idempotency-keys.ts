/**
 * The idempotency keys of a ticket (extension, docs/api.md "Idempotent consumption"), in its object's
 * SQLite: a key is `running` while its first consumption runs (held under a lease, so a run lost with
 * an evicted instance frees it) and `succeeded` with that consumption's answer until the window ends.
 * A failed run deletes its key. Expiry is checked on read; the rows are removed by the object's
 * `expire-idempotency-keys` job, never by a scan on the consumption path.
 */
import type { IdempotencyStore, KeptKey } from '../src/consume/store';

export const IDEMPOTENCY_SCHEMA = `CREATE TABLE IF NOT EXISTS idempotency_keys (
     key TEXT PRIMARY KEY,
     state TEXT NOT NULL,
     consume_id TEXT NOT NULL,
     answer TEXT,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (expires_at);`;

interface KeyRow extends Record<string, SqlStorageValue> {
  state: string;
  consume_id: string;
  answer: string | null;
  expires_at: number;
}

export class IdempotencyKeys implements IdempotencyStore {
  /** `kept`: a key was kept until `expiresAt` (the store schedules the expiry job). */
  constructor(
    private readonly sql: SqlStorage,
    private readonly kept: (expiresAt: number) => void,
  ) {}

  /** The key as kept now; null when it is not kept or its window (or its running lease) has ended. */
  find(key: string, now: number): KeptKey | null {
    const row = this.sql
      .exec<KeyRow>('SELECT state, consume_id, answer, expires_at FROM idempotency_keys WHERE key = ? AND expires_at > ?', key, now)
      .toArray()[0];
    if (!row) return null;
    if (row.state === 'succeeded' && row.answer !== null) return { state: 'succeeded', consumeId: row.consume_id, answer: JSON.parse(row.answer) };
    return { state: 'running', consumeId: row.consume_id, leaseUntil: row.expires_at };
  }

  /** Marks the key as run by this consumption until `leaseUntil` (replacing an expired or failed one). */
  claim(key: string, consumeId: string, leaseUntil: number): void {
    this.sql.exec(
      `INSERT INTO idempotency_keys (key, state, consume_id, answer, expires_at) VALUES (?, 'running', ?, NULL, ?)
       ON CONFLICT (key) DO UPDATE SET state = 'running', consume_id = excluded.consume_id, answer = NULL, expires_at = excluded.expires_at`,
      key,
      consumeId,
      leaseUntil,
    );
  }

  /** The consumption that claimed the key succeeded: its answer is kept until `expiresAt`. */
  keep(key: string, consumeId: string, answer: unknown, expiresAt: number): void {
    this.sql.exec(
      `UPDATE idempotency_keys SET state = 'succeeded', answer = ?, expires_at = ? WHERE key = ? AND consume_id = ?`,
      JSON.stringify(answer),
      expiresAt,
      key,
      consumeId,
    );
    this.kept(expiresAt);
  }

  /** The consumption that claimed the key failed: the key is free again. */
  release(key: string, consumeId: string): void {
    this.sql.exec('DELETE FROM idempotency_keys WHERE key = ? AND consume_id = ?', key, consumeId);
  }

  /** Deletes up to `limit` keys whose window ended; returns when the next one ends (null: none kept). */
  expire(now: number, limit: number): number | null {
    this.sql.exec('DELETE FROM idempotency_keys WHERE key IN (SELECT key FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)', now, limit);
    return this.sql.exec<{ next: number | null }>('SELECT MIN(expires_at) AS next FROM idempotency_keys').one().next;
  }

  /** Every key (the ticket is deleted). */
  clear(): void {
    this.sql.exec('DELETE FROM idempotency_keys');
  }
}
