/**
 * The caller's history in ForwardQueueDO's own SQLite (history-schema.ts): its rows D1 held, moved here once
 * (history-import.ts); the outbox that carries the queued requests' states to it; the compaction of settled
 * bodies into segments; the sweep of expired rows; the caller's place in D1's caller index; and the direct
 * requests, written straight to it.
 */
import type { Env } from '../../src/env';
import { historyInsertNew, historyUpsertOne, placeBodies, type HistoryOwner } from '../../src/forward/history';
import { historyChangeStatements, type HistoryChange } from '../../src/forward/history-changes';
import { historyExpiry, runHistorySweep } from '../../src/forward/history-cleanup';
import { compactHistory, INLINE_BODY_CHARS } from '../../src/forward/history-segments';
import { addressOfRecord } from '../../src/forward/owner-history';
import type { DirectDispatch } from '../../src/forward/queue-store';
import type { ForwardRecord } from '../../src/forward/record';
import { sendPrepared, type ForwardOutcome } from '../../src/forward/send';
import { settled } from '../../src/forward/settle';
import { CallerIndex } from '../caller-index-touch';
import { importLegacyHistory } from '../history-import';
import type { Job } from '../job-table';
import { Outbox } from '../outbox';
import { SqlDatabase } from '../sql-database';
import type { DeadLetterReport } from './dead-letter-report';
import type { ForwardJobs, ForwardJobTable } from './forward-jobs';
import { INTERRUPTED } from './queue-runner';
import { isUnresolved, type RequestsStore } from './requests-store';

/** History rows written to D1 per export. */
const HISTORY_EXPORT_BATCH = 100;
/** A burst of changes goes to D1 in one batch. */
const HISTORY_EXPORT_DELAY_MS = 50;
/** Settled history rows' bodies move to a segment this long after they were written: the rows of a minute go together. */
const HISTORY_COMPACT_DELAY_MS = 60_000;
/** Compaction steps (one segment each) per run of the job; more continue in the next run. */
const COMPACT_STEPS_PER_RUN = 5;
/** The longest a direct answer waits, after its send, for D1's caller index and the move of D1's old rows. */
const INDEX_WAIT_MS = 5_000;

export class HistoryKeeper {
  /** The caller's history, in this object's SQLite (history-schema.ts). */
  readonly history: SqlDatabase;
  readonly outbox: Outbox<HistoryChange, ForwardJobs>;
  private readonly callerIndex: CallerIndex;
  /** Rows D1 held for this caller, moved here once (history-import.ts); true once done. */
  private imported: Promise<void> | true | null = null;
  /** When the sweep job runs next (undefined: not read from the job table yet). */
  private sweepAt: number | null | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: Env,
    private readonly jobs: ForwardJobTable,
    private readonly store: RequestsStore,
    /** Sets the object's alarm for the jobs added (JobAlarm.arm). */
    private readonly arm: () => Promise<void>,
    /** The caller's dead letters' bytes are due to be reported (dead-letter-report.ts). */
    private readonly deadLetters: Pick<DeadLetterReport, 'changed' | 'swept'>,
    /** A direct request settled after its send (forward-metrics.ts counts it). */
    private readonly sentAndSettled: (owner: HistoryOwner, record: ForwardRecord, secretName: string | undefined) => void = () => {},
  ) {
    this.history = new SqlDatabase(storage);
    this.callerIndex = new CallerIndex(storage.sql, env.DB);
    this.outbox = new Outbox(storage.sql, jobs, {
      exportKind: 'export-history',
      delayMs: HISTORY_EXPORT_DELAY_MS,
      now: () => Date.now(),
      encode: (change) => JSON.stringify(change),
    });
  }

  /** The caller's rows D1 held before the history moved here, moved once per object (history-import.ts). */
  importOnce(owner: HistoryOwner): Promise<void> {
    if (this.imported === true) return Promise.resolve();
    if (this.imported === null && this.callerIndex.meta('imported') !== null) {
      this.imported = true;
      return Promise.resolve();
    }
    this.imported ??= importLegacyHistory(this.env.DB, this.storage, owner).then(
      () => {
        this.storage.sql.exec("INSERT OR REPLACE INTO caller_meta (name, value) VALUES ('imported', ?)", Date.now());
        this.imported = true;
        this.scheduleCompaction(owner);
        this.scheduleSweep(owner, Date.now());
      },
      (error: unknown) => {
        this.imported = null;
        throw error;
      },
    );
    return this.imported;
  }

  /**
   * A new queued request's history row. Bodies too large for a row go to R2 first, before anything is
   * stored (a failure stores nothing); `write` puts the row in the history at once (the listings read it
   * before the outbox's later states reach it). `touched`: the caller index's touch, when one is due.
   */
  async placeNew(owner: HistoryOwner, record: ForwardRecord): Promise<{ touched: Promise<void> | null; write: () => void }> {
    const [entry] = await placeBodies(this.env.BODIES, [{ owner, record }]);
    const touched = this.callerIndex.touch(owner, Date.now());
    const write = () => {
      this.history.execNow(historyInsertNew(this.history, entry));
      this.scheduleSweep(owner, historyExpiry(record));
      this.outbox.add({ op: 'put', owner, record });
    };
    return { touched, write };
  }

  /**
   * A direct request: in the history as running before it is sent (the output gate holds the send until
   * that is on disk), settled there before this answers. A restart meanwhile fails it (failInterruptedDirect).
   */
  async sendDirect(dispatch: DirectDispatch): Promise<ForwardOutcome> {
    const { owner, record } = dispatch;
    // What D1 is asked (rows it held for this caller, the caller index) runs beside the send, not before it.
    const importing =
      this.imported === true ? null : this.importOnce(owner).catch((error: unknown) => console.error('forward history import failed', errorText(error)));
    const touched = this.callerIndex.touch(owner, Date.now());
    const running: ForwardRecord = { ...record, status: 'running', executed: record.created };
    const [entry] = await placeBodies(this.env.BODIES, [{ owner, record: running }]);
    await this.history.batch(historyInsertNew(this.history, entry));
    let outcome: ForwardOutcome;
    try {
      outcome = await sendPrepared(dispatch.prepared, dispatch.key, this.env);
    } catch (error) {
      await this.history.batch(historyUpsertOne(this.history, { owner, record: { ...running, status: 'failed', updated: Date.now(), error: INTERRUPTED } }));
      throw error;
    }
    const done = settled(running, outcome);
    this.sentAndSettled(owner, done, dispatch.prepared.secretName);
    const [settledEntry] = await placeBodies(this.env.BODIES, [{ owner, record: done }]);
    await this.history.batch(historyUpsertOne(this.history, settledEntry));
    this.scheduleSweep(owner, historyExpiry(done));
    if (bodyChars(done) > INLINE_BODY_CHARS) this.scheduleCompaction(owner);
    await this.arm();
    // Normally long done: the owner's view knows the caller before the answer (at most INDEX_WAIT_MS more).
    if (importing || touched) await withinMs(Promise.all([importing, touched]), INDEX_WAIT_MS);
    return outcome;
  }

  /** A direct request left running was cut off with the instance that sent it: failed, never sent again. */
  failInterruptedDirect(): void {
    this.storage.sql.exec(
      "UPDATE forward_requests SET status = 'failed', updated = max(updated, ?), error = ? WHERE status = 'running' AND queue_name IS NULL",
      Date.now(),
      JSON.stringify(INTERRUPTED),
    );
  }

  /** One export of the outbox to the history (job-alarm.ts). */
  export(job: Job<'export-history'>): Promise<void> {
    return this.outbox.export(
      job,
      this.history,
      (changes) => historyChangeStatements(this.history, this.env.BODIES, changes),
      HISTORY_EXPORT_BATCH,
      (changes) => this.dropExported(changes),
    );
  }

  /** Expired rows and their segments go; once none is left, the caller leaves D1's caller index too. */
  async sweep(job: Job<'sweep-history'>): Promise<void> {
    if (job.run_at > Date.now()) return;
    const more = await runHistorySweep(this.history, this.env.BODIES, Date.now());
    this.deadLetters.swept(this.jobs.payloadOf(job));
    const next = this.storage.sql.exec<{ at: number | null }>('SELECT min(expires_at) AS at FROM forward_requests').one().at;
    if (more || next !== null) {
      this.jobs.reschedule(job.id, more ? Date.now() : next!);
      this.sweepAt = more ? Date.now() : next;
      return;
    }
    this.jobs.delete(job.id);
    this.sweepAt = null;
    const owner = this.jobs.payloadOf(job);
    if (this.store.count() > 0) return;
    await this.callerIndex.forget(owner);
    // A request written while the row was being removed lists the caller again.
    if (this.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM forward_requests').one().n > 0) await this.callerIndex.touch(owner, Date.now());
  }

  /** Moves the bodies of the caller's settled history rows to segments (history-segments.ts), a few segments a run. */
  async compact(job: Job<'compact-history'>): Promise<void> {
    if (job.run_at > Date.now()) return;
    const owner = this.jobs.payloadOf(job);
    for (let step = 0; step < COMPACT_STEPS_PER_RUN; step++) {
      if (!(await compactHistory(this.history, this.env.BODIES, owner)).more) {
        this.jobs.delete(job.id);
        return;
      }
    }
    this.jobs.reschedule(job.id, Date.now());
  }

  /** A sweep of expired rows is due by `at` (one job at a time, the earliest wins). */
  private scheduleSweep(owner: HistoryOwner, at: number): void {
    if (this.sweepAt === undefined) this.sweepAt = this.jobs.all().find((job) => job.kind === 'sweep-history')?.run_at ?? null;
    if (this.sweepAt !== null && this.sweepAt <= at) return;
    const job = this.jobs.all().find((candidate) => candidate.kind === 'sweep-history');
    if (job) this.jobs.reschedule(job.id, at);
    else this.jobs.add('sweep-history', at, owner);
    this.sweepAt = at;
  }

  private scheduleCompaction(owner: HistoryOwner): void {
    const payload = { serviceId: owner.serviceId, callerKey: owner.callerKey };
    if (!this.jobs.has('compact-history', payload)) this.jobs.add('compact-history', Date.now() + HISTORY_COMPACT_DELAY_MS, payload);
  }

  /** A settled request whose last state reached D1 leaves the object; polls then read the history. */
  private dropExported(changes: HistoryChange[]): void {
    for (const change of changes) {
      if (change.op === 'put' && !isUnresolved(change.record.status)) this.scheduleCompaction(change.owner);
      if (change.op === 'put' && change.record.dead_letter !== undefined) this.deadLetters.changed(change.owner);
      // A streamed request stays: its pieces, and after finalize its kept version, are read here.
      if (change.op !== 'put' || isUnresolved(change.record.status) || change.record.stream) continue;
      const request = this.store.find(addressOfRecord(change.record));
      if (request && request.record.updated === change.record.updated && !request.unresolved) this.store.delete(request.seq);
    }
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const withinMs = (work: Promise<unknown>, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    void work
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        resolve();
      });
  });
const bodyChars = (record: ForwardRecord) => (record.request_body?.length ?? 0) + (record.response_body?.length ?? 0) + (record.request_headers?.length ?? 0);
