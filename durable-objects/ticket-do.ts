import { DurableObject } from 'cloudflare:workers';
import type { StoredTicket } from '../schemas/ticket-types';
import { deadlineFrom } from '../src/actions/budget';
import { meterQueuedRun } from '../src/actions/queued-runs';
import { sendRequestCondition } from '../src/actions/request-condition';
import { runActions, type FailedAction, type RunnerDeps, type RunOutcome } from '../src/actions/runner';
import { consumeTicket } from '../src/consume/consume-ticket';
import { closeContinuation, recordAttempt, scheduledFailure, type ContinuationJob } from '../src/consume/continuation';
import { nextAttempt, startProgress } from '../src/consume/retry-attempts';
import { gatedModules } from '../src/consume/circuit-gate';
import { timedModules } from '../src/consume/req-timing';
import { COUNTER, reqLatencyCounters } from '../src/metrics/counters';
import { TICKET_METRICS_QUERIES } from './ticket-metrics';
import { METRICS_REPORT_MS } from './pending-metrics';
import { deadLetterOf } from '../src/consume/dead-letter';
import type { TicketDeadLetter, TicketDeadLetterQuery } from '../src/consume/dead-letter';
import { TicketReplayer } from './ticket-replayer';
import type { BulkReplayRequest } from '../schemas/bulk-replays';
import type { BulkReplay, Refusal, ReplayStart } from '../src/consume/bulk-replay';
import { closingLogStatement, logStatements, type LogExport } from '../src/ticket-log/log-export';
import { consumedIndexStatement } from '../src/ticket-log/consumed-index';
import { reportTicketStorage } from '../src/platform/project-storage';
import { strictEnv, strictObject } from '../src/platform/strict-entry';
import type { KeptRequest } from '../src/ticket-log/kept-request';
import { deleteLegacyStatements, mergeLegacyPage, readLegacyChunk, readLegacyKeys, readLegacyPage } from '../src/ticket-log/legacy-log';
import { actionListingRows, listingRow, storedLogRow } from '../src/ticket-log/log-body';
import type { LogListingRow, LogPageQuery, StoredActionRow, StoredLogRow } from '../src/ticket-log/log-rows';
import { signingSecret } from '../src/consume/ports';
import { hasRecordAccess } from '../src/records/grants';
import type { ConsumeInput, ConsumeOutcome } from '../src/consume/types';
import { verifySignature } from '../src/engine/signature';
import type { Env } from '../src/env';
import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../src/limits';
import { ENTRY_OVERHEAD_BYTES, MINUTE_MS } from '../src/ticket-log/log-sampling';
import { JobAlarm } from './job-alarm';
import type { FloodMinute } from '../src/ticket-log/log-sampler';
import type { DeadJob, Job } from './job-table';
import type { LogScope } from '../src/ticket-log/ticket-log';
import type { LogSearchPage, LogSearchRequest } from '../src/ticket-log/log-search';
import { eventDetailOf, type LogEventDetail } from '../src/ticket-log/log-event-detail';
import { type LogRef, type TicketJobKind, type TicketJobs, TicketStore } from './ticket-store';
import { DestinationCircuits } from './destination-circuits';
import { TicketCircuits } from './ticket-circuits';
import { internalErrorBody } from '../src/wire/errors';

/** Which ticket's log (its object's own): a caller that does not know the plan names only the ticket. */

/** Log rows written to D1 per export; the export job stays due while the outbox has more. */
const LOG_EXPORT_BATCH = 100;
/** Rows of the old D1 log taken in per D1 round trip, and round trips one read may spend on them. */
const LEGACY_CHUNK = 100;
const LEGACY_CHUNKS_PER_CALL = 10;
/** Idempotency keys deleted per run of their expiry job. */
const KEY_EXPIRY_BATCH = 1_000;
/** Dead letters deleted per run of their expiry job. */
const DEAD_LETTER_EXPIRY_BATCH = 1_000;
const DAY_MS = 86_400_000;

/**
 * How long a started continuation holds its job: past this the alarm takes it up again (from its last
 * saved action), so a run lost with an evicted instance is finished by the next one. Longer than a run's
 * 25-second budget and its grace, so a live run is never started twice.
 */
const CONTINUATION_LEASE_MS = CONSUMPTION_BUDGET_MS + DEADLINE_GRACE_MS + 4_000;

/**
 * Continuations running at once in one ticket's object, each in an invocation of its own. A step reads
 * at most one `req` answer at a time (5 MiB, MAX_RESPONSE_BYTES) and keeps what the log keeps: 16 of
 * them stay inside an isolate's 128 MB beside the consumptions it serves.
 */
const BACKGROUND_AT_ONCE = 16;

/**
 * One object per project + ticket: the definition the engine runs, the remaining count, the
 * per-user counters, the log outbox and the scheduled jobs. Everything that must never
 * double-spend is serialized here. One alarm serves the table of jobs (the log export and the
 * continuations of runs that go on after resp), always set to the earliest job.
 */
export class TicketDO extends DurableObject<Env> {
  private readonly data: TicketStore;
  private readonly alarms: JobAlarm<TicketJobs>;
  private readonly replayer: TicketReplayer;
  /** Extension: the circuits of the origins its runs with a retry schedule send to. */
  private readonly circuits: TicketCircuits;
  /** The bytes last reported to the project's storage count (undefined: none since this instance started). */
  private reportedBytes?: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, strictEnv(env));
    strictObject(this, ctx, env);
    this.data = new TicketStore(ctx.storage.sql, this.env.BODIES);
    this.replayer = new TicketReplayer(this.data, this.env, (input) => this.consume(input));
    const circuits = new DestinationCircuits(ctx.storage.sql);
    this.circuits = new TicketCircuits(circuits, this.data.jobs, this.env);
    const self = this.env.TICKETS.get(ctx.id);
    this.alarms = new JobAlarm(
      ctx.storage,
      this.data.jobs,
      {
        continuation: { run: (job) => this.runContinuation(job), background: true, givenUp: (job) => this.giveUpContinuation(job) },
        // d1Queries: the most each run makes (job-alarm.ts), the storage report of a step included.
        // tries: a D1 outage must not drop the log (an entry that can never be written goes to dead_letters, outbox.ts).
        'export-logs': {
          run: (job) => this.data.outbox.export(job, this.env.DB, (entries) => this.exportStatements(entries), LOG_EXPORT_BATCH),
          d1Queries: 2,
          tries: Infinity,
        },
        'compact-logs': {
          // Settled as the step ends, before the job is rescheduled or deleted: a consumption after it schedules again.
          run: (job) => this.stepJob(job, () => this.data.log.compact().finally(() => this.data.compactionSettled())),
          givenUp: () => (this.data.compactionSettled(), false),
          d1Queries: 1,
        },
        'expire-idempotency-keys': { run: async (job) => this.expireKeys(job) },
        'expire-dead-letters': { run: (job) => this.expireDeadLetters(job) },
        // Each step replays a batch of consumptions: an invocation of its own, as a consumption is.
        'bulk-replay': { run: (job) => this.replayer.step(job), background: true },
        'report-circuits': { run: (job) => this.circuits.report(job), d1Queries: 1 },
        'flush-metrics': {
          run: async (job) => {
            this.data.metrics.flush();
            this.data.jobs.delete(job.id);
          },
        },
        'report-metrics': { run: (job) => this.reportMetrics(job), d1Queries: TICKET_METRICS_QUERIES },
        'flush-sampling': {
          run: async (job) => {
            this.data.sampler.flush();
            this.data.jobs.delete(job.id);
          },
        },
        'clear-log': {
          run: (job) => this.stepJob(job, () => this.clearStep(this.data.jobs.payloadOf(job))),
          d1Queries: 3 * LEGACY_CHUNKS_PER_CALL + 1,
        },
        'take-in-logs': {
          run: (job) => this.stepJob(job, async () => !(await this.takeInLegacy(this.data.jobs.payloadOf(job), LEGACY_CHUNKS_PER_CALL))),
          d1Queries: 3 * LEGACY_CHUNKS_PER_CALL + 1,
        },
      },
      { start: (id) => self.runJob(id), waitUntil: (promise) => ctx.waitUntil(promise), atOnce: BACKGROUND_AT_ONCE },
    );
    // After an eviction or a restart, jobs left in storage keep their alarm; a probe that was out was lost with the old instance.
    void ctx.blockConcurrencyWhile(() => {
      circuits.releaseProbes(Date.now());
      return this.alarms.arm(true);
    });
  }

  /** Registers or replaces the definition; per-user counters survive. Returns the remaining count. */
  async store(ticket: StoredTicket, count: number | null | undefined): Promise<number | null> {
    return this.data.store(ticket, count, Date.now());
  }

  /** Whether the ticket exists and its remaining count (null = unlimited). */
  async status(): Promise<{ exists: boolean; remaining: number | null }> {
    return { exists: this.data.ticket() !== null, remaining: this.data.remaining() };
  }

  /** Deletes the definition, the per-user counters, waiting continuations and destination circuits (the log stays). */
  async remove(): Promise<boolean> {
    const removed = this.data.remove();
    await this.circuits.forget(this.data.log.scope());
    return removed;
  }

  async consume(input: ConsumeInput): Promise<ConsumeOutcome> {
    const serviceId = input.project.service_id;
    const deadline = deadlineFrom(Date.now());
    this.data.log.bind({ service_id: serviceId, ticket_id: input.ticket_id, plan: input.project.plan });
    const outcome = await consumeTicket(this.data, input, {
      now: () => Date.now(),
      runActions: (state) => runActions(state, this.runnerDeps(input.project, deadline)),
      sendRequestCondition: (request, ctx, bodyAlone) => sendRequestCondition(request, ctx, this.runnerDeps(input.project, deadline).services, bodyAlone),
      hasRecordAccess: (recordId, user) => hasRecordAccess(this.env.DB, serviceId, recordId, user.user_id),
      verifySignature: async (config) => {
        const secret = await signingSecret(this.env, serviceId, config.secretName);
        if (secret === null) return false;
        // The URL as received (scheme, host, path, query), for the ${url} extension token.
        const request = { rawBody: input.rawBody, method: input.request.method, headers: input.request.headers, url: input.url };
        // A replay is judged as at its arrival: the signature's timestamp against the time it first came.
        return verifySignature(config, request, secret.value, input.replay?.received_at ?? Date.now(), secret.keys);
      },
    });
    await this.alarms.arm();
    return outcome;
  }

  /** A page of the ticket's dead letters (extension), newest failure first. */
  async deadLetterPage(scope: LogScope, query: TicketDeadLetterQuery): Promise<TicketDeadLetter[]> {
    this.data.log.bind(scope);
    return this.data.deadLetters.page(query);
  }

  /** Whether the consumption is one of the ticket's dead letters. */
  async isDeadLetter(consumeId: string): Promise<boolean> {
    return this.data.deadLetters.has(consumeId);
  }

  /**
   * Replays a dead letter (extension): from its failed action, or whole when `full`. A replay that succeeds
   * takes it off the list; undefined when the consumption is not (or no longer) a dead letter.
   */
  async replayDeadLetter(input: ConsumeInput, full: boolean): Promise<ConsumeOutcome | undefined> {
    const consumeId = input.replay?.of ?? '';
    const state = this.data.deadLetters.stateOf(consumeId);
    if (!state || !input.replay) return undefined;
    const outcome = await this.consume(full ? input : { ...input, replay: { ...input.replay, resume: state } });
    if (outcome.ok) this.data.deadLetters.delete(consumeId);
    await this.reportStorage();
    return outcome;
  }

  /** Deletes one dead letter (the owner dealt with it); false when there is none. */
  async deleteDeadLetter(consumeId: string): Promise<boolean> {
    const deleted = this.data.deadLetters.delete(consumeId);
    if (deleted) await this.reportStorage();
    return deleted;
  }

  /** Counts or starts a bulk replay of the log or the dead letters (extension; ticket-replayer.ts). */
  async startReplay(scope: LogScope, request: BulkReplayRequest): Promise<ReplayStart> {
    this.data.log.bind(scope);
    const started = this.replayer.start(request, Date.now());
    await this.alarms.arm();
    return started;
  }

  /** The ticket's bulk replays, newest first, or one of them. */
  async replays(): Promise<BulkReplay[]> {
    return this.data.replays.list();
  }

  async replay(id: number): Promise<BulkReplay | undefined> {
    return this.data.replays.get(id);
  }

  /** Cancels a running bulk replay; undefined when there is no such replay. */
  async cancelReplay(id: number): Promise<BulkReplay | Refusal | undefined> {
    return this.replayer.cancel(id, Date.now());
  }

  /** Entries waiting in the outbox for D1 (for tests and operations). */
  async pendingLogCount(): Promise<number> {
    return this.data.outbox.size();
  }

  /**
   * One page of the log, newest first, each row as the listing shows it. While D1 still holds rows of
   * the old log that this object has not taken in yet, the page reads both and merges them.
   */
  async logPage(scope: LogScope, query: LogPageQuery): Promise<LogListingRow[]> {
    const left = await this.readyLog(scope);
    // D1 first: a row moved meanwhile is then in both reads (and kept once), never in neither.
    const legacy = left ? await readLegacyPage(this.env.DB, scope.service_id, scope.ticket_id, query) : [];
    const rows = (await this.data.log.page(query)).map(({ index, body }) => listingRow(scope.ticket_id, index, body));
    return mergeLegacyPage(scope.ticket_id, rows, legacy, query.count);
  }

  /** The action rows of one consumption, in the order they ran; [] when the log has no such consumption. */
  async logActions(scope: LogScope, consumeId: string): Promise<StoredActionRow[]> {
    const entry = await this.entryOf(scope, consumeId);
    return entry ? actionListingRows(scope.ticket_id, entry.index.timestamp, entry.body) : [];
  }

  /** The request a consumption received; undefined when the log has no such consumption, null when nothing was kept. */
  async keptRequest(scope: LogScope, consumeId: string): Promise<KeptRequest | null | undefined> {
    const entry = await this.entryOf(scope, consumeId);
    return entry ? (entry.body.request ?? null) : undefined;
  }

  /** The event inspector's search (issue 37 item 4, extension): one bounded page, newest first (src/ticket-log/log-search.ts). */
  async searchLog(scope: LogScope, request: LogSearchRequest): Promise<LogSearchPage> {
    await this.readyLog(scope);
    return this.data.log.search(request);
  }

  /** One consumption as the event inspector shows it: its facts, the request as received, each action and the answer; undefined when the log has none. */
  async logEvent(scope: LogScope, logKey: string): Promise<LogEventDetail | undefined> {
    const entry = await this.entryOf(scope, logKey);
    return entry ? eventDetailOf(entry.index, entry.body) : undefined;
  }

  /** The rows of these consumptions that the log still has (getConsumedTickets), in the order asked. */
  async consumedRows(scope: LogScope, logKeys: string[]): Promise<StoredLogRow[]> {
    if (await this.readyLog(scope)) await this.takeInKeys(scope, logKeys);
    return (await this.data.log.entries(logKeys)).map(({ index, body }) => storedLogRow(scope.ticket_id, index, body));
  }

  /** Deletes the entries older than `before` (clearTicketLog, retention): one step now, the rest in the background. */
  async clearLog(scope: LogScope, before: number): Promise<void> {
    this.data.log.bind(scope);
    if (!(await this.clearStep({ before, scope }))) {
      await this.reportStorage();
      return;
    }
    this.data.jobs.add('clear-log', Date.now(), { before, scope });
    await this.alarms.arm();
  }

  /** Writes a warning on one action row of a consumption (a newsletter batch that went out but was not counted). */
  async setActionWarning(ticket: LogRef, consumeId: string, path: string, warning: string): Promise<boolean> {
    if (await this.readyLog(ticket)) await this.takeInKeys(ticket, [consumeId]);
    const set = await this.data.log.setActionWarning(consumeId, path, warning);
    if (this.data.log.compactionDue()) this.data.scheduleCompaction();
    await this.alarms.arm();
    return set;
  }

  /** Every entry of the log, oldest first, with its action rows (tests and operations; a bounded log only). */
  async logEntries(): Promise<(StoredLogRow & { code: string | null; actions: StoredActionRow[] })[]> {
    const scope = this.data.log.scope();
    const ticketId = scope?.ticket_id ?? '';
    return (await this.data.log.all()).map(({ index, body }) => ({
      ...storedLogRow(ticketId, index, body),
      code: body.code,
      actions: actionListingRows(ticketId, index.timestamp, body),
    }));
  }

  /** The bytes the log stores (src/ticket-log/log-sampling.ts counts them so; for tests and operations). */
  async logBytes(): Promise<number> {
    return this.data.log.storedBytes(ENTRY_OVERHEAD_BYTES);
  }

  /**
   * Refusals (429) the Worker counted at this ticket, minute → count, flushed at most once a minute per
   * isolate (docs/decisions.md); a ticket that does not exist keeps none.
   */
  async addLimited(counts: [number, number][]): Promise<void> {
    if (this.data.ticket() === null) return;
    this.data.sampler.addLimited(counts);
    for (const [minute, n] of counts) this.data.countMetric(minute * MINUTE_MS, { [COUNTER.floodRefused]: n });
    await this.alarms.arm();
  }

  /** The minutes since `from` (ms) in which the ticket refused callers or counted entries instead of keeping them. */
  async floodMinutes(from: number): Promise<FloodMinute[]> {
    return this.data.sampler.minutes(Math.floor(from / MINUTE_MS));
  }

  /** The scheduled jobs, and whether each is running now (for tests and operations). */
  async scheduledJobs(): Promise<{ id: number; kind: string; run_at: number; running: boolean }[]> {
    return this.data.jobs.all().map(({ id, kind, run_at }) => ({ id, kind, run_at, running: this.alarms.isRunning(id) }));
  }

  /** The jobs given up after failing on every try (for the operator's view and tests). */
  async deadJobs(): Promise<DeadJob[]> {
    return this.data.jobs.dead();
  }

  private runnerDeps(project: ContinuationJob['project'], deadline: number, modules?: RunnerDeps['modules']): RunnerDeps {
    return {
      modules: timedModules((ms) => this.data.countMetric(Date.now(), reqLatencyCounters(ms)), modules),
      services: { env: this.env, serviceId: project.service_id, ownerId: project.owner_id, plan: project.plan, now: () => Date.now(), deadline },
      meterQueuedRun: () => meterQueuedRun(this.env.DB, project.service_id, project.plan, Date.now()),
    };
  }

  /** The one alarm serves the jobs table: continuations in the background, the log export beside them. */
  override async alarm(): Promise<void> {
    await this.alarms.serve();
  }

  /** One continuation, in an invocation of its own (job-alarm.ts). */
  async runJob(id: number): Promise<void> {
    await this.alarms.runStarted(id);
  }

  /**
   * Goes on with a run after resp, with a fresh 25-second budget. Progress is saved after every
   * action, so a run cut short by an eviction goes on from the action it was at (which may run again).
   * With a retry schedule (extension), a failure it retries leaves the run at the failed action and the
   * job due at the next attempt's time: each attempt is a run of this job, started by the alarm.
   */
  private async runContinuation(job: Job<'continuation'>): Promise<void> {
    // Held under a lease: should this instance go away mid-run, the alarm takes the job up again after it.
    const started = Date.now();
    this.data.jobs.reschedule(job.id, started + CONTINUATION_LEASE_MS);
    const saved = this.data.jobs.payloadOf(job);
    if (saved.schedule) saved.progress ??= startProgress(started);
    let next: ReturnType<typeof nextAttempt> = null;
    // The schedule ran out on a failure it retries: the run is a dead letter, kept at its failed action.
    let exhausted: ReturnType<typeof deadLetterOf>;
    const { schedule, progress } = saved;
    // Extension: an attempt whose req goes to an origin with an open circuit is held (no attempt used), or runs as its probe.
    const admitted = schedule && progress ? this.circuits.admitAttempt(saved.log, schedule, progress, started, started + CONTINUATION_LEASE_MS) : undefined;
    if (admitted && 'heldUntil' in admitted) {
      this.waitForAttempt(job, { ...saved, progress: admitted.progress }, admitted.heldUntil, saved.state.rows);
      return;
    }
    const deferFailure = (failed: FailedAction): boolean => {
      if (!schedule || !progress) return false;
      const failure = scheduledFailure(failed);
      next = nextAttempt(schedule, progress, failure, Date.now(), Math.random);
      if (next === null) exhausted = deadLetterOf(failed, failure, schedule, progress, saved.log);
      return next !== null;
    };
    const deps: RunnerDeps = {
      ...this.runnerDeps(saved.project, deadlineFrom(started), admitted ? gatedModules(admitted.gate) : undefined),
      onProgress: (state) => this.data.jobs.update(job, { ...saved, state }),
      ...(schedule && progress ? { deferFailure } : {}),
    };
    let outcome: RunOutcome;
    try {
      outcome = await runActions(saved.state, deps);
    } catch (err) {
      console.error('continuation crashed', err instanceof Error ? err.message : String(err));
      outcome = { rows: saved.state.rows, error: internalErrorBody('action') };
    } finally {
      admitted?.settled();
    }
    const retry = next as ReturnType<typeof nextAttempt>;
    if (outcome.deferred && retry) {
      this.data.countMetric(Date.now(), { [COUNTER.retries]: 1 });
      this.waitForAttempt(job, { ...saved, progress: retry.progress }, retry.at, outcome.rows);
      return;
    }
    closeContinuation(this.data, saved, outcome, Date.now());
    this.data.jobs.delete(job.id);
    const dead = exhausted as typeof exhausted;
    if (dead && outcome.error) {
      this.data.deadLetters.add({ ...dead.letter, failed_at: Date.now() }, dead.state);
      this.data.countMetric(Date.now(), { [COUNTER.deadLetters]: 1 });
      await this.reportStorage();
    }
  }

  /** Pushes the ticket's pending metric counts to D1; due again while some are left. */
  private async reportMetrics(job: Job<'report-metrics'>): Promise<void> {
    const scope = this.data.log.scope();
    const more = scope ? await this.data.metrics.report(this.env.DB, scope) : false;
    if (more) this.data.jobs.reschedule(job.id, Date.now() + METRICS_REPORT_MS);
    else this.data.jobs.delete(job.id);
  }

  /** Removes dead letters past the plan's retention, a batch per run; due again when the next one expires. */
  private async expireDeadLetters(job: Job<'expire-dead-letters'>): Promise<void> {
    const days = this.data.deadLetterDays();
    const now = Date.now();
    const oldest = days === null ? null : this.data.deadLetters.expire(now - days * DAY_MS, DEAD_LETTER_EXPIRY_BATCH);
    if (oldest === null || days === null) this.data.jobs.delete(job.id);
    else this.data.jobs.reschedule(job.id, Math.max(oldest + days * DAY_MS, now));
    await this.reportStorage();
  }

  /** A scheduled run waits for its next attempt at `at`: its job and its open log entry say so. */
  private waitForAttempt(job: Job<'continuation'>, waiting: ContinuationJob, at: number, rows: RunOutcome['rows']): void {
    this.data.jobs.update(job, waiting);
    this.data.jobs.reschedule(job.id, at);
    recordAttempt(this.data, waiting, at, rows);
  }

  /** Removes idempotency keys whose window ended, a batch per run; due again when the next one ends. */
  private async expireKeys(job: Job<'expire-idempotency-keys'>): Promise<void> {
    const now = Date.now();
    const next = this.data.idempotency.expire(now, KEY_EXPIRY_BATCH);
    if (next === null) this.data.jobs.delete(job.id);
    else this.data.jobs.reschedule(job.id, Math.max(next, now));
  }

  /** A continuation that failed on every try: its consumption's log entry is closed as failed; the job is kept among the dead. */
  private giveUpContinuation(job: Job<'continuation'>): boolean {
    const saved = this.data.jobs.payloadOf(job);
    closeContinuation(this.data, saved, { rows: saved.state.rows, error: internalErrorBody('action') }, Date.now());
    return false;
  }

  /**
   * An export's D1 statements, idempotent so a retried export writes each row once: the signed-in
   * consumptions' index rows together in one statement.
   */
  private exportStatements(entries: LogExport[]): D1PreparedStatement[] {
    const consumed = entries.flatMap((entry) => ('consumed' in entry ? [entry.consumed] : []));
    return [...(consumed.length > 0 ? [consumedIndexStatement(this.env.DB, consumed)] : []), ...entries.flatMap((entry) => this.legacyStatements(entry))];
  }

  /** An entry of the old shape, stored before an upgrade: to D1's old log, which the log takes in from there. */
  private legacyStatements(entry: LogExport): D1PreparedStatement[] {
    if ('consumed' in entry) return [];
    const { row, actionRows, final } = entry;
    return [...logStatements(this.env.DB, row, actionRows), ...(final ? [closingLogStatement(this.env.DB, row)] : [])];
  }

  /** A job that works in steps: due again at once while `step` says more remains. */
  private async stepJob(job: Job<TicketJobKind>, step: () => Promise<boolean>): Promise<void> {
    if (await step()) this.data.jobs.reschedule(job.id, Date.now());
    else this.data.jobs.delete(job.id);
    await this.reportStorage();
  }

  /**
   * Reports what the log holds (this object's SQLite file and its R2 segments) to the project's storage
   * count when it changed: after a segment is packed or a clear step, never per consumption. A failed
   * report is tried again at the next step.
   */
  private async reportStorage(): Promise<void> {
    const scope = this.data.log.scope();
    const bytes = this.ctx.storage.sql.databaseSize + this.data.log.segmentBytes();
    if (!scope || bytes === this.reportedBytes) return;
    try {
      await reportTicketStorage(this.env.DB, scope.service_id, scope.ticket_id, bytes, Date.now());
      this.reportedBytes = bytes;
    } catch (err) {
      console.error('storage report failed', err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Before the log is read: which ticket it is (with its plan, when the caller knows it), and its rows
   * still in D1's old log taken in, as many as one call may. Returns whether some are left there (the
   * rest then goes on in the background).
   */
  private async readyLog(ticket: LogRef | LogScope): Promise<boolean> {
    if ('plan' in ticket) this.data.log.bind(ticket);
    if (await this.takeInLegacy(ticket, LEGACY_CHUNKS_PER_CALL)) return false;
    this.data.jobs.addOnce('take-in-logs', Date.now(), ticket);
    await this.alarms.arm();
    return true;
  }

  /** One consumption's entry, taken in from D1's old log first if it is still there. */
  private async entryOf(scope: LogScope, consumeId: string) {
    if (await this.readyLog(scope)) await this.takeInKeys(scope, [consumeId]);
    return this.data.log.entry(consumeId);
  }

  /** Takes in these rows of the old log, if D1 still has them. */
  private async takeInKeys(scope: LogRef, logKeys: string[]): Promise<void> {
    const rows = await readLegacyKeys(this.env.DB, scope.service_id, scope.ticket_id, logKeys);
    if (rows.length === 0) return;
    this.data.log.takeIn(rows);
    await this.env.DB.batch(
      deleteLegacyStatements(
        this.env.DB,
        scope.service_id,
        scope.ticket_id,
        rows.map((r) => r.row),
      ),
    );
  }

  /** Takes in up to `chunks` chunks of the ticket's rows from D1's old log; true when none is left there. */
  private async takeInLegacy(scope: LogRef, chunks: number): Promise<boolean> {
    for (let i = 0; i < chunks; i++) {
      const rows = await readLegacyChunk(this.env.DB, scope.service_id, scope.ticket_id, LEGACY_CHUNK);
      if (rows.length === 0) return true;
      this.data.log.takeIn(rows);
      await this.env.DB.batch(
        deleteLegacyStatements(
          this.env.DB,
          scope.service_id,
          scope.ticket_id,
          rows.map((r) => r.row),
        ),
      );
      if (this.data.log.compactionDue()) this.data.scheduleCompaction();
      if (rows.length < LEGACY_CHUNK) return true;
    }
    return false;
  }

  /** One step of a clear: the old D1 rows first (taken in, so one rule deletes them), then the object's own. */
  private async clearStep({ before, scope }: { before: number; scope: LogScope }): Promise<boolean> {
    if (!(await this.takeInLegacy(scope, LEGACY_CHUNKS_PER_CALL))) return true;
    return this.data.log.deleteBefore(before);
  }
}
