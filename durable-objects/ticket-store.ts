import type { StoredTicket } from '../schemas/ticket-types';
import type { ConsumeStore, Reservation } from '../src/consume/store';
import type { ActionRow } from '../src/actions/types';
import type { LogRow } from '../src/ticket-log/log-row';
import { encodeExport, type LogExport } from '../src/ticket-log/log-export';
import type { ContinuationJob } from '../src/consume/continuation';
import { JobTable, type KindOf, type NoPayload } from './job-table';
import { Outbox } from './outbox';
import { IDEMPOTENCY_SCHEMA, IdempotencyKeys } from './idempotency-keys';
import { CIRCUITS_SCHEMA } from './destination-circuits';
import { migrateSchema } from './schema';
import { LOG_SAMPLING_SCHEMA, LogSampler, SAMPLING_FLUSH_MS } from '../src/ticket-log/log-sampler';
import { TICKET_LOG_SCHEMA, TicketLog, type LogScope } from '../src/ticket-log/ticket-log';
import { retentionDays } from '../src/ticket-log/retention';
import { TICKET_DEAD_LETTERS_SCHEMA, TicketDeadLetters } from './ticket-dead-letters';
import { BULK_REPLAYS_SCHEMA, BulkReplays } from './bulk-replays';
import { TICKET_METRICS_SCHEMA, TicketMetrics } from './ticket-metrics';
import { consumptionCounters, laterFailureCounters, type Counters } from '../src/metrics/counters';

const SCHEMA = [
  `CREATE TABLE ticket (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     definition TEXT NOT NULL,
     remaining INTEGER,
     updated INTEGER NOT NULL
   );
   CREATE TABLE user_usage (user_id TEXT PRIMARY KEY, used INTEGER NOT NULL);
   CREATE TABLE outbox (log_key TEXT PRIMARY KEY, row TEXT NOT NULL, action_rows TEXT NOT NULL);`,
  // The outbox by insertion order, so a run that goes on after resp can close its log row later
  // (final = 1: the row replaces the one logged when the caller was answered); and the scheduled
  // jobs one alarm serves: the log export and the continuations of runs that go on after resp.
  `CREATE TABLE log_outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     log_key TEXT NOT NULL,
     row TEXT NOT NULL,
     action_rows TEXT NOT NULL,
     final INTEGER NOT NULL DEFAULT 0
   );
   INSERT INTO log_outbox (log_key, row, action_rows) SELECT log_key, row, action_rows FROM outbox ORDER BY rowid;
   DROP TABLE outbox;
   CREATE TABLE jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     run_at INTEGER NOT NULL,
     payload TEXT NOT NULL DEFAULT '{}'
   );
   CREATE INDEX jobs_by_time ON jobs (run_at);
   INSERT INTO jobs (kind, run_at) SELECT 'export-logs', 0 WHERE EXISTS (SELECT 1 FROM log_outbox);`,
  // The outbox without AUTOINCREMENT: a new id is still above every id in the table (insertion
  // order holds), and a consumption no longer writes the sqlite_sequence page.
  `CREATE TABLE log_outbox_v3 (
     id INTEGER PRIMARY KEY,
     log_key TEXT NOT NULL,
     row TEXT NOT NULL,
     action_rows TEXT NOT NULL,
     final INTEGER NOT NULL DEFAULT 0
   );
   INSERT INTO log_outbox_v3 (id, log_key, row, action_rows, final) SELECT id, log_key, row, action_rows, final FROM log_outbox;
   DROP TABLE log_outbox;
   ALTER TABLE log_outbox_v3 RENAME TO log_outbox;`,
  // Generations of the count and of the per-user counters (see Reservation): a continuation keeps
  // its reservation across evictions, so they outlive the instance.
  `CREATE TABLE generations (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     count_generation INTEGER NOT NULL,
     usage_generation INTEGER NOT NULL
   );
   INSERT INTO generations VALUES (1, 0, 0);`,
  // The log outbox becomes the shared Outbox part's table: one JSON payload per entry, same ids.
  `CREATE TABLE outbox (id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
   INSERT INTO outbox (id, payload)
     SELECT id, '{"row":' || row || ',"actionRows":' || action_rows || ',"final":' || (CASE final WHEN 1 THEN 'true' ELSE 'false' END) || '}'
     FROM log_outbox ORDER BY id;
   DROP TABLE log_outbox;`,
  // The log itself moves here (issue 24): an index row per consumption, bodies here or in R2 segments.
  // The outbox now carries signed-in consumptions to D1's per-user index; entries it still holds in
  // the old shape go to D1's ticket_logs as before, and the log takes them in from there.
  TICKET_LOG_SCHEMA,
  // Failed consumptions and dry runs past a rate are counted, not kept whole (issue 26 item 2), with the per-minute counts.
  LOG_SAMPLING_SCHEMA,
  // Idempotent consumption (issue 36 item 5): the keys a ticket's consumptions carried, with their first answers.
  IDEMPOTENCY_SCHEMA,
  // Dead letters and bulk replays (issue 36 items 3 and 4); the log index gains each entry's error code, so
  // a replay by code is selected from the index (entries logged before have none and are judged when read).
  `${TICKET_DEAD_LETTERS_SCHEMA}
   ${BULK_REPLAYS_SCHEMA}
   ALTER TABLE log ADD COLUMN code TEXT;`,
  // Pausing a failing destination (issue 36 item 6): the circuit of each origin the ticket's scheduled runs send to.
  CIRCUITS_SCHEMA,
  // Metrics over time (issue 37 item 1): counts not yet pushed to D1, and the failures in a row.
  TICKET_METRICS_SCHEMA,
];

const DAY_MS = 86_400_000;

/** Delay before the outbox is exported, so a burst of consumptions goes out in one batch. */
export const LOG_EXPORT_DELAY_MS = 200;

/** Which ticket a log belongs to, without its plan. */
export type LogRef = Pick<LogScope, 'service_id' | 'ticket_id'>;

/** The TicketDO's job kinds and the payload each carries. */
export type TicketJobs = {
  'export-logs': NoPayload;
  continuation: ContinuationJob;
  'compact-logs': NoPayload;
  'clear-log': { before: number; scope: LogScope };
  'take-in-logs': LogRef | LogScope;
  'flush-sampling': NoPayload;
  'expire-idempotency-keys': NoPayload;
  'expire-dead-letters': NoPayload;
  'bulk-replay': { id: number };
  /** The ticket's paused destinations to D1 (durable-objects/ticket-circuits.ts). */
  'report-circuits': LogRef;
  /** Held metric counts to storage; pending ones to D1 (durable-objects/ticket-metrics.ts). */
  'flush-metrics': NoPayload;
  'report-metrics': NoPayload;
};
export type TicketJobKind = KindOf<TicketJobs>;

/**
 * The TicketDO's SQLite: the definition, remaining count, per-user usage and their generations, with
 * the shared parts for the scheduled jobs and the log outbox. The object is the only writer, so what
 * it has read once is kept in memory (a failed write resets the object, memory included).
 */
export class TicketStore implements ConsumeStore {
  readonly jobs: JobTable<TicketJobs>;
  readonly outbox: Outbox<LogExport, TicketJobs>;
  readonly log: TicketLog;
  readonly sampler: LogSampler;
  readonly idempotency: IdempotencyKeys;
  readonly deadLetters: TicketDeadLetters;
  readonly replays: BulkReplays;
  readonly metrics: TicketMetrics;
  private cached?: { ticket: StoredTicket } | null;
  /** undefined until read; null = unlimited. */
  private cachedRemaining?: number | null;
  /** The generations table, read once (undefined until then). */
  private cachedGenerations?: { count: number; usage: number };
  /** A compact-logs job is in the table (set by scheduleCompaction, cleared after each of its steps; false after an eviction). */
  private compactionScheduled = false;

  constructor(
    private readonly sql: SqlStorage,
    bucket: R2Bucket,
    private readonly now: () => number = Date.now,
  ) {
    migrateSchema(sql, SCHEMA);
    this.jobs = new JobTable(sql);
    this.outbox = new Outbox(sql, this.jobs, { exportKind: 'export-logs', delayMs: LOG_EXPORT_DELAY_MS, now, encode: encodeExport });
    this.log = new TicketLog(sql, bucket, now);
    this.sampler = new LogSampler(sql, this.log, () => this.jobs.addOnce('flush-sampling', this.now() + SAMPLING_FLUSH_MS));
    this.idempotency = new IdempotencyKeys(sql, (expiresAt) => this.jobs.addOnce('expire-idempotency-keys', expiresAt));
    this.deadLetters = new TicketDeadLetters(sql, (failedAt) => {
      const days = this.deadLetterDays();
      if (days !== null) this.jobs.addOnce('expire-dead-letters', failedAt + days * DAY_MS);
    });
    this.replays = new BulkReplays(sql);
    this.metrics = new TicketMetrics(
      sql,
      { flush: (at) => this.jobs.addOnce('flush-metrics', at), report: (at) => this.jobs.addOnce('report-metrics', at) },
      now,
    );
  }

  /** Dead letters are kept for the plan's log retention (null: until cleared). */
  deadLetterDays(): number | null {
    const plan = this.log.scope()?.plan;
    return plan === undefined ? null : retentionDays(plan);
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
    if (this.cachedRemaining === undefined) {
      this.cachedRemaining = this.sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').toArray()[0]?.remaining ?? null;
    }
    return this.cachedRemaining;
  }

  /**
   * Writes the definition; count undefined keeps the current remaining count. A count written here is
   * what the owner allows from now on: units reserved before it are not given back into it.
   */
  store(ticket: StoredTicket, count: number | null | undefined, now: number): number | null {
    const exists = this.ticket() !== null;
    const remaining = count === undefined ? (exists ? this.remaining() : null) : count;
    if (count !== undefined) this.moveGenerations(true, false);
    this.sql.exec(
      `INSERT INTO ticket (id, definition, remaining, updated) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET definition = excluded.definition, remaining = excluded.remaining, updated = excluded.updated`,
      JSON.stringify(ticket),
      remaining,
      now,
    );
    this.cached = { ticket };
    this.cachedRemaining = remaining;
    return remaining;
  }

  /**
   * Deletes the definition, the per-user counters and the runs waiting to go on after resp; the
   * outbox still drains to the log.
   */
  remove(): boolean {
    const existed = this.ticket() !== null;
    this.sql.exec('DELETE FROM ticket');
    this.sql.exec('DELETE FROM user_usage');
    this.jobs.deleteKind('continuation');
    this.jobs.deleteKind('bulk-replay');
    this.idempotency.clear();
    this.deadLetters.clear();
    this.replays.cancelAll(this.now());
    this.log.releaseOpen();
    this.cached = null;
    this.cachedRemaining = null;
    this.moveGenerations(true, true);
    return existed;
  }

  userUsed(userId: string): number {
    return this.sql.exec<{ used: number }>('SELECT used FROM user_usage WHERE user_id = ?', userId).toArray()[0]?.used ?? 0;
  }

  /** Takes one unit of the count (unlimited stays unlimited) and, for a signed-in user, of their limit. */
  reserve(userId: string | undefined): Reservation {
    const generations = this.generations();
    this.adjustRemaining(-1);
    if (userId === undefined) return { countGeneration: generations.count };
    this.adjustUserUsage(userId, 1);
    return { countGeneration: generations.count, usage: { userId, generation: generations.usage } };
  }

  /** Gives back the units of a failed run, each only if what it was taken from has not been replaced since. */
  release(reservation: Reservation): void {
    const generations = this.generations();
    if (reservation.countGeneration === generations.count) this.adjustRemaining(1);
    const { usage } = reservation;
    if (usage && usage.generation === generations.usage) this.adjustUserUsage(usage.userId, -1);
  }

  /** The count moves to a new generation when a registration writes it or the ticket is deleted; the per-user counters when deleted. */
  private generations(): { count: number; usage: number } {
    this.cachedGenerations ??= this.sql
      .exec<{ count: number; usage: number }>('SELECT count_generation AS count, usage_generation AS usage FROM generations')
      .one();
    return this.cachedGenerations;
  }

  private moveGenerations(count: boolean, usage: boolean): void {
    const current = this.generations();
    const next = { count: current.count + (count ? 1 : 0), usage: current.usage + (usage ? 1 : 0) };
    this.sql.exec('UPDATE generations SET count_generation = ?, usage_generation = ?', next.count, next.usage);
    this.cachedGenerations = next;
  }

  private adjustRemaining(delta: number): void {
    const remaining = this.remaining();
    if (remaining === null) return;
    this.sql.exec('UPDATE ticket SET remaining = remaining + ?', delta);
    this.cachedRemaining = remaining + delta;
  }

  private adjustUserUsage(userId: string, delta: number): void {
    this.sql.exec(
      `INSERT INTO user_usage (user_id, used) VALUES (?, MAX(?, 0))
       ON CONFLICT (user_id) DO UPDATE SET used = MAX(used + ?, 0)`,
      userId,
      delta,
      delta,
    );
  }

  /** Writes the entry into the log (or counts it, past the rate of its kind); a signed-in consumption also goes to D1's per-user index. */
  enqueueLog(row: LogRow, actionRows: ActionRow[], final = false): void {
    this.countInMetrics(row, final);
    if (!final && !this.sampler.keep(row, actionRows)) return;
    if (this.log.write(row, actionRows, final)) this.scheduleCompaction();
    if (!final && row.signed && !row.is_check) {
      this.outbox.add({
        consumed: { service_id: row.service_id, user_id: row.user_id, timestamp: row.timestamp, ticket_id: row.ticket_id, log_key: row.log_key },
      });
    }
  }

  /** Adds to the ticket's metrics (once it has consumed: its log knows which ticket it is). */
  countMetric(at: number, counters: Counters): void {
    const scope = this.log.scope();
    if (scope) this.metrics.count(scope.ticket_id, at, counters);
  }

  /**
   * Every entry counts, kept whole or sampled. A run that went on after its answer was counted a success
   * then; should its closing row fail, it moves to the failures of its own minute.
   */
  private countInMetrics(row: LogRow, final: boolean): void {
    if (final) {
      if (row.failed && !row.is_check) {
        this.metrics.count(row.ticket_id, row.timestamp, laterFailureCounters(row.code));
        this.metrics.outcome(true);
      }
      return;
    }
    const duplicate = row.description.duplicate_of !== undefined;
    const ms = row.duration_ms ?? this.now() - row.timestamp;
    this.metrics.count(row.ticket_id, row.timestamp, consumptionCounters({ check: row.is_check, duplicate, failed: row.failed, code: row.code, ms }));
    if (!row.is_check && !duplicate) this.metrics.outcome(row.failed);
  }

  updateOpenLog(row: LogRow, actionRows: ActionRow[]): void {
    this.log.write(row, actionRows, true, true);
  }

  /**
   * Packs bodies into a segment soon (a burst goes out together). While the job is known to be in the
   * table, a consumption past the segment's size writes nothing (no `addOnce`, no re-arming of the alarm).
   */
  scheduleCompaction(): void {
    if (this.compactionScheduled) return;
    this.jobs.addOnce('compact-logs', this.now() + LOG_EXPORT_DELAY_MS);
    this.compactionScheduled = true;
  }

  /** The compaction job ran a step, or was given up: the next consumption past the size schedules it again if need be. */
  compactionSettled(): void {
    this.compactionScheduled = false;
  }

  /** `payload`: a ContinuationJob as JSON (src/consume encodes it). */
  scheduleContinuation(runAt: number, payload: string): void {
    this.jobs.addEncoded('continuation', runAt, payload);
  }
}
