/**
 * The destination circuits of an object that runs work that can wait (extension, docs/api.md "Pausing a
 * failing destination"), in its SQLite: one row per origin whose circuit is not closed with no failure
 * (src/outbound/circuit.ts decides; this only keeps). A row is read once into a Circuit.
 */
import { probeLost, type Circuit, type PausedDestination } from '../src/outbound/circuit';

/** A schema step of the object that keeps them. */
export const CIRCUITS_SCHEMA = `CREATE TABLE IF NOT EXISTS destination_circuits (
     origin TEXT PRIMARY KEY,
     state TEXT NOT NULL,
     failures INTEGER NOT NULL,
     first_failure_at INTEGER NOT NULL,
     since INTEGER NOT NULL,
     probe_at INTEGER NOT NULL,
     probes_failed INTEGER NOT NULL
   );`;

interface CircuitRow extends Record<string, SqlStorageValue> {
  origin: string;
  state: string;
  failures: number;
  first_failure_at: number;
  since: number;
  probe_at: number;
  probes_failed: number;
}

const COLUMNS = 'origin, state, failures, first_failure_at, since, probe_at, probes_failed';

function circuitOf(row: CircuitRow): Circuit {
  const { failures, since, probes_failed } = row;
  if (row.state === 'open') return { state: 'open', since, failures, probe_at: row.probe_at, probes_failed };
  if (row.state === 'half-open') return { state: 'half-open', since, failures, probe_until: row.probe_at, probes_failed };
  return { state: 'closed', failures, first_failure_at: row.first_failure_at };
}

export class DestinationCircuits {
  constructor(private readonly sql: SqlStorage) {}

  /** The origin's circuit; undefined when it is closed with no failure. */
  get(origin: string): Circuit | undefined {
    const row = this.sql.exec<CircuitRow>(`SELECT ${COLUMNS} FROM destination_circuits WHERE origin = ?`, origin).toArray()[0];
    return row ? circuitOf(row) : undefined;
  }

  /** Keeps the origin's circuit (undefined: closed with no failure, so its row goes). */
  put(origin: string, circuit: Circuit | undefined): void {
    if (!circuit) {
      this.sql.exec('DELETE FROM destination_circuits WHERE origin = ?', origin);
      return;
    }
    const closed = circuit.state === 'closed';
    this.sql.exec(
      `INSERT INTO destination_circuits (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (origin) DO UPDATE SET state = excluded.state, failures = excluded.failures, first_failure_at = excluded.first_failure_at,
         since = excluded.since, probe_at = excluded.probe_at, probes_failed = excluded.probes_failed`,
      origin,
      circuit.state,
      circuit.failures,
      closed ? circuit.first_failure_at : 0,
      closed ? 0 : circuit.since,
      circuit.state === 'open' ? circuit.probe_at : circuit.state === 'half-open' ? circuit.probe_until : 0,
      closed ? 0 : circuit.probes_failed,
    );
  }

  /** The open and half-open circuits, longest paused first, at most `limit`. */
  paused(limit: number): PausedDestination[] {
    return this.sql
      .exec<CircuitRow>(`SELECT ${COLUMNS} FROM destination_circuits WHERE state != 'closed' ORDER BY since, origin LIMIT ?`, limit)
      .toArray()
      .map((row) => ({ origin: row.origin, circuit: circuitOf(row) as PausedDestination['circuit'] }));
  }

  /** Forgets every circuit (the object's work is gone). */
  clear(): void {
    this.sql.exec('DELETE FROM destination_circuits');
  }

  /** A new instance: a probe that was out ran in the instance that stopped, so the next one is due now. */
  releaseProbes(now: number): void {
    const rows = this.sql.exec<CircuitRow>(`SELECT ${COLUMNS} FROM destination_circuits WHERE state = 'half-open'`).toArray();
    for (const row of rows) this.put(row.origin, probeLost(circuitOf(row), now));
  }
}
