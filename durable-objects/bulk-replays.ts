/**
 * A ticket's bulk replays (extension, docs/api.md "Bulk replay"), in its object's SQLite: what the owner
 * asked, where it stands and how it went. At most one runs at a time; the object's `bulk-replay` job
 * takes its next batch at each step (src/consume/bulk-replay.ts paces it).
 */
import type { BulkReplay, ReplayProgress, ReplaySpec } from '../src/consume/bulk-replay';
import type { ReplayState } from '../schemas/bulk-replays';

export const BULK_REPLAYS_SCHEMA = `CREATE TABLE IF NOT EXISTS bulk_replays (
     id INTEGER PRIMARY KEY,
     created_at INTEGER NOT NULL,
     state TEXT NOT NULL,
     finished_at INTEGER,
     total INTEGER NOT NULL,
     spec TEXT NOT NULL,
     progress TEXT NOT NULL
   );`;

/** Replays listed (the newest); older finished ones are deleted as new ones start. */
const KEPT = 50;

interface Row extends Record<string, SqlStorageValue> {
  id: number;
  created_at: number;
  state: string;
  finished_at: number | null;
  total: number;
  spec: string;
  progress: string;
}

const replayOf = (row: Row): BulkReplay => ({
  id: row.id,
  created_at: row.created_at,
  state: row.state as ReplayState,
  finished_at: row.finished_at,
  total: row.total,
  spec: JSON.parse(row.spec) as ReplaySpec,
  progress: JSON.parse(row.progress) as ReplayProgress,
});

const COLUMNS = 'id, created_at, state, finished_at, total, spec, progress';

export class BulkReplays {
  constructor(private readonly sql: SqlStorage) {}

  create(spec: ReplaySpec, total: number, progress: ReplayProgress, now: number): BulkReplay {
    const id = this.sql
      .exec<{ id: number }>(
        `INSERT INTO bulk_replays (created_at, state, total, spec, progress) VALUES (?, 'running', ?, ?, ?) RETURNING id`,
        now,
        total,
        JSON.stringify(spec),
        JSON.stringify(progress),
      )
      .one().id;
    this.sql.exec(`DELETE FROM bulk_replays WHERE state != 'running' AND id NOT IN (SELECT id FROM bulk_replays ORDER BY id DESC LIMIT ?)`, KEPT);
    return this.get(id) as BulkReplay;
  }

  get(id: number): BulkReplay | undefined {
    const row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM bulk_replays WHERE id = ?`, id).toArray()[0];
    return row ? replayOf(row) : undefined;
  }

  /** The one running, if any. */
  running(): BulkReplay | undefined {
    const row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM bulk_replays WHERE state = 'running' LIMIT 1`).toArray()[0];
    return row ? replayOf(row) : undefined;
  }

  /** The newest first. */
  list(): BulkReplay[] {
    return this.sql.exec<Row>(`SELECT ${COLUMNS} FROM bulk_replays ORDER BY id DESC LIMIT ?`, KEPT).toArray().map(replayOf);
  }

  /** Saves a step's progress; `ended` sets the final state. */
  save(id: number, progress: ReplayProgress, ended?: { state: Exclude<ReplayState, 'running'>; at: number }): void {
    this.sql.exec(
      `UPDATE bulk_replays SET progress = ?, state = COALESCE(?, state), finished_at = COALESCE(?, finished_at) WHERE id = ?`,
      JSON.stringify(progress),
      ended?.state ?? null,
      ended?.at ?? null,
      id,
    );
  }

  /** The ticket was deleted: a running replay ends as cancelled. */
  cancelAll(now: number): void {
    this.sql.exec(`UPDATE bulk_replays SET state = 'cancelled', finished_at = ? WHERE state = 'running'`, now);
  }
}
