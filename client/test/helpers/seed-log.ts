/**
 * Seeds a ticket's consumption log straight into the local D1 of a running `wrangler dev`
 * (`wrangler d1 execute --local --persist-to`): one INSERT over a recursive CTE writes any number of
 * rows in seconds, where as many consumptions would take hours.
 */
import { spawnWrangler as spawnWranglerJs } from '../../../scripts/local-worker.mjs';

interface WranglerRun {
  child: { exitCode: number | null; once(event: 'exit', listener: (code: number | null) => void): void };
  stop(): Promise<void>;
  output(): string;
}
// scripts/local-worker.mjs is plain JavaScript; this is the part of its signature used here.
const spawnWrangler = spawnWranglerJs as unknown as (args: string[], options?: { quiet?: boolean }) => WranglerRun;

export interface SeededLog {
  serviceId: string;
  ticketId: string;
  rows: number;
  /** Row i (1-based) is at firstTimestamp + i ms: the newest is i = rows. */
  firstTimestamp: number;
  /** Every failedEvery-th row is failed, every checkEvery-th a dry run (log key "<id>:CHK"); the rest ok. */
  failedEvery: number;
  checkEvery: number;
}

/** The consume id of row i, as the SQL writes it. */
export const seededConsumeId = (i: number) => `SEED${String(i).padStart(7, '0')}`;

/** The SQL of a seeded log (ids and numbers only, checked here, so nothing needs quoting). */
export function seedLogSql(log: SeededLog): string {
  for (const id of [log.serviceId, log.ticketId]) if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`unexpected id ${id}`);
  return `INSERT INTO ticket_logs (service_id, ticket_id, log_key, consume_id, user_id, signed, is_check, failed, code, timestamp, description)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${log.rows})
SELECT '${log.serviceId}', '${log.ticketId}',
  printf('SEED%07d', i) || CASE WHEN i % ${log.checkEvery} = 0 THEN ':CHK' ELSE '' END,
  printf('SEED%07d', i), '198.51.100.7(seed)', 0,
  i % ${log.checkEvery} = 0,
  i % ${log.checkEvery} <> 0 AND i % ${log.failedEvery} = 0,
  CASE WHEN i % ${log.checkEvery} <> 0 AND i % ${log.failedEvery} = 0 THEN 'CONDITION_FAILED' END,
  ${log.firstTimestamp} + i,
  json_object('outcome', json_object('ok', json(CASE WHEN i % ${log.checkEvery} <> 0 AND i % ${log.failedEvery} = 0 THEN 'false' ELSE 'true' END)), 'seq', i)
FROM n;`;
}

/** Runs the seed against the D1 under `persistTo`; rejects with wrangler's output when it fails or takes over `timeoutMs`. */
export async function seedLog(persistTo: string, log: SeededLog, timeoutMs = 120_000): Promise<void> {
  const run = spawnWrangler(['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--command', seedLogSql(log)]);
  const code = await new Promise<number | null | 'timeout'>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    run.child.once('exit', (exitCode) => (clearTimeout(timer), resolve(exitCode)));
  });
  if (code !== 0) {
    await run.stop();
    throw new Error(`seeding the log failed (${code}):\n${run.output()}`);
  }
}
