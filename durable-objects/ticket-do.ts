import { DurableObject } from 'cloudflare:workers';
import type { StoredTicket } from '../schemas/ticket-types';
import { deadlineFrom } from '../src/actions/budget';
import { meterQueuedRun } from '../src/actions/queued-runs';
import { runActions, type RunnerDeps, type RunOutcome } from '../src/actions/runner';
import { consumeTicket } from '../src/consume/consume-ticket';
import { closeContinuation, closingLogStatement, type ContinuationJob } from '../src/consume/continuation';
import { logStatements } from '../src/consume/log-export';
import { hasRecordAccess, SecretCache } from '../src/consume/ports';
import type { ConsumeInput, ConsumeOutcome } from '../src/consume/types';
import { verifySignature } from '../src/engine/signature';
import type { Env } from '../src/env';
import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../src/limits';
import { type Job, TicketStore } from './ticket-store';

/** Log rows written to D1 per export; the export job stays due while the outbox has more. */
const LOG_EXPORT_BATCH = 100;

/**
 * How long a started continuation holds its job: past this the alarm takes it up again (from its last
 * saved action), so a run lost with an evicted instance is finished by the next one. Longer than a run's
 * 25-second budget and its grace, so a live run is never started twice.
 */
export const CONTINUATION_LEASE_MS = CONSUMPTION_BUDGET_MS + DEADLINE_GRACE_MS + 4_000;

/** How long one alarm invocation takes up newly due continuations (an alarm may run 15 minutes). */
const ALARM_TAKES_NEW_RUNS_MS = 10 * 60_000;
/** While continuations run, how often the alarm looks for one that fell due meanwhile. */
const ALARM_LOOKS_FOR_DUE_RUNS_MS = 25;
/** While continuations run, how long a failed log export waits before it is tried again. */
const LOG_EXPORT_RETRY_MS = 1_000;

/**
 * One object per project + ticket: the definition the engine runs, the remaining count, the
 * per-user counters, the log outbox and the scheduled jobs. Everything that must never
 * double-spend is serialized here. One alarm serves the table of jobs (the log export and the
 * continuations of runs that go on after resp), always set to the earliest job.
 */
export class TicketDO extends DurableObject<Env> {
  private readonly data: TicketStore;
  private readonly secrets: SecretCache;
  /** Continuations running in this instance (a second alarm run must not start them again). */
  private readonly running = new Set<number>();
  /** The alarm as last set or read (null = none); undefined = ask storage. */
  private alarmAt?: number | null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.data = new TicketStore(ctx.storage.sql);
    this.secrets = new SecretCache(env);
    // After an eviction or a restart, jobs left in storage keep their alarm.
    void ctx.blockConcurrencyWhile(() => this.armAlarm(true));
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
      hasRecordAccess: (recordId, user) => hasRecordAccess(this.env.DB, serviceId, recordId, user.user_id),
      verifySignature: async (config) => {
        const secret = await this.secrets.value(serviceId, config.secretName);
        if (secret === null) return false;
        const request = { rawBody: input.rawBody, method: input.request.method, headers: input.request.headers };
        return verifySignature(config, request, secret.value, Date.now(), secret.keys);
      },
    });
    await this.armAlarm();
    return outcome;
  }

  /** Log rows waiting in the outbox (for tests and operations). */
  async pendingLogCount(): Promise<number> {
    return this.data.outboxSize();
  }

  /** The scheduled jobs, and whether each is running now (for tests and operations). */
  async scheduledJobs(): Promise<{ id: number; kind: string; run_at: number; running: boolean }[]> {
    return this.data.jobs().map(({ id, kind, run_at }) => ({ id, kind, run_at, running: this.running.has(id) }));
  }

  private runnerDeps(project: ContinuationJob['project'], deadline: number): RunnerDeps {
    return {
      services: { env: this.env, serviceId: project.service_id, ownerId: project.owner_id, plan: project.plan, now: () => Date.now(), deadline },
      meterQueuedRun: () => meterQueuedRun(this.env.DB, project.service_id, project.plan, Date.now()),
    };
  }

  /** Sets the alarm to the earliest job, unless it is already set earlier; a no-op when no job changed. */
  private async armAlarm(force = false): Promise<void> {
    if (!this.data.takeJobsChanged() && !force) return;
    const next = this.data.nextJobAt();
    if (next === null) return;
    const at = Math.max(next, Date.now());
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt === null || at < this.alarmAt) {
      this.alarmAt = at;
      await this.ctx.storage.setAlarm(at);
    }
  }

  /**
   * Runs the due continuations concurrently and exports the log outbox. The runtime runs one alarm at a
   * time, so while runs are going this invocation stays and takes up every continuation that falls due
   * meanwhile (it looks every ALARM_LOOKS_FOR_DUE_RUNS_MS): a '0m' run starts at once instead of after
   * the runs before it. For its first ALARM_TAKES_NEW_RUNS_MS only, so it ends well within an alarm's
   * time limit; later runs start from the next alarm. The export goes when the alarm fires, due or not (its delay only gathers
   * a burst of rows into one batch), and while runs go on, whenever it falls due.
   */
  override async alarm(): Promise<void> {
    // The alarm that fired is spent; what storage holds now decides the next one.
    this.alarmAt = undefined;
    const started = Date.now();
    const runs = new Map<number, Promise<void>>();
    for (;;) {
      if (Date.now() - started < ALARM_TAKES_NEW_RUNS_MS) {
        for (const job of this.data.dueJobs(Date.now())) {
          if (job.kind !== 'continuation' || this.running.has(job.id)) continue;
          runs.set(job.id, this.runContinuation(job).finally(() => runs.delete(job.id)));
        }
      }
      const exportJob = this.data.jobs().find((job) => job.kind === 'export-logs');
      if (exportJob && (runs.size === 0 || exportJob.run_at <= Date.now())) {
        try {
          await this.exportLogs(exportJob);
        } catch (err) {
          // With no run going, the runtime retries the alarm. With runs going, the loop must go on taking
          // up the continuations that fall due (an alarm that threw would leave them to its retry).
          if (runs.size === 0) throw err;
          console.error('log export failed; retrying', err instanceof Error ? err.message : String(err));
          this.data.rescheduleJob(exportJob.id, Date.now() + LOG_EXPORT_RETRY_MS);
        }
      }
      if (runs.size === 0) break;
      // A timer of its own, not a promise another event resolves: I/O stays with this alarm's context.
      await Promise.race([...runs.values(), new Promise<void>((resolve) => setTimeout(resolve, ALARM_LOOKS_FOR_DUE_RUNS_MS))]);
    }
    await this.armAlarm(true);
  }

  /**
   * Goes on with a run after resp, with a fresh 25-second budget. Progress is saved after every
   * action, so a run cut short by an eviction goes on from the action it was at (which may run again).
   */
  private async runContinuation(job: Job): Promise<void> {
    this.running.add(job.id);
    // Held under a lease: should this instance go away mid-run, the alarm takes the job up again after it.
    this.data.rescheduleJob(job.id, Date.now() + CONTINUATION_LEASE_MS);
    try {
      const saved = JSON.parse(job.payload) as ContinuationJob;
      const deps: RunnerDeps = {
        ...this.runnerDeps(saved.project, deadlineFrom(Date.now())),
        onProgress: (state) => this.data.updateJob(job.id, JSON.stringify({ ...saved, state })),
      };
      let outcome: RunOutcome;
      try {
        outcome = await runActions(saved.state, deps);
      } catch (err) {
        console.error('continuation crashed', err instanceof Error ? err.message : String(err));
        outcome = { rows: saved.state.rows, error: { code: 'INTERNAL_ERROR', message: 'Internal server error.', stage: 'action' } };
      }
      closeContinuation(this.data, saved, outcome, Date.now());
      this.data.deleteJob(job.id);
    } finally {
      this.running.delete(job.id);
    }
  }

  /** Exports the log outbox to D1; idempotent per log key, so a retried alarm writes each row once. */
  private async exportLogs(job: Job): Promise<void> {
    const pending = this.data.pendingLogs(LOG_EXPORT_BATCH);
    if (pending.length > 0) {
      const statements = pending.flatMap(({ row, actionRows, final }) => [
        ...logStatements(this.env.DB, row, actionRows),
        ...(final ? [closingLogStatement(this.env.DB, row)] : []),
      ]);
      await this.env.DB.batch(statements);
      this.data.dropLogsThrough(pending[pending.length - 1].id);
    }
    if (this.data.hasPendingLogs()) this.data.rescheduleJob(job.id, Date.now());
    else this.data.deleteJob(job.id);
  }
}

/** The TicketDO of one ticket of one project. */
export const ticketStub = (env: Env, serviceId: string, ticketId: string) =>
  env.TICKETS.get(env.TICKETS.idFromName(`${serviceId}/${ticketId}`));
