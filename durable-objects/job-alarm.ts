/**
 * The one alarm of a Durable Object, serving its JobTable with one handler per job kind. The alarm
 * is always set to the earliest job that is not running. A building block any object uses with its
 * `ctx.storage`.
 *
 * Every invocation has its own budget (6 open connections, 1,000 subrequests and D1 queries on Paid,
 * 50 on Free, 15 minutes for an alarm: docs/limits.md), so no invocation runs an object's whole life.
 * The alarm runs the foreground jobs (short steps: an export batch, a compaction step) and starts each
 * due background job (one queued request's run, one continuation) in an invocation of its own: the
 * object's call of its own `runJob` through its stub. A background job that has more to do when its
 * step ends (the next request of a queue) is started again the same way from that step's invocation.
 */
import type { Job, JobTable } from './job-table';

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
/** Foreground jobs one alarm invocation runs; the rest run in the next alarm, set at once. */
const FOREGROUND_PER_ALARM = 16;
/** D1 queries the foreground jobs of one alarm may make together: the Free plan's 50 per invocation, less a margin. */
const ALARM_D1_QUERIES = 45;
/** How long a failed foreground job waits before it is tried again. */
const FOREGROUND_RETRY_MS = 1_000;

export class JobAlarm<K extends string> {
  /** The alarm as last set or read (null = none); undefined = ask storage. */
  private at?: number | null;
  /** Background jobs started or running in this instance: neither the alarm nor a step starts them again. */
  private readonly claimed = new Set<number>();
  /** Background jobs whose step runs now (a second `runJob` of the same job returns at once). */
  private readonly stepping = new Set<number>();
  private readonly backgroundKinds: K[];

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly jobs: JobTable<K>,
    private readonly handlers: Record<K, JobHandler<K>>,
    private readonly dispatch: JobDispatch,
  ) {
    this.backgroundKinds = (Object.keys(handlers) as K[]).filter((kind) => handlers[kind].background);
  }

  isRunning(id: number): boolean {
    return this.claimed.has(id);
  }

  /**
   * Starts the background jobs due now, then sets the alarm to the earliest job it must start (not one
   * running; no background job while as many run as may), unless it is already set earlier; a no-op
   * when no job changed.
   */
  async arm(force = false): Promise<void> {
    if (!this.jobs.takeChanged() && !force) return;
    // A background job due now starts at once, from the invocation that made it due, not the alarm's.
    this.startDue(this.jobs.due(Date.now()), Date.now());
    const next = this.jobs.nextAt([...this.claimed], this.full() ? this.backgroundKinds : []);
    if (next === null) return;
    const at = Math.max(next, Date.now());
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    if (this.at === null || at < this.at) {
      this.at = at;
      await this.storage.setAlarm(at);
    }
  }

  /**
   * The alarm's body. Starts the due background jobs, each in an invocation of its own, then runs the
   * foreground jobs: all of them when no background job is going (their delay only gathers work into
   * one batch), else those due. A failed foreground job is tried again a little later, by the alarm
   * this one sets (the runtime's own retry would not see jobs added meanwhile).
   */
  async serve(): Promise<void> {
    // The alarm that fired is spent; what storage holds now decides the next one.
    this.at = undefined;
    const now = Date.now();
    const jobs = this.jobs.all().filter((job) => this.known(job));
    this.startDue(jobs, now);
    let ran = 0;
    let queries = 0;
    for (const job of jobs) {
      const handler = this.handlers[job.kind];
      if (handler.background || (this.claimed.size > 0 && job.run_at > now)) continue;
      queries += handler.d1Queries ?? 0;
      if (ran > 0 && (ran === FOREGROUND_PER_ALARM || queries > ALARM_D1_QUERIES)) break;
      ran++;
      try {
        await handler.run(job);
      } catch (err) {
        console.error(`${job.kind} failed; retrying`, err instanceof Error ? err.message : String(err));
        if (this.jobs.get(job.id)) this.jobs.reschedule(job.id, Date.now() + FOREGROUND_RETRY_MS);
      }
    }
    await this.arm(true);
  }

  /**
   * One step of a background job, in the invocation `start` opened (the object's `runJob`). A step that
   * leaves its job due (more to do: the queue's next request) is followed by the next step, in an
   * invocation of its own; else its place goes to the next due job.
   */
  async runStarted(id: number): Promise<void> {
    const job = this.jobs.get(id);
    if (this.stepping.has(id)) return;
    if (!job || !this.handlers[job.kind]?.background) {
      this.claimed.delete(id);
      return;
    }
    this.claimed.add(id);
    this.stepping.add(id);
    try {
      await this.handlers[job.kind].run(job);
    } catch (err) {
      // The job keeps its lease: the alarm takes it up again when the lease ends.
      console.error(`${job.kind} step failed`, err instanceof Error ? err.message : String(err));
    } finally {
      this.stepping.delete(id);
    }
    const after = this.jobs.get(id);
    if (after && after.run_at <= Date.now()) this.start(id);
    else this.claimed.delete(id);
    // Its place, if it left one, goes to the next due job.
    await this.arm(true);
  }

  /** Starts due background jobs not yet started, while fewer than `atOnce` run. */
  private startDue(jobs: Job<K>[], now: number): void {
    let starts = 0;
    for (const job of jobs) {
      if (!this.handlers[job.kind]?.background || job.run_at > now || this.claimed.has(job.id)) continue;
      if (this.full() || starts++ === STARTS_PER_INVOCATION) return;
      this.start(job.id);
    }
  }

  private full(): boolean {
    return this.claimed.size >= this.dispatch.atOnce;
  }

  /** Starts a step of job `id` in an invocation of its own; should the call fail, the alarm tries again. */
  private start(id: number): void {
    this.claimed.add(id);
    const call = this.dispatch.start(id).catch(async (err: unknown) => {
      console.error('a background step could not be started', err instanceof Error ? err.message : String(err));
      this.claimed.delete(id);
      await this.arm(true);
    });
    this.dispatch.waitUntil(call);
  }

  /** A job of a kind this object no longer has a handler for is dropped (it could never run). */
  private known(job: Job<K>): boolean {
    if (this.handlers[job.kind]) return true;
    console.error(`dropping a job of unknown kind ${job.kind}`);
    this.jobs.delete(job.id);
    return false;
  }
}
