import { DurableObject } from 'cloudflare:workers';
import type { StoredTicket } from '../schemas/ticket-types';
import { deadlineFrom } from '../src/actions/budget';
import { meterQueuedRun } from '../src/actions/queued-runs';
import { sendRequestCondition } from '../src/actions/request-condition';
import { runActions, type RunnerDeps, type RunOutcome } from '../src/actions/runner';
import { consumeTicket } from '../src/consume/consume-ticket';
import { closeContinuation, closingLogStatement, type ContinuationJob } from '../src/consume/continuation';
import { logStatements } from '../src/consume/log-export';
import { hasRecordAccess, SecretCache } from '../src/consume/ports';
import type { ConsumeInput, ConsumeOutcome } from '../src/consume/types';
import { verifySignature } from '../src/engine/signature';
import type { Env } from '../src/env';
import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../src/limits';
import { JobAlarm } from './job-alarm';
import type { Job } from './job-table';
import { type LogEntry, type TicketJobKind, TicketStore } from './ticket-store';

/** Log rows written to D1 per export; the export job stays due while the outbox has more. */
const LOG_EXPORT_BATCH = 100;

/**
 * How long a started continuation holds its job: past this the alarm takes it up again (from its last
 * saved action), so a run lost with an evicted instance is finished by the next one. Longer than a run's
 * 25-second budget and its grace, so a live run is never started twice.
 */
const CONTINUATION_LEASE_MS = CONSUMPTION_BUDGET_MS + DEADLINE_GRACE_MS + 4_000;

/**
 * One object per project + ticket: the definition the engine runs, the remaining count, the
 * per-user counters, the log outbox and the scheduled jobs. Everything that must never
 * double-spend is serialized here. One alarm serves the table of jobs (the log export and the
 * continuations of runs that go on after resp), always set to the earliest job.
 */
export class TicketDO extends DurableObject<Env> {
  private readonly data: TicketStore;
  private readonly secrets: SecretCache;
  private readonly alarms: JobAlarm<TicketJobKind>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.data = new TicketStore(ctx.storage.sql);
    this.secrets = new SecretCache(env);
    this.alarms = new JobAlarm(ctx.storage, this.data.jobs, {
      continuation: { run: (job) => this.runContinuation(job), background: true },
      'export-logs': { run: (job) => this.data.outbox.export(job, this.env.DB, (entry) => this.logStatements(entry), LOG_EXPORT_BATCH) },
    });
    // After an eviction or a restart, jobs left in storage keep their alarm.
    void ctx.blockConcurrencyWhile(() => this.alarms.arm(true));
  }

  /** Registers or replaces the definition; per-user counters survive. Returns the remaining count. */
  async store(ticket: StoredTicket, count: number | null | undefined): Promise<number | null> {
    return this.data.store(ticket, count, Date.now());
  }

  /** Whether the ticket exists and its remaining count (null = unlimited). */
  async status(): Promise<{ exists: boolean; remaining: number | null }> {
    return { exists: this.data.ticket() !== null, remaining: this.data.remaining() };
  }

  /** Deletes the definition, the per-user counters and waiting continuations (the log lives in D1 and stays). */
  async remove(): Promise<boolean> {
    return this.data.remove();
  }

  async consume(input: ConsumeInput): Promise<ConsumeOutcome> {
    const serviceId = input.project.service_id;
    const deadline = deadlineFrom(Date.now());
    const outcome = await consumeTicket(this.data, input, {
      now: () => Date.now(),
      runActions: (state) => runActions(state, this.runnerDeps(input.project, deadline)),
      sendRequestCondition: (request, ctx, bodyAlone) => sendRequestCondition(request, ctx, this.runnerDeps(input.project, deadline).services, bodyAlone),
      hasRecordAccess: (recordId, user) => hasRecordAccess(this.env.DB, serviceId, recordId, user.user_id),
      verifySignature: async (config) => {
        const secret = await this.secrets.value(serviceId, config.secretName);
        if (secret === null) return false;
        const request = { rawBody: input.rawBody, method: input.request.method, headers: input.request.headers };
        // A replay is judged as at its arrival: the signature's timestamp against the time it first came.
        return verifySignature(config, request, secret.value, input.replay?.received_at ?? Date.now(), secret.keys);
      },
    });
    await this.alarms.arm();
    return outcome;
  }

  /** Log rows waiting in the outbox (for tests and operations). */
  async pendingLogCount(): Promise<number> {
    return this.data.outbox.size();
  }

  /** The scheduled jobs, and whether each is running now (for tests and operations). */
  async scheduledJobs(): Promise<{ id: number; kind: string; run_at: number; running: boolean }[]> {
    return this.data.jobs.all().map(({ id, kind, run_at }) => ({ id, kind, run_at, running: this.alarms.isRunning(id) }));
  }

  private runnerDeps(project: ContinuationJob['project'], deadline: number): RunnerDeps {
    return {
      services: { env: this.env, serviceId: project.service_id, ownerId: project.owner_id, plan: project.plan, now: () => Date.now(), deadline },
      meterQueuedRun: () => meterQueuedRun(this.env.DB, project.service_id, project.plan, Date.now()),
    };
  }

  /** The one alarm serves the jobs table: continuations in the background, the log export beside them. */
  override async alarm(): Promise<void> {
    await this.alarms.serve();
  }

  /**
   * Goes on with a run after resp, with a fresh 25-second budget. Progress is saved after every
   * action, so a run cut short by an eviction goes on from the action it was at (which may run again).
   */
  private async runContinuation(job: Job<TicketJobKind>): Promise<void> {
    // Held under a lease: should this instance go away mid-run, the alarm takes the job up again after it.
    this.data.jobs.reschedule(job.id, Date.now() + CONTINUATION_LEASE_MS);
    const saved = JSON.parse(job.payload) as ContinuationJob;
    const deps: RunnerDeps = {
      ...this.runnerDeps(saved.project, deadlineFrom(Date.now())),
      onProgress: (state) => this.data.jobs.update(job.id, JSON.stringify({ ...saved, state })),
    };
    let outcome: RunOutcome;
    try {
      outcome = await runActions(saved.state, deps);
    } catch (err) {
      console.error('continuation crashed', err instanceof Error ? err.message : String(err));
      outcome = { rows: saved.state.rows, error: { code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'action' } };
    }
    closeContinuation(this.data, saved, outcome, Date.now());
    this.data.jobs.delete(job.id);
  }

  /** A log entry's D1 statements; idempotent per log key, so a retried export writes each row once. */
  private logStatements({ row, actionRows, final }: LogEntry): D1PreparedStatement[] {
    return [...logStatements(this.env.DB, row, actionRows), ...(final ? [closingLogStatement(this.env.DB, row)] : [])];
  }
}

/** The TicketDO of one ticket of one project. */
export const ticketStub = (env: Env, serviceId: string, ticketId: string) =>
  env.TICKETS.get(env.TICKETS.idFromName(`${serviceId}/${ticketId}`));
