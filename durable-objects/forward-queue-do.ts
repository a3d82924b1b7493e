import { DurableObject } from 'cloudflare:workers';
import { FINALIZE_MESSAGES, type FinalizeAnswer, type ForwardStatusEnvelope, type RemovalAnswer, type RequestAddress } from '../schemas/forward-rules';
import type { ForwardHistoryQuery } from '../schemas/forward';
import type { OwnerForwardQuery } from '../schemas/forward-owner';
import type { Env } from '../src/env';
import { findHistory, historyRows, type HistoryOwner } from '../src/forward/history';
import { MAX_REPORTED_PER_CALLER, reportPaused } from '../src/forward/destination-report';
import { findOwnerHistory, ownerRows } from '../src/forward/owner-history';
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
  StreamText,
} from '../src/forward/queue-store';
import { envelopeOf, type ForwardRecord } from '../src/forward/record';
import type { ForwardOutcome } from '../src/forward/send';
import { strictEnv, strictObject } from '../src/platform/strict-entry';
import { CHUNKS_SCHEMA } from './chunk-store';
import { CIRCUITS_SCHEMA, DestinationCircuits } from './destination-circuits';
import { ForwardStreams } from './forward-streams';
import type { ForwardJobs } from './forward-queue/forward-jobs';
import { DeadLetterReport } from './forward-queue/dead-letter-report';
import { HistoryKeeper } from './forward-queue/history-keeper';
import { QueueRunner } from './forward-queue/queue-runner';
import { REQUESTS_SCHEMA, RequestsStore, type QueuedRequest } from './forward-queue/requests-store';
import { StreamMover } from './forward-queue/stream-mover';
import { HISTORY_ATTEMPTS_STEP, HISTORY_DEAD_LETTER_STEP, HISTORY_SCHEMA } from './history-schema';
import { JobAlarm } from './job-alarm';
import { type DeadJob, type Job, JobTable } from './job-table';
import { REQUEST_TEXTS_SCHEMA } from './request-texts';
import { migrateSchema } from './schema';
import { METRICS_REPORT_MS, PENDING_METRICS_SCHEMA } from './pending-metrics';
import { FORWARD_METRICS_QUERIES, ForwardMetrics } from './forward-queue/forward-metrics';
import { ARCHIVE_SCHEMA } from './stream-archive';

const SCHEMA = [
  ...REQUESTS_SCHEMA,
  CHUNKS_SCHEMA,
  ARCHIVE_SCHEMA,
  REQUEST_TEXTS_SCHEMA,
  // The caller's history (issue 34 item 2), as D1 held it (migrations 0006 to 0018), and its place in D1's caller index.
  HISTORY_SCHEMA,
  HISTORY_ATTEMPTS_STEP,
  // Pausing a failing destination (issue 36 item 6): the circuit of each destination origin.
  CIRCUITS_SCHEMA,
  // Dead letters (issue 36 item 3): a request sent with retry that failed after its last attempt, marked with why.
  HISTORY_DEAD_LETTER_STEP,
  // Metrics over time (issue 37 item 1): counts per Secret Key and destination not yet pushed to D1.
  PENDING_METRICS_SCHEMA,
];

/** The most of a streamed request's text the owner's view reads at once. */
const MAX_STREAM_TEXT_CHARS = 1_000_000;

/**
 * Queued requests running at once in one caller's object, each in an invocation of its own. A step holds
 * its request (at most the 2,031,616-character multipart cap) and its answer (1 MiB; a stream's pieces
 * pass through): 24 of them stay well inside an isolate's 128 MB.
 */
const BACKGROUND_AT_ONCE = 24;

/**
 * One object per project + caller: the caller's queues of forwarded requests (forward-queue/queue-runner.ts),
 * held in its `requests` table (forward-queue/requests-store.ts), their streams' pieces (forward-queue/stream-mover.ts)
 * and the caller's history (forward-queue/history-keeper.ts), whose jobs one alarm serves. A settled request
 * leaves the object once its history row has its last state.
 */
export class ForwardQueueDO extends DurableObject<Env> implements ForwardQueueStore {
  private readonly jobs: JobTable<ForwardJobs>;
  private readonly store: RequestsStore;
  private readonly streams: ForwardStreams;
  private readonly mover: StreamMover;
  private readonly keeper: HistoryKeeper;
  private readonly runner: QueueRunner;
  private readonly alarms: JobAlarm<ForwardJobs>;
  private readonly circuits: DestinationCircuits;
  private readonly deadLetters: DeadLetterReport;
  private readonly metrics: ForwardMetrics;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, strictEnv(env));
    strictObject(this, ctx, env);
    migrateSchema(ctx.storage.sql, SCHEMA);
    this.jobs = new JobTable(ctx.storage.sql);
    this.store = new RequestsStore(ctx.storage.sql);
    this.streams = new ForwardStreams(ctx.storage.sql, this.env);
    this.mover = new StreamMover(this.store, this.streams, this.jobs);
    this.deadLetters = new DeadLetterReport(ctx.storage.sql, this.env.DB, this.jobs);
    this.metrics = new ForwardMetrics(ctx.storage.sql, this.jobs, this.env.DB);
    const sentAndSettled = (owner: HistoryOwner, record: ForwardRecord, secretName: string | undefined) => this.metrics.settled(owner, record, secretName);
    this.keeper = new HistoryKeeper(ctx.storage, this.env, this.jobs, this.store, () => this.alarms.arm(), this.deadLetters, sentAndSettled);
    this.circuits = new DestinationCircuits(ctx.storage.sql);
    const { store, jobs, streams, mover, circuits } = this;
    const circuitsChanged = (owner: HistoryOwner) => {
      if (!jobs.has('report-circuits', owner)) jobs.add('report-circuits', Date.now(), owner);
    };
    this.runner = new QueueRunner({
      storage: ctx.storage,
      env: this.env,
      store,
      jobs,
      streams,
      mover,
      outbox: this.keeper.outbox,
      circuits,
      circuitsChanged,
      sentAndSettled,
    });
    const self = this.env.FORWARD_QUEUES.get(ctx.id);
    this.alarms = new JobAlarm(
      ctx.storage,
      this.jobs,
      {
        run: { run: (job) => this.runner.run(job), background: true, givenUp: (job) => this.runner.giveUp(job) },
        // An entry that can never be written goes to dead_letters instead (outbox.ts).
        'export-history': { run: (job) => this.keeper.export(job), tries: Infinity },
        expire: { run: (job) => this.runner.expire(job) },
        'move-stream': { run: (job) => this.mover.move(job) },
        'drop-stream': { run: (job) => this.mover.deleteMoved(job) },
        'compact-history': { run: (job) => this.keeper.compact(job) },
        'sweep-history': { run: (job) => this.keeper.sweep(job) },
        'report-circuits': { run: (job) => this.reportCircuits(job) },
        // d1Queries: the project's plan, then the report.
        'report-dead-letters': { run: (job) => this.deadLetters.run(job), d1Queries: 2 },
        'flush-metrics': {
          run: async (job) => {
            this.metrics.pending.flush();
            this.jobs.delete(job.id);
          },
        },
        'report-metrics': { run: (job) => this.reportMetrics(job), d1Queries: FORWARD_METRICS_QUERIES },
      },
      { start: (id) => self.runJob(id), waitUntil: (promise) => ctx.waitUntil(promise), atOnce: BACKGROUND_AT_ONCE },
    );
    void ctx.blockConcurrencyWhile(async () => {
      this.circuits.releaseProbes(Date.now());
      this.runner.failInterrupted();
      this.keeper.failInterruptedDirect();
      this.mover.scheduleUnmoved();
      await this.alarms.arm(true);
    });
  }

  /** Stores a request at the end of its queue and makes sure the queue runs; refused when the caller's limit is full. */
  async enqueue(dispatch: QueuedDispatch): Promise<EnqueueAnswer> {
    await this.keeper.importOnce(dispatch.owner);
    const { record, prepared, queuedLimit } = dispatch;
    if (queuedLimit !== undefined && prepared.secretName !== undefined && this.store.unresolvedWithSecret(prepared.secretName) >= queuedLimit) {
      return { ok: false, message: `Too many requests: at most ${queuedLimit} queued requests per caller with this client secret.` };
    }
    const placed = await this.keeper.placeNew(dispatch.owner, record);
    const seq = this.store.add(dispatch);
    placed.write();
    this.runner.queued(record);
    await this.alarms.arm();
    if (placed.touched) await placed.touched;
    const envelope = envelopeOf(record, this.store.place(record.queue_name, seq));
    return { ok: true, envelope: record.realtime_group ? { ...envelope, realtime_group: record.realtime_group } : envelope };
  }

  /** The request's status envelope; null when this object does not hold it. */
  async status(address: RequestAddress): Promise<ForwardStatusEnvelope | null> {
    const request = this.store.find(address);
    return request ? this.envelope(request, this.store.withTexts(request, ['response_body'])) : null;
  }

  /** A poll with a cursor: the pieces after `since` of a streamed request, or its kept version once finalized. */
  async read(address: RequestAddress, since: number): Promise<PollAnswer | null> {
    const request = this.store.find(address);
    if (!request) return null;
    const record = this.store.withTexts(request, ['response_body']);
    return await this.streams.read(request.seq, record, this.envelope(request, record), since);
  }

  /** Keeps `json` as a settled streamed request's response and drops its pieces; repeating replaces. */
  async finalize(address: RequestAddress, json: string): Promise<FinalizeAnswer | null> {
    const request = this.store.find(address);
    if (!request) return null;
    const { record } = request;
    if (!record.stream) return { finalized: false, message: FINALIZE_MESSAGES.notStreamed };
    if (request.unresolved) return { finalized: false, message: FINALIZE_MESSAGES.unfinished };
    this.mover.drop(request.seq);
    // `updated` moves on every finalize, so it names the kept version (see LiveAddress).
    this.runner.save(request, { ...record, finalized: true, response_body: json, updated: Math.max(Date.now(), record.updated + 1) });
    await this.alarms.arm();
    return { finalized: true, message: FINALIZE_MESSAGES.done };
  }

  /** Removes a pending request or ends a running one; null when this object does not hold it. */
  async cancel(address: RequestAddress): Promise<RemovalAnswer | null> {
    const request = this.store.find(address);
    if (!request) return null;
    if (!request.unresolved) return { removed: false, message: 'The request already settled.' };
    this.runner.remove(request);
    await this.alarms.arm();
    return { removed: true, message: request.status === 'running' ? 'The running request was cancelled.' : 'The request was removed from its queue.' };
  }

  /** Removes the request only while it waits (a client that stopped polling it); null when this object does not hold it. */
  async withdraw(address: RequestAddress): Promise<RemovalAnswer | null> {
    const request = this.store.find(address);
    if (!request) return null;
    if (request.status !== 'pending') return { removed: false, message: `The request is ${request.status}; only a waiting request is withdrawn.` };
    this.runner.remove(request);
    await this.alarms.arm();
    return { removed: true, message: 'The request was removed from its queue.' };
  }

  /** Read-only, for the owner's view: the stored pieces of a streamed request joined; null when none are held here. */
  async streamText(address: RequestAddress): Promise<StreamText | null> {
    const request = this.store.find(address);
    if (!request?.record.stream) return null;
    return await this.streams.text(request.seq, MAX_STREAM_TEXT_CHARS);
  }

  /** A direct request, written straight to the history (forward-queue/history-keeper.ts). */
  async sendDirect(dispatch: DirectDispatch): Promise<ForwardOutcome> {
    return await this.keeper.sendDirect(dispatch);
  }

  /** Moves the caller's rows D1 still holds here (the cron's wake of callers no request reaches). */
  async importHistory(owner: HistoryOwner): Promise<void> {
    await this.keeper.importOnce(owner);
  }

  async historyRows(owner: HistoryOwner, query: ForwardHistoryQuery, after: string | null, count: number): Promise<ForwardRecord[]> {
    await this.keeper.importOnce(owner);
    return historyRows(this.keeper.history, this.env.BODIES, owner, query, after, count, Date.now(), () => this);
  }

  async historyFind(owner: HistoryOwner, address: RequestAddress): Promise<ForwardRecord | null> {
    await this.keeper.importOnce(owner);
    return findHistory(this.keeper.history, this.env.BODIES, owner, address, Date.now());
  }

  async ownerRows(owner: HistoryOwner, query: OwnerForwardQuery, after: string | null, count: number): Promise<HistoryPlace[]> {
    await this.keeper.importOnce(owner);
    return ownerRows(this.keeper.history, this.env.BODIES, owner, query, after, count, Date.now(), () => this);
  }

  async ownerFind(owner: HistoryOwner, address: OwnerAddress): Promise<HistoryPlace | null> {
    await this.keeper.importOnce(owner);
    return findOwnerHistory(this.keeper.history, this.env.BODIES, owner, address, Date.now(), () => this);
  }

  /** Read-only, for the listings: each request's state here, null where this object does not hold it. */
  async current(addresses: readonly LiveAddress[]): Promise<Array<LiveState | 'unchanged' | null>> {
    return addresses.map((address) => {
      const request = this.store.find(address);
      if (!request) return null;
      const held = request.record;
      if (address.finalized_at !== undefined && held.finalized && held.updated === address.finalized_at) return 'unchanged';
      const { request_body: _body, request_headers: _headers, ...state } = this.store.withTexts(request, ['response_body']);
      return state;
    });
  }

  /** The jobs given up after failing on every try (for the operator's view and tests). */
  async deadJobs(): Promise<DeadJob[]> {
    return this.jobs.dead();
  }

  /** Requests waiting or running in the queue. */
  async queueCount(queue: string): Promise<number> {
    return this.store.queueCount(queue);
  }

  override async alarm(): Promise<void> {
    await this.alarms.serve();
  }

  /** One step of a background job (a queued request's run), in an invocation of its own (job-alarm.ts). */
  async runJob(id: number): Promise<void> {
    await this.alarms.runStarted(id);
  }

  /** Writes the object's paused destinations to D1 for the owner's listing (src/forward/destination-report.ts). */
  private async reportCircuits(job: Job<'report-circuits'>): Promise<void> {
    const paused = this.circuits.paused(MAX_REPORTED_PER_CALLER);
    await reportPaused(this.env.DB, this.jobs.payloadOf(job), paused, Date.now());
    // A change while D1 was written found this job due and added none: it runs again.
    if (JSON.stringify(this.circuits.paused(MAX_REPORTED_PER_CALLER)) === JSON.stringify(paused)) this.jobs.delete(job.id);
    else this.jobs.reschedule(job.id, Date.now());
  }

  /** Pushes the caller's pending metric counts to D1; due again while some are left. */
  private async reportMetrics(job: Job<'report-metrics'>): Promise<void> {
    const more = await this.metrics.report(this.jobs.payloadOf(job), Date.now());
    if (more) this.jobs.reschedule(job.id, Date.now() + METRICS_REPORT_MS);
    else this.jobs.delete(job.id);
  }

  /** A request's status envelope: its place in its queue while unresolved. */
  private envelope(request: QueuedRequest, record: ForwardRecord): ForwardStatusEnvelope {
    return envelopeOf(record, request.unresolved ? this.store.place(request.queue, request.seq) : 0);
  }
}
