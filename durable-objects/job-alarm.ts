/**
 * The one alarm of a Durable Object, serving its JobTable with one handler per job kind. The alarm
 * is always set to the earliest job. A building block any object uses with its `ctx.storage`.
 */
import { OPEN_CONNECTIONS } from '../src/platform/open-connections';
import type { Job, JobTable } from './job-table';

export interface JobHandler<K extends string> {
  run(job: Job<K>): Promise<void>;
  /**
   * A background job (a run that takes seconds) is started and not waited for: jobs that fall due
   * meanwhile start at once, beside it. Its handler holds the job (a lease) and deletes it when done.
   */
  background?: boolean;
}

/** How long one alarm invocation takes up newly due background jobs (an alarm may run 15 minutes). */
const TAKES_NEW_BACKGROUND_JOBS_MS = 10 * 60_000;
/** While background jobs run, how often the alarm looks for jobs that fell due meanwhile. */
const LOOKS_FOR_DUE_JOBS_MS = 25;
/**
 * Background jobs running at once in one invocation. Each holds a connection for its send (a stream's
 * for minutes) and may open another to push pieces, and one invocation holds at most 6
 * (OPEN_CONNECTIONS): past that the platform queues a call while its time limit runs. Further due jobs
 * wait here, their time not yet started. (Issue 25 item 2 gives each run an invocation of its own.)
 */
const BACKGROUND_AT_ONCE = Math.floor(OPEN_CONNECTIONS / 2);
/** While background jobs run, how long a failed foreground job waits before it is tried again. */
const FOREGROUND_RETRY_MS = 1_000;

export class JobAlarm<K extends string> {
  /** The alarm as last set or read (null = none); undefined = ask storage. */
  private at?: number | null;
  /** Background jobs running in this instance (a second alarm must not start them again). */
  private readonly running = new Set<number>();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly jobs: JobTable<K>,
    private readonly handlers: Record<K, JobHandler<K>>,
  ) {}

  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** Sets the alarm to the earliest job, unless it is already set earlier; a no-op when no job changed. */
  async arm(force = false): Promise<void> {
    if (!this.jobs.takeChanged() && !force) return;
    const next = this.jobs.nextAt();
    if (next === null) return;
    const at = Math.max(next, Date.now());
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    if (this.at === null || at < this.at) {
      this.at = at;
      await this.storage.setAlarm(at);
    }
  }

  /**
   * The alarm's body. Starts the due background jobs, then runs the foreground jobs: every one when
   * no background job is going (their delay only gathers work into one batch), else those due. The
   * runtime runs one alarm at a time, so while background jobs go on this invocation stays, looks every
   * LOOKS_FOR_DUE_JOBS_MS for jobs that fell due and serves them too (with a timer of its own, so no
   * job's I/O depends on another event's context); for its first TAKES_NEW_BACKGROUND_JOBS_MS only,
   * so it ends well within an alarm's time limit.
   */
  async serve(): Promise<void> {
    // The alarm that fired is spent; what storage holds now decides the next one.
    this.at = undefined;
    const started = Date.now();
    const runs = new Map<number, Promise<void>>();
    for (;;) {
      const now = Date.now();
      const jobs = this.jobs.all().filter((job) => this.known(job));
      if (now - started < TAKES_NEW_BACKGROUND_JOBS_MS) {
        for (const job of jobs) {
          if (!this.handlers[job.kind].background || job.run_at > now || this.running.has(job.id)) continue;
          if (runs.size >= BACKGROUND_AT_ONCE) break;
          runs.set(job.id, this.runBackground(job).finally(() => runs.delete(job.id)));
        }
      }
      for (const job of jobs) {
        if (this.handlers[job.kind].background || (runs.size > 0 && job.run_at > now)) continue;
        await this.runForeground(job, runs.size > 0);
      }
      if (runs.size === 0) break;
      await Promise.race([...runs.values(), new Promise<void>((resolve) => setTimeout(resolve, LOOKS_FOR_DUE_JOBS_MS))]);
    }
    await this.arm(true);
  }

  /** A job of a kind this object no longer has a handler for is dropped (it could never run). */
  private known(job: Job<K>): boolean {
    if (this.handlers[job.kind]) return true;
    console.error(`dropping a job of unknown kind ${job.kind}`);
    this.jobs.delete(job.id);
    return false;
  }

  private async runBackground(job: Job<K>): Promise<void> {
    this.running.add(job.id);
    try {
      await this.handlers[job.kind].run(job);
    } finally {
      this.running.delete(job.id);
    }
  }

  /**
   * With no background job going, a failure fails the alarm and the runtime retries it. With some
   * going, the loop must go on serving what falls due (a failed alarm would leave it to the retry):
   * the job is tried again a little later.
   */
  private async runForeground(job: Job<K>, backgroundGoing: boolean): Promise<void> {
    try {
      await this.handlers[job.kind].run(job);
    } catch (err) {
      if (!backgroundGoing) throw err;
      console.error(`${job.kind} failed; retrying`, err instanceof Error ? err.message : String(err));
      this.jobs.reschedule(job.id, Date.now() + FOREGROUND_RETRY_MS);
    }
  }
}
