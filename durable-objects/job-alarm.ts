/**
 * The one alarm of a Durable Object, serving its JobTable with one handler per job kind. The alarm
 * is always set to the earliest job that is not running. A building block any object uses with its
 * `ctx.storage`.
 *
 * Every invocation has its own budget (6 open connections, 10,000 subrequests by default and 1,000 D1
 * queries on Paid, 50 on Free, 15 minutes for an alarm: docs/limits.md), so no invocation runs an
 * object's whole life. The alarm runs the foreground jobs (short steps: an export batch, a compaction
 * step) and starts each due background job (one queued request's run, one continuation) in an
 * invocation of its own: the object's call of its own `runJob` through its stub.
 *
 * A chain of calls through Workers and Durable Objects deeper than 16 is refused, `waitUntil` included,
 * so no step starts the next one (or any other job) from its own invocation. The alarm starts what is
 * due (alarm → runJob: depth 2, however long the queue) and, while its chain lasts, starts what is due
 * next as each step it started ends, from its own invocation; a step started otherwise sets the alarm to
 * now when it ends. An outside invocation that makes a job due (a dispatch) may start it at once, one
 * hop below itself.
 * A failed start and a failing step are retried by the alarm with a growing delay; a job that fails
 * on every try is given up (`givenUp`, else moved to `dead_jobs`).
 */
import type { Job, JobPayloads, JobTable, KindOf } from './job-table';

export interface JobHandler<K extends string> {
  /** One step of the job; it reschedules the job while more remains, or deletes it when done. */
  run(job: Job<K>): Promise<void>;
  /**
   * A background job (a step that takes seconds) runs in an invocation of its own, started by the
   * alarm and not waited for. Its handler holds the job (a lease: it moves `run_at` past the step's
   * longest run) so a step lost with its instance is taken up again after the lease.
   */
  background?: boolean;
  /** The most D1 queries one run makes (a foreground job): one alarm runs as many as fit in ALARM_D1_QUERIES. */
  d1Queries?: number;
  /** Tries before the job is given up (default RETRY.tries); Infinity for a job that must never be dropped. */
  tries?: number;
  /**
   * The job failed on its last try. Answers true when the handler dealt with it and the job goes on (a
   * queue settles its head request as failed and serves the next); else the job is moved to dead_jobs.
   */
  givenUp?(job: Job<K>, error: string): boolean;
}

/** One handler per job kind; each reads its own kind's payload (JobTable.payloadOf). */
export type JobHandlers<P extends JobPayloads> = { [K in KindOf<P>]: JobHandler<K> };

/** Retries of a failed start or a failed step: `firstMs` doubling up to `maxMs`, at most `tries` tries of a step. */
export interface RetryPolicy {
  firstMs: number;
  maxMs: number;
  tries: number;
}

export const RETRY: RetryPolicy = { firstMs: 1_000, maxMs: 60_000, tries: 8 };

export interface JobAlarmOptions {
  /** The clock (tests drive it). */
  now?: () => number;
  retry?: Partial<RetryPolicy>;
}

/** How the object starts a background step in an invocation of its own. */
export interface JobDispatch {
  /** Calls the object's own `runJob(id)` through its stub (a new invocation, with a budget of its own). */
  start(jobId: number): Promise<void>;
  /** `ctx.waitUntil`: the started call outlives the invocation that made it. */
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Background steps running at once in the object. They share one isolate's 128 MB, so the figure is
   * what a step may hold (docs/limits.md, "Invocations"); past it, due jobs wait for a step to end.
   */
  atOnce: number;
}

/** Background jobs one invocation starts (each start is one subrequest of it); the rest follow from the next. */
const STARTS_PER_INVOCATION = 100;
/**
 * How long and for how many starts one alarm goes on starting the next step as each of its steps ends
 * (each start is a subrequest of the alarm, its work outlives the alarm's handler through waitUntil);
 * then the next alarm takes over. Short of the 30 s a Worker's waitUntil is granted after its event.
 */
const CHAIN_MS = 20_000;
const CHAIN_STARTS = 500;
/** A step the alarm's chain follows still sets the alarm this far ahead: should the chain stop, the alarm goes on. */
const CHAIN_BACKSTOP_MS = 1_000;

/** The starts one alarm invocation made, and when it fired. */
interface Chain {
  starts: number;
  began: number;
}
/** Foreground jobs one alarm invocation runs; the rest run in the next alarm, set at once. */
const FOREGROUND_PER_ALARM = 16;
/** D1 queries the foreground jobs of one alarm may make together: the Free plan's 50 per invocation, less a margin. */
const ALARM_D1_QUERIES = 45;

export class JobAlarm<P extends JobPayloads> {
  /** The alarm as last set or read (null = none); undefined = ask storage. */
  private at?: number | null;
  /** Background jobs started or running in this instance: neither the alarm nor a dispatch starts them again. */
  private readonly claimed = new Set<number>();
  /** Background jobs whose step runs now (a second `runJob` of the same job returns at once). */
  private readonly stepping = new Set<number>();
  /** Background jobs started by an alarm's chain, which starts what is due when their step ends. */
  private readonly chained = new Set<number>();
  /** Failed starts in a row, by job: each waits twice as long as the one before. */
  private readonly startFailures = new Map<number, number>();
  /** Start errors already logged: a persistent one is logged once, not once per try. */
  private readonly loggedStartErrors = new Set<string>();
  private readonly backgroundKinds: KindOf<P>[];
  private readonly now: () => number;
  private readonly retry: RetryPolicy;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly jobs: JobTable<P>,
    private readonly handlers: JobHandlers<P>,
    private readonly dispatch: JobDispatch,
    options: JobAlarmOptions = {},
  ) {
    this.backgroundKinds = (Object.keys(handlers) as KindOf<P>[]).filter((kind) => handlers[kind].background);
    this.now = options.now ?? (() => Date.now());
    this.retry = { ...RETRY, ...options.retry };
  }

  isRunning(id: number): boolean {
    return this.claimed.has(id);
  }

  /**
   * From an invocation that came from outside the object (a dispatch, a consumption): starts the
   * background jobs due now, then sets the alarm to the earliest job it must start; a no-op when no
   * job changed.
   */
  async arm(force = false): Promise<void> {
    if (!this.jobs.takeChanged() && !force) return;
    this.startDue(this.jobs.due(this.now()), this.now());
    await this.schedule();
  }

  /**
   * Sets the alarm to the earliest job it must start (not one running; no background job while as many
   * run as may), unless it is already set earlier.
   */
  private async schedule(earliest = this.now()): Promise<void> {
    const next = this.jobs.nextAt([...this.claimed], this.full() ? this.backgroundKinds : []);
    if (next === null) return;
    const at = Math.max(next, earliest);
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    // An alarm at or before now may be the one running now, which the runtime removes when it ends: set anew.
    if (this.at === null || at < this.at || this.at <= this.now()) {
      this.at = at;
      await this.storage.setAlarm(at);
    }
  }

  /**
   * The alarm's body. Starts the due background jobs, each in an invocation of its own, then runs the
   * foreground jobs: all of them when no background job is going (their delay only gathers work into
   * one batch), else those due; a job waiting out a retry's delay waits. A failed foreground job is
   * tried again later, by the alarm this one sets (the runtime's own retry would not see jobs added
   * meanwhile).
   */
  async serve(): Promise<void> {
    // The alarm that fired is spent; what storage holds now decides the next one.
    this.at = undefined;
    const now = this.now();
    const jobs = this.jobs.all().filter((job) => this.known(job));
    this.startDue(jobs, now, { starts: 0, began: now });
    const retrying = this.jobs.retrying();
    let ran = 0;
    let queries = 0;
    for (const job of jobs) {
      const handler = this.handlers[job.kind];
      if (handler.background || (job.run_at > now && (this.claimed.size > 0 || retrying.has(job.id)))) continue;
      queries += handler.d1Queries ?? 0;
      if (ran > 0 && (ran === FOREGROUND_PER_ALARM || queries > ALARM_D1_QUERIES)) break;
      ran++;
      try {
        await handler.run(job);
        if (retrying.has(job.id)) this.jobs.succeeded(job.id);
      } catch (err) {
        this.failed(job, err);
      }
    }
    await this.arm(true);
  }

  /**
   * One step of a background job, in the invocation `start` opened (the object's `runJob`). Whatever
   * is due when it ends (its own next step: the queue's next request; a job waiting for its place)
   * is started by the alarm (the chain of the alarm that started this step, else the alarm set to now):
   * never from this invocation, which would make each step one hop deeper than the one before it.
   */
  async runStarted(id: number): Promise<void> {
    if (this.stepping.has(id)) return;
    this.startFailures.delete(id);
    this.loggedStartErrors.clear();
    const job = this.jobs.get(id);
    if (!job || !this.handlers[job.kind]?.background) {
      this.claimed.delete(id);
      return;
    }
    this.claimed.add(id);
    this.stepping.add(id);
    try {
      await this.handlers[job.kind].run(job);
      this.jobs.succeeded(id);
    } catch (err) {
      this.failed(job, err);
    } finally {
      this.stepping.delete(id);
      this.claimed.delete(id);
    }
    await this.schedule(this.chained.has(id) ? this.now() + CHAIN_BACKSTOP_MS : this.now());
  }

  /** Starts due background jobs not yet started, while fewer than `atOnce` run; from an alarm, as part of its chain. */
  private startDue(jobs: Job<KindOf<P>>[], now: number, chain?: Chain): void {
    let starts = 0;
    const most = chain ? CHAIN_STARTS - chain.starts : STARTS_PER_INVOCATION;
    for (const job of jobs) {
      if (!this.handlers[job.kind]?.background || job.run_at > now || this.claimed.has(job.id)) continue;
      if (this.full() || starts++ >= most) return;
      this.start(job.id, chain);
    }
  }

  /** A step the alarm's chain started has ended: the chain starts what is due now, while it lasts. */
  private async followChain(id: number, chain: Chain): Promise<void> {
    this.chained.delete(id);
    const now = this.now();
    if (chain.starts < CHAIN_STARTS && now - chain.began < CHAIN_MS) this.startDue(this.jobs.due(now), now, chain);
    await this.schedule();
  }

  private full(): boolean {
    return this.claimed.size >= this.dispatch.atOnce;
  }

  /** The delay before the next try after `failures` failed ones: firstMs, doubling, at most maxMs. */
  private delay(failures: number): number {
    return Math.min(this.retry.firstMs * 2 ** Math.min(failures - 1, 30), this.retry.maxMs);
  }

  /**
   * Starts a step of job `id` in an invocation of its own. A failed start (the object overloaded, the
   * depth limit) is tried again by the alarm after a growing delay, never from here: a persistent
   * failure would become a loop of billed calls.
   */
  private start(id: number, chain?: Chain): void {
    this.claimed.add(id);
    if (chain) {
      chain.starts++;
      this.chained.add(id);
    }
    // What follows the call runs in the invocation that started the step (the alarm's), not in the step's.
    const call = (async () => this.dispatch.start(id))().then(
      async () => {
        if (!chain) return;
        await this.followChain(id, chain).catch((err: unknown) =>
          console.error('the alarm could not go on with its chain', err instanceof Error ? err.message : String(err)),
        );
      },
      async (err: unknown) => {
        this.claimed.delete(id);
        this.chained.delete(id);
        const message = err instanceof Error ? err.message : String(err);
        if (!this.loggedStartErrors.has(message)) {
          this.loggedStartErrors.add(message);
          console.error('a background step could not be started; retrying with a growing delay', message);
        }
        const failures = (this.startFailures.get(id) ?? 0) + 1;
        this.startFailures.set(id, failures);
        const job = this.jobs.get(id);
        // A job held by a lease (its step may be running after all) keeps its time.
        if (job && job.run_at <= this.now()) this.jobs.reschedule(id, this.now() + this.delay(failures));
        await this.schedule();
      },
    );
    this.dispatch.waitUntil(call);
  }

  /** A failed try of a job: tried again after a growing delay, given up after its handler's tries. */
  private failed(job: Job<KindOf<P>>, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (!this.jobs.get(job.id)) {
      console.error(`${job.kind} job ${job.id} failed`, message);
      return;
    }
    const handler = this.handlers[job.kind];
    const tries = this.jobs.failed(job.id, message);
    if (tries < (handler.tries ?? this.retry.tries)) {
      console.error(`${job.kind} job ${job.id} failed (try ${tries}); retrying`, message);
      this.jobs.reschedule(job.id, this.now() + this.delay(tries));
      return;
    }
    console.error(`${job.kind} job ${job.id} given up after ${tries} tries`, message);
    this.jobs.succeeded(job.id);
    try {
      if (handler.givenUp?.(job, message)) return;
    } catch (giveUpErr) {
      console.error(`${job.kind} job ${job.id} could not be given up by its handler`, giveUpErr instanceof Error ? giveUpErr.message : String(giveUpErr));
    }
    this.jobs.bury(job, tries, message, this.now());
  }

  /** A job of a kind this object no longer has a handler for is dropped (it could never run). */
  private known(job: Job<KindOf<P>>): boolean {
    if (this.handlers[job.kind]) return true;
    console.error(`dropping a job of unknown kind ${job.kind}`);
    this.jobs.delete(job.id);
    return false;
  }
}
