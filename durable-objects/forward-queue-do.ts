import { DurableObject } from 'cloudflare:workers';
import {
  FINALIZE_MESSAGES,
  MAX_STREAM_MS,
  type FinalizeAnswer,
  type ForwardStatusEnvelope,
  type RemovalAnswer,
  type RequestAddress,
} from '../schemas/forward-rules';
import type { Env } from '../src/env';
import type { HistoryOwner } from '../src/forward/history';
import type { ForwardHistoryQuery } from '../schemas/forward';
import type { OwnerForwardQuery } from '../schemas/forward-owner';
import { historyChangeStatements, type HistoryChange } from '../src/forward/history-changes';
import { addressOfRecord, findOwnerHistory, ownerRows } from '../src/forward/owner-history';
import { compactHistory, INLINE_BODY_CHARS } from '../src/forward/history-segments';
import { findHistory, historyInsertNew, historyRows, historyUpsertOne, placeBodies } from '../src/forward/history';
import { historyExpiry, runHistorySweep } from '../src/forward/history-cleanup';
import { CallerIndex } from './caller-index-touch';
import { HISTORY_SCHEMA } from './history-schema';
import { importLegacyHistory } from './history-import';
import { SqlDatabase } from './sql-database';
import { envelopeOf, type ForwardError, type ForwardRecord } from '../src/forward/record';
import { sendPrepared, sendStreamed, type ForwardOutcome, type SendKey, type StreamOutcome } from '../src/forward/send';
import { settled, settledStream } from '../src/forward/settle';
import type {
  DirectDispatch,
  EnqueueAnswer,
  ForwardQueueStore,
  HistoryPlace,
  LiveAddress,
  LiveState,
  OwnerAddress,
  PollAnswer,
  QueuedDispatch,
  QueuedPlan,
  StreamText,
} from '../src/forward/queue-store';
import { keyRefusal, missingKey } from '../src/forward/verdicts';
import { loadSecretKey } from '../src/platform/secrets';
import { strictEnv, strictObject } from '../src/platform/strict-entry';
import { JobAlarm } from './job-alarm';
import { type DeadJob, type Job, JobTable, type NoPayload } from './job-table';
import { Outbox } from './outbox';
import { migrateSchema } from './schema';
import { CHUNKS_SCHEMA } from './chunk-store';
import { ForwardStreams, streamLimitMs } from './forward-streams';
import { ARCHIVE_SCHEMA, archiveKey } from './stream-archive';
import { RECORD_TEXTS, REQUEST_TEXTS_SCHEMA, RequestTexts, type TextName, type Texts } from './request-texts';
import { planOf, recordOf } from './forward-queue/request-row';

const SCHEMA = [
  `CREATE TABLE request (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     status TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE INDEX request_seq ON request (seq);`,
  // The first table held no request yet (forwarding was not built): replaced.
  `DROP TABLE request;
   CREATE TABLE requests (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     method TEXT NOT NULL,
     url TEXT NOT NULL,
     id TEXT NOT NULL,
     queue TEXT NOT NULL,
     status TEXT NOT NULL,
     secret_name TEXT,
     record TEXT NOT NULL,
     plan TEXT NOT NULL,
     UNIQUE (method, url, id)
   );
   CREATE INDEX requests_by_queue ON requests (queue, status, seq);`,
  CHUNKS_SCHEMA,
  ARCHIVE_SCHEMA,
  REQUEST_TEXTS_SCHEMA,
  // The caller's history (issue 34 item 2), as D1 held it (migrations 0006 to 0018), and its place in D1's caller index.
  HISTORY_SCHEMA,
];

/** The object's job kinds and the payload each carries. */
type ForwardJobs = {
  run: { queue: string };
  'export-history': NoPayload;
  expire: RequestAddress;
  'move-stream': { seq: number };
  'drop-stream': { key: string };
  'compact-history': HistoryOwner;
  'sweep-history': HistoryOwner;
};

interface RequestRow {
  seq: number;
  queue: string;
  status: string;
  record: string;
  plan: string;
  [key: string]: SqlStorageValue;
}

/** The most of a streamed request's text the owner's view reads at once. */
const MAX_STREAM_TEXT_CHARS = 1_000_000;
/** History rows written to D1 per export. */
const HISTORY_EXPORT_BATCH = 100;
/** A burst of changes goes to D1 in one batch. */
const HISTORY_EXPORT_DELAY_MS = 50;
/** Longer than a send (10 s) and the search of its answer: a live runner is never taken for a dead one. */
const RUN_LEASE_MS = 60_000;
/** A streamed send holds the lease for the longest stream as well. */
const STREAM_LEASE_MS = RUN_LEASE_MS + MAX_STREAM_MS;
/**
 * A settled stream's pieces move to R2 this long after it settled: a reader following the stream reads its
 * tail from SQLite, later readers read R2.
 */
const STREAM_MOVE_DELAY_MS = 60_000;
/** Settled history rows' bodies move to a segment this long after they were written: the rows of a minute go together. */
const HISTORY_COMPACT_DELAY_MS = 60_000;
/** Compaction steps (one segment each) per run of the job; more continue in the next run. */
const COMPACT_STEPS_PER_RUN = 5;

const INTERRUPTED: ForwardError = {
  code: 'REQUEST_FAILED',
  message: 'The request was interrupted while it was running (its runner stopped); it was not sent again.',
};

const GIVEN_UP: ForwardError = {
  code: 'REQUEST_FAILED',
  message: 'The request could not be run: its runner failed on every try (an internal error, logged); it was not sent.',
};

/**
 * Queued requests running at once in one caller's object, each in an invocation of its own. A step holds
 * its request (at most the 2,031,616-character multipart cap) and its answer (1 MiB; a stream's pieces
 * pass through): 24 of them stay well inside an isolate's 128 MB.
 */
const BACKGROUND_AT_ONCE = 24;

/**
 * One object per project + caller: the caller's queues of forwarded requests. Requests of one queue run one
 * at a time in the order they were made, each queue served by a background job of the object's one alarm.
 * A request is marked running (and that is on disk) before it is sent, so a runner that dies fails it and
 * never sends it twice. History reaches D1 through the outbox; a settled request leaves the object once D1
 * has it.
 */
export class ForwardQueueDO extends DurableObject<Env> implements ForwardQueueStore {
  private readonly jobs: JobTable<ForwardJobs>;
  private readonly outbox: Outbox<HistoryChange, ForwardJobs>;
  private readonly alarms: JobAlarm<ForwardJobs>;
  private readonly streams: ForwardStreams;
  private readonly texts: RequestTexts;
  /** The caller's history, in this object's SQLite (history-schema.ts). */
  private readonly history: SqlDatabase;
  private readonly callerIndex: CallerIndex;
  /** Rows D1 held for this caller, moved here once (history-import.ts); true once done. */
  private imported: Promise<void> | true | null = null;
  /** When the sweep job runs next (undefined: not read from the job table yet). */
  private sweepAt: number | null | undefined;
  /** The sends in flight, by request seq, so a cancel can end one. */
  private readonly inFlight = new Map<number, AbortController>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, strictEnv(env));
    strictObject(this, ctx, env);
    migrateSchema(ctx.storage.sql, SCHEMA);
    this.jobs = new JobTable(ctx.storage.sql);
    this.streams = new ForwardStreams(ctx.storage.sql, this.env);
    this.texts = new RequestTexts(ctx.storage.sql);
    this.history = new SqlDatabase(ctx.storage);
    this.callerIndex = new CallerIndex(ctx.storage.sql, this.env.DB);
    this.outbox = new Outbox(ctx.storage.sql, this.jobs, {
      exportKind: 'export-history',
      delayMs: HISTORY_EXPORT_DELAY_MS,
      now: () => Date.now(),
      encode: (change) => JSON.stringify(change),
    });
    const self = this.env.FORWARD_QUEUES.get(ctx.id);
    this.alarms = new JobAlarm(
      ctx.storage,
      this.jobs,
      {
        run: { run: (job) => this.runQueue(job), background: true, givenUp: (job) => this.giveUpHead(job) },
        // d1Queries: the most each run makes (job-alarm.ts); the others make none.
        'export-history': {
          run: (job) =>
            this.outbox.export(
              job,
              this.history,
              (changes) => historyChangeStatements(this.history, this.env.BODIES, changes),
              HISTORY_EXPORT_BATCH,
              (changes) => this.dropExported(changes),
            ),
          // An entry that can never be written goes to dead_letters instead (outbox.ts).
          tries: Infinity,
        },
        expire: { run: (job) => this.expire(job) },
        'move-stream': { run: (job) => this.moveStream(job) },
        'drop-stream': { run: (job) => this.dropMoved(job) },
        'compact-history': { run: (job) => this.compactHistory(job) },
        'sweep-history': { run: (job) => this.sweepHistory(job) },
      },
      { start: (id) => self.runJob(id), waitUntil: (promise) => ctx.waitUntil(promise), atOnce: BACKGROUND_AT_ONCE },
    );
    void ctx.blockConcurrencyWhile(async () => {
      this.failInterrupted();
      this.failInterruptedDirect();
      this.scheduleUnmovedStreams();
      await this.alarms.arm(true);
    });
  }

  /** Stores a request at the end of its queue and makes sure the queue runs; refused when the caller's limit is full. */
  async enqueue(dispatch: QueuedDispatch): Promise<EnqueueAnswer> {
    await this.importOnce(dispatch.owner);
    const { record, prepared } = dispatch;
    if (dispatch.queuedLimit !== undefined && prepared.secretName !== undefined) {
      const unresolved = this.ctx.storage.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM requests WHERE secret_name = ? AND status IN ('pending', 'running')", prepared.secretName)
        .one().n;
      if (unresolved >= dispatch.queuedLimit) {
        return { ok: false, message: `Too many requests: at most ${dispatch.queuedLimit} queued requests per caller with this client secret.` };
      }
    }
    // The bodies go beside the row, once: data is the record's request_body, a multipart body its own text.
    const texts = crypto.randomUUID();
    // Bodies too large for a row go to R2 first, before anything is stored (a failure stores nothing).
    const [entry] = await placeBodies(this.env.BODIES, [{ owner: dispatch.owner, record }]);
    const touched = this.callerIndex.touch(dispatch.owner, Date.now());
    const { data, multipart, ...rest } = prepared;
    const plan: QueuedPlan = {
      owner: dispatch.owner,
      caller: dispatch.caller,
      prepared: { ...rest, ...(multipart ? { multipart: { content_type: multipart.content_type, base64: '' } } : {}) },
      texts,
      ...(data !== undefined && record.request_body !== undefined && !multipart ? { dataFromRecord: true as const } : {}),
    };
    if (data !== undefined && plan.dataFromRecord === undefined) plan.prepared.data = data;
    const { seq } = this.ctx.storage.sql
      .exec<{ seq: number }>(
        'INSERT INTO requests (method, url, id, queue, status, secret_name, record, plan) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq',
        record.method,
        record.url,
        record.id,
        record.queue_name,
        record.status,
        prepared.secretName ?? null,
        JSON.stringify(withoutTexts(record)),
        JSON.stringify(plan),
      )
      .one();
    for (const name of RECORD_TEXTS) this.texts.write(texts, name, record[name]);
    if (multipart) this.texts.write(texts, 'multipart', multipart.base64);
    // In the history at once (the listings read it before the outbox's later states reach it).
    this.history.execNow(historyInsertNew(this.history, entry));
    this.scheduleSweep(dispatch.owner, historyExpiry(record));
    this.outbox.add({ op: 'put', owner: dispatch.owner, record });
    const runPayload = { queue: record.queue_name };
    if (!this.jobs.has('run', runPayload)) this.jobs.add('run', Date.now(), runPayload);
    if (record.expires_at !== undefined) this.jobs.add('expire', record.expires_at, addressOfRecord(record));
    await this.alarms.arm();
    if (touched) await touched;
    const envelope = envelopeOf(record, this.inQueue(record.queue_name, seq));
    return { ok: true, envelope: record.realtime_group ? { ...envelope, realtime_group: record.realtime_group } : envelope };
  }

  /** The request's status envelope; null when this object does not hold it. */
  async status(address: RequestAddress): Promise<ForwardStatusEnvelope | null> {
    const row = this.find(address);
    if (!row) return null;
    const record = this.recordOf(row, ['response_body']);
    return envelopeOf(record, isUnresolved(row.status) ? this.inQueue(row.queue, row.seq) : 0);
  }

  /** A poll with a cursor: the pieces after `since` of a streamed request, or its kept version once finalized. */
  async read(address: RequestAddress, since: number): Promise<PollAnswer | null> {
    const row = this.find(address);
    if (!row) return null;
    const record = this.recordOf(row, ['response_body']);
    return await this.streams.read(row.seq, record, envelopeOf(record, isUnresolved(row.status) ? this.inQueue(row.queue, row.seq) : 0), since);
  }

  /** Keeps `json` as a settled streamed request's response and drops its pieces; repeating replaces. */
  async finalize(address: RequestAddress, json: string): Promise<FinalizeAnswer | null> {
    const row = this.find(address);
    if (!row) return null;
    const record = recordOf(row);
    if (!record.stream) return { finalized: false, message: FINALIZE_MESSAGES.notStreamed };
    if (isUnresolved(row.status)) return { finalized: false, message: FINALIZE_MESSAGES.unfinished };
    this.dropStream(row.seq);
    // `updated` moves on every finalize, so it names the kept version (see LiveAddress).
    this.save(row, { ...record, finalized: true, response_body: json, updated: Math.max(Date.now(), record.updated + 1) });
    await this.alarms.arm();
    return { finalized: true, message: FINALIZE_MESSAGES.done };
  }

  /** Removes a pending request or ends a running one; null when this object does not hold it. */
  async cancel(address: RequestAddress): Promise<RemovalAnswer | null> {
    const row = this.find(address);
    if (!row) return null;
    if (!isUnresolved(row.status)) return { removed: false, message: 'The request already settled.' };
    this.remove(row);
    await this.alarms.arm();
    return { removed: true, message: row.status === 'running' ? 'The running request was cancelled.' : 'The request was removed from its queue.' };
  }

  /** Removes the request only while it waits (a client that stopped polling it); null when this object does not hold it. */
  async withdraw(address: RequestAddress): Promise<RemovalAnswer | null> {
    const row = this.find(address);
    if (!row) return null;
    if (row.status !== 'pending') return { removed: false, message: `The request is ${row.status}; only a waiting request is withdrawn.` };
    this.remove(row);
    await this.alarms.arm();
    return { removed: true, message: 'The request was removed from its queue.' };
  }

  /** Read-only, for the owner's view: the stored pieces of a streamed request joined; null when none are held here. */
  async streamText(address: RequestAddress): Promise<StreamText | null> {
    const row = this.find(address);
    if (!row || !recordOf(row).stream) return null;
    return await this.streams.text(row.seq, MAX_STREAM_TEXT_CHARS);
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
    const [settledEntry] = await placeBodies(this.env.BODIES, [{ owner, record: done }]);
    await this.history.batch(historyUpsertOne(this.history, settledEntry));
    this.scheduleSweep(owner, historyExpiry(done));
    if (bodyChars(done) > INLINE_BODY_CHARS) this.scheduleCompaction(owner);
    await this.alarms.arm();
    // Normally long done: the owner's view knows the caller before the answer (at most INDEX_WAIT_MS more).
    if (importing || touched) await withinMs(Promise.all([importing, touched]), INDEX_WAIT_MS);
    return outcome;
  }

  /** Moves the caller's rows D1 still holds here (the cron's wake of callers no request reaches). */
  async importHistory(owner: HistoryOwner): Promise<void> {
    await this.importOnce(owner);
  }

  async historyRows(owner: HistoryOwner, query: ForwardHistoryQuery, after: string | null, count: number): Promise<ForwardRecord[]> {
    await this.importOnce(owner);
    return historyRows(this.history, this.env.BODIES, owner, query, after, count, Date.now(), () => this);
  }

  async historyFind(owner: HistoryOwner, address: RequestAddress): Promise<ForwardRecord | null> {
    await this.importOnce(owner);
    return findHistory(this.history, this.env.BODIES, owner, address, Date.now());
  }

  async ownerRows(owner: HistoryOwner, query: OwnerForwardQuery, after: string | null, count: number): Promise<HistoryPlace[]> {
    await this.importOnce(owner);
    return ownerRows(this.history, this.env.BODIES, owner, query, after, count, Date.now(), () => this);
  }

  async ownerFind(owner: HistoryOwner, address: OwnerAddress): Promise<HistoryPlace | null> {
    await this.importOnce(owner);
    return findOwnerHistory(this.history, this.env.BODIES, owner, address, Date.now(), () => this);
  }

  /** Read-only, for the listings: each request's state here, null where this object does not hold it. */
  async current(addresses: readonly LiveAddress[]): Promise<Array<LiveState | 'unchanged' | null>> {
    return addresses.map((address) => {
      const row = this.find(address);
      if (!row) return null;
      if (address.finalized_at !== undefined) {
        const held = recordOf(row);
        if (held.finalized && held.updated === address.finalized_at) return 'unchanged';
      }
      const { request_body: _body, request_headers: _headers, ...state } = this.recordOf(row, ['response_body']);
      return state;
    });
  }

  /** The jobs given up after failing on every try (for the operator's view and tests). */
  async deadJobs(): Promise<DeadJob[]> {
    return this.jobs.dead();
  }

  /** Requests waiting or running in the queue. */
  async queueCount(queue: string): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM requests WHERE queue = ? AND status IN ('pending', 'running')", queue).one().n;
  }

  override async alarm(): Promise<void> {
    await this.alarms.serve();
  }

  /** One step of a background job (a queued request's run), in an invocation of its own (job-alarm.ts). */
  async runJob(id: number): Promise<void> {
    await this.alarms.runStarted(id);
  }

  private find(address: RequestAddress): RequestRow | null {
    return (
      this.ctx.storage.sql
        .exec<RequestRow>(
          'SELECT seq, queue, status, record, plan FROM requests WHERE method = ? AND url = ? AND id = ?',
          address.method,
          address.url,
          address.id,
        )
        .toArray()[0] ?? null
    );
  }

  private inQueue(queue: string, seq: number): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM requests WHERE queue = ? AND status IN ('pending', 'running') AND seq <= ?", queue, seq)
      .one().n;
  }

  /** Deletes the request here and from the history, ending its send when one is in flight. */
  private remove(row: RequestRow): void {
    this.inFlight.get(row.seq)?.abort();
    this.inFlight.delete(row.seq);
    this.ctx.storage.sql.exec('DELETE FROM requests WHERE seq = ?', row.seq);
    this.dropStream(row.seq);
    const plan = planOf(row);
    this.outbox.add({ op: 'delete', owner: plan.owner, address: addressOfRecord(recordOf(row)) });
  }

  /** Writes a new state of the request, here and (through the outbox) to the history. */
  private save(row: RequestRow, given: ForwardRecord): void {
    const plan = planOf(row);
    const record = plan.texts === undefined ? given : this.keepTexts(plan.texts, given);
    const stored = plan.texts === undefined ? record : withoutTexts(record);
    this.ctx.storage.sql.exec('UPDATE requests SET status = ?, record = ? WHERE seq = ?', record.status, JSON.stringify(stored), row.seq);
    this.outbox.add({ op: 'put', owner: plan.owner, record });
    if (record.stream && !record.finalized && !isUnresolved(record.status)) this.scheduleMove(row.seq, Date.now() + STREAM_MOVE_DELAY_MS);
  }

  /**
   * The record with its texts: those it carries are stored (when they changed), those it lacks (a record
   * read from its row) are read back.
   */
  private keepTexts(key: string, record: ForwardRecord): ForwardRecord {
    const stored = this.texts.read(key, RECORD_TEXTS);
    for (const name of RECORD_TEXTS) if (record[name] !== undefined && record[name] !== stored[name]) this.texts.write(key, name, record[name]);
    return { ...stored, ...record };
  }

  /** A row's record with the named texts read back from beside it. */
  private recordOf(row: RequestRow, names: readonly TextName[]): ForwardRecord {
    const record = recordOf(row);
    const key = planOf(row).texts;
    return key === undefined ? record : { ...(this.texts.read(key, names) as Omit<Texts, 'multipart'>), ...record };
  }

  /** The plan as it is sent: its body read back from beside its row. */
  private sendable(plan: QueuedPlan): QueuedPlan {
    if (plan.texts === undefined) return plan;
    const texts = this.texts.read(plan.texts, ['request_body', 'multipart']);
    const prepared = { ...plan.prepared };
    if (prepared.multipart) prepared.multipart = { ...prepared.multipart, base64: texts.multipart ?? '' };
    if (plan.dataFromRecord && texts.request_body !== undefined) prepared.data = JSON.parse(texts.request_body);
    return { ...plan, prepared };
  }

  private scheduleMove(seq: number, at: number): void {
    const payload = { seq };
    if (!this.jobs.has('move-stream', payload)) this.jobs.add('move-stream', at, payload);
  }

  /** Settled streams whose pieces are still in SQLite with no move scheduled (kept before pieces moved to R2). */
  private scheduleUnmovedStreams(): void {
    const rows = this.ctx.storage.sql.exec<{ seq: number }>(
      `SELECT r.seq FROM requests r WHERE r.status IN ('resolved', 'failed') AND EXISTS (SELECT 1 FROM chunks c WHERE c.request = r.seq)
         AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = 'move-stream' AND j.payload = json_object('seq', r.seq))`,
    );
    for (const { seq } of rows.toArray()) this.scheduleMove(seq, Date.now());
  }

  /** The caller's rows D1 held before the history moved here, moved once per object (history-import.ts). */
  private importOnce(owner: HistoryOwner): Promise<void> {
    if (this.imported === true) return Promise.resolve();
    if (this.imported === null && this.callerIndex.meta('imported') !== null) {
      this.imported = true;
      return Promise.resolve();
    }
    this.imported ??= importLegacyHistory(this.env.DB, this.ctx.storage, owner).then(
      () => {
        this.ctx.storage.sql.exec("INSERT OR REPLACE INTO caller_meta (name, value) VALUES ('imported', ?)", Date.now());
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

  /** A sweep of expired rows is due by `at` (one job at a time, the earliest wins). */
  private scheduleSweep(owner: HistoryOwner, at: number): void {
    if (this.sweepAt === undefined) this.sweepAt = this.jobs.all().find((job) => job.kind === 'sweep-history')?.run_at ?? null;
    if (this.sweepAt !== null && this.sweepAt <= at) return;
    const job = this.jobs.all().find((candidate) => candidate.kind === 'sweep-history');
    if (job) this.jobs.reschedule(job.id, at);
    else this.jobs.add('sweep-history', at, owner);
    this.sweepAt = at;
  }

  /** Expired rows and their segments go; once none is left, the caller leaves D1's caller index too. */
  private async sweepHistory(job: Job<'sweep-history'>): Promise<void> {
    if (job.run_at > Date.now()) return;
    const more = await runHistorySweep(this.history, this.env.BODIES, Date.now());
    const next = this.ctx.storage.sql.exec<{ at: number | null }>('SELECT min(expires_at) AS at FROM forward_requests').one().at;
    if (more || next !== null) {
      this.jobs.reschedule(job.id, more ? Date.now() : next!);
      this.sweepAt = more ? Date.now() : next;
      return;
    }
    this.jobs.delete(job.id);
    this.sweepAt = null;
    const owner = this.jobs.payloadOf(job);
    if (this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM requests').one().n > 0) return;
    await this.callerIndex.forget(owner);
    // A request written while the row was being removed lists the caller again.
    if (this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM forward_requests').one().n > 0) await this.callerIndex.touch(owner, Date.now());
  }

  private scheduleCompaction(owner: HistoryOwner): void {
    const payload = { serviceId: owner.serviceId, callerKey: owner.callerKey };
    if (!this.jobs.has('compact-history', payload)) this.jobs.add('compact-history', Date.now() + HISTORY_COMPACT_DELAY_MS, payload);
  }

  /** Moves the bodies of the caller's settled history rows to segments (history-segments.ts), a few segments a run. */
  private async compactHistory(job: Job<'compact-history'>): Promise<void> {
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

  /** Drops a request's pieces; an R2 object that held them is deleted by a job (retried until it is). */
  private dropStream(seq: number): void {
    const moved = this.streams.drop(seq);
    if (moved !== null) this.jobs.add('drop-stream', Date.now(), { key: moved });
  }

  /** Moves a settled, not finalized stream's pieces to R2 (the alarm runs every foreground job: this one waits for its time). */
  private async moveStream(job: Job<'move-stream'>): Promise<void> {
    if (job.run_at > Date.now()) return;
    const { seq } = this.jobs.payloadOf(job);
    const settledStream = () => {
      const row = this.bySeq(seq);
      if (!row || isUnresolved(row.status)) return null;
      const record = recordOf(row);
      return record.stream && !record.finalized ? { row, record } : null;
    };
    const found = settledStream();
    if (found) {
      const key = await archiveKey(planOf(found.row).owner, found.record.id);
      await this.streams.move(seq, key, () => settledStream() !== null);
    }
    this.jobs.delete(job.id);
  }

  private async dropMoved(job: Job<'drop-stream'>): Promise<void> {
    await this.streams.deleteMoved(this.jobs.payloadOf(job).key);
    this.jobs.delete(job.id);
  }

  /** The oldest request of the queue waiting or running. */
  private headOf(queue: string): RequestRow | undefined {
    return this.ctx.storage.sql
      .exec<RequestRow>(
        "SELECT seq, queue, status, record, plan FROM requests WHERE queue = ? AND status IN ('pending', 'running') ORDER BY seq LIMIT 1",
        queue,
      )
      .toArray()[0];
  }

  private bySeq(seq: number): RequestRow | null {
    return this.ctx.storage.sql.exec<RequestRow>('SELECT seq, queue, status, record, plan FROM requests WHERE seq = ?', seq).toArray()[0] ?? null;
  }

  /** A direct request left running was cut off with the instance that sent it: failed, never sent again. */
  private failInterruptedDirect(): void {
    this.ctx.storage.sql.exec(
      "UPDATE forward_requests SET status = 'failed', updated = max(updated, ?), error = ? WHERE status = 'running' AND queue_name IS NULL",
      Date.now(),
      JSON.stringify(INTERRUPTED),
    );
  }

  /** Nothing runs in a new instance: a request left running was cut off with the runner that ran it. */
  private failInterrupted(): void {
    const now = Date.now();
    for (const row of this.ctx.storage.sql.exec<RequestRow>("SELECT seq, queue, status, record, plan FROM requests WHERE status = 'running'").toArray()) {
      this.save(row, this.interrupted(row, now));
      const payload = { queue: row.queue };
      if (!this.jobs.has('run', payload)) this.jobs.add('run', now, payload);
    }
    for (const job of this.jobs.all()) if (job.kind === 'run') this.jobs.reschedule(job.id, now);
  }

  /**
   * One step of the queue's runner: sends the oldest request waiting, in this invocation, and leaves the
   * job due while others wait, so the next one runs in an invocation of its own (job-alarm.ts).
   */
  private async runQueue(job: Job<'run'>): Promise<void> {
    const { queue } = this.jobs.payloadOf(job);
    const head = this.headOf(queue);
    if (!head) {
      this.jobs.delete(job.id);
      return;
    }
    const pending = recordOf(head);
    if (head.status === 'running') {
      this.save(head, this.interrupted(head, Date.now()));
      this.jobs.reschedule(job.id, Date.now());
      return;
    }
    const started = Date.now();
    const running: ForwardRecord = { ...pending, status: 'running', updated: started, executed: started };
    this.jobs.reschedule(job.id, started + (pending.stream ? STREAM_LEASE_MS : RUN_LEASE_MS));
    this.save(head, running);
    const controller = new AbortController();
    this.inFlight.set(head.seq, controller);
    try {
      // On disk before anything is sent: from here a crash can fail this request, never send it again.
      await this.ctx.storage.sync();
      // Cancelled or expired while that was written: never sent.
      if (controller.signal.aborted) return;
      const plan = planOf(head);
      const outcome = running.stream ? await this.sendStream(head.seq, running, plan, controller.signal) : await this.send(plan, controller.signal);
      if (controller.signal.aborted) return;
      this.save(
        head,
        running.stream ? settledStream(running, outcome as StreamOutcome, this.streams.count(head.seq)) : settled(running, outcome as ForwardOutcome),
      );
    } finally {
      this.inFlight.delete(head.seq);
      // The next request of the queue, if any, in an invocation of its own.
      this.jobs.reschedule(job.id, Date.now());
    }
  }

  /**
   * A queue whose step failed on every try (a request it cannot read or save): its head request is settled
   * as failed, never sent, and the queue goes on with the next one.
   */
  private giveUpHead(job: Job<'run'>): boolean {
    const { queue } = this.jobs.payloadOf(job);
    const head = this.headOf(queue);
    if (head) {
      const record = readRecord(head);
      if (!record) {
        console.error('a given-up request whose record cannot be read is removed', head.seq);
        this.ctx.storage.sql.exec('DELETE FROM requests WHERE seq = ?', head.seq);
        this.jobs.reschedule(job.id, Date.now());
        return true;
      }
      const failed: ForwardRecord = { ...record, status: 'failed', updated: Math.max(Date.now(), record.updated), error: GIVEN_UP };
      try {
        this.save(head, failed);
      } catch (err) {
        // Its plan cannot be read: the row alone is settled (with an empty plan, so reads work); its history row keeps its last state.
        console.error('a given-up request could not be saved with its history', err instanceof Error ? err.message : String(err));
        this.ctx.storage.sql.exec("UPDATE requests SET status = 'failed', record = ?, plan = '{}' WHERE seq = ?", JSON.stringify(failed), head.seq);
      }
    }
    this.jobs.reschedule(job.id, Date.now());
    return true;
  }

  /** Checks the key again (it may have changed while the request waited); the key, or why it cannot be used. */
  private async keyFor(plan: QueuedPlan): Promise<{ key: SendKey | null } | { refusal: string }> {
    const { prepared } = plan;
    if (prepared.secretName === undefined) return { key: null };
    const key = await loadSecretKey(this.env, plan.owner.serviceId, prepared.secretName);
    const refusal = key ? keyRefusal(key, plan.caller, prepared.url) : missingKey(prepared.secretName);
    return refusal === undefined && key ? { key } : { refusal: refusal ?? missingKey(prepared.secretName) };
  }

  private async send(stored: QueuedPlan, signal: AbortSignal): Promise<ForwardOutcome> {
    const plan = this.sendable(stored);
    const checked = await this.keyFor(plan);
    if ('refusal' in checked) return { ok: false, error: { code: 'INVALID_REQUEST', message: checked.refusal }, httpStatus: 400 };
    return sendPrepared(plan.prepared, checked.key, this.env, signal);
  }

  /** Sends and relays the answer into the chunk store; nothing is stored once the request is cancelled. */
  private async sendStream(requestSeq: number, record: ForwardRecord, stored: QueuedPlan, signal: AbortSignal): Promise<StreamOutcome> {
    const plan = this.sendable(stored);
    const checked = await this.keyFor(plan);
    if ('refusal' in checked) return { ok: false, error: { code: 'INVALID_REQUEST', message: checked.refusal } };
    const store = this.streams.sink(requestSeq, record, plan.owner, signal);
    return sendStreamed(plan.prepared, checked.key, this.env, signal, { store, bodyMs: streamLimitMs(this.env) });
  }

  /** A request left running by a runner that stopped: failed, with its pieces kept. */
  private interrupted(row: RequestRow, now: number): ForwardRecord {
    const record = recordOf(row);
    return { ...record, status: 'failed', updated: now, error: record.stream ? { ...INTERRUPTED, chunks: this.streams.count(row.seq) } : INTERRUPTED };
  }

  /** The alarm runs every foreground job when no send is going (job-alarm.ts): an expiry waits for its time. */
  private expire(job: Job<'expire'>): Promise<void> {
    if (job.run_at > Date.now()) return Promise.resolve();
    const row = this.find(this.jobs.payloadOf(job));
    if (row) this.remove(row);
    this.jobs.delete(job.id);
    return Promise.resolve();
  }

  /** A settled request whose last state reached D1 leaves the object; polls then read the history. */
  private dropExported(changes: HistoryChange[]): void {
    for (const change of changes) {
      if (change.op === 'put' && !isUnresolved(change.record.status)) this.scheduleCompaction(change.owner);
      // A streamed request stays: its pieces, and after finalize its kept version, are read here.
      if (change.op !== 'put' || isUnresolved(change.record.status) || change.record.stream) continue;
      const row = this.find(addressOfRecord(change.record));
      if (row && recordOf(row).updated === change.record.updated && !isUnresolved(row.status)) {
        this.ctx.storage.sql.exec('DELETE FROM requests WHERE seq = ?', row.seq);
      }
    }
  }
}

const isUnresolved = (status: string) => status === 'pending' || status === 'running';
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** The longest a direct answer waits, after its send, for D1's caller index and the move of D1's old rows. */
const INDEX_WAIT_MS = 5_000;
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

function readRecord(row: RequestRow): ForwardRecord | null {
  try {
    return recordOf(row);
  } catch {
    return null;
  }
}

/** A record as its row holds it when its texts are beside the row. */
function withoutTexts(record: ForwardRecord): ForwardRecord {
  const { request_body: _request, request_headers: _headers, response_body: _response, ...rest } = record;
  return rest;
}
