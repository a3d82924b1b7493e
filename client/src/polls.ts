/**
 * The live reads of one client (spec 4.3): polls that ask the server for a queued request's status until
 * it settles, and streamed reads (stream-read.ts); the registry stops them by request, by queue or all
 * at once. Polls of one queue take turns (the server runs that queue one request at a time, so only the
 * oldest watched one can be moving).
 */
import { fullRequestId, type ForwardStatus, type ForwardStatusEnvelope, type RequestAddress } from '../../schemas/forward-rules.js';
import { SvcError, type ServiceErrorBody } from './errors.js';
import type { ForwardResponseMeta, OnForwardError, OnForwardResponse, PollPromise, StoppedPoll } from './forward-types.js';
import type { ResponseType } from './forward-options.js';
import { reshape } from './responses.js';

/** What a poll needs of the server. */
export interface PollServer {
  status(address: RequestAddress): Promise<ForwardStatusEnvelope>;
  /** Removes the request while it still waits in its queue; fire and forget. */
  withdraw(address: RequestAddress): void;
}

/** What every live read shares: the request, its queue, and how it ends. */
export interface ReadSpec {
  address: RequestAddress;
  /** The queue it runs in; polls of one queue take turns (null: no turn to wait for). */
  queue: string | null;
  /** ms between two status reads. */
  latency: number;
  /** Aborting it stops this read, and only the read. */
  signal?: AbortSignal;
  onResponse?: OnForwardResponse;
  onError?: OnForwardError;
}

export interface PollSpec extends ReadSpec {
  /** The status last known (the dispatch or history answer's). */
  status: ForwardStatus;
  /** When it began running, if already known. */
  executed?: number;
  responseType?: ResponseType;
}

/** Which reads to stop: each given field must match. */
export interface PollFilter {
  address?: RequestAddress;
  url?: string;
  method?: string;
  queue?: string;
}

// Stopped results are told apart by identity, so a destination answering { status: 'stopped' } is never taken for one.
const stoppedResults = new WeakSet<object>();

export function isPollStopped(value: unknown): value is StoppedPoll {
  return typeof value === 'object' && value !== null && stoppedResults.has(value);
}

function stoppedResult(id: string): StoppedPoll {
  const result: StoppedPoll = { id, status: 'stopped' };
  stoppedResults.add(result);
  return result;
}

/** One live read: runs until it ends or is stopped; `promise` settles exactly once. */
export abstract class LiveRead {
  readonly promise: Promise<unknown>;
  /** Resolves once the read is over, however it ended (the next poll of its queue waits on it). */
  readonly over: Promise<void>;
  protected settled = false;
  private resolve!: (value: unknown) => void;
  private reject!: (reason: unknown) => void;
  private endTurn!: () => void;
  private wake: (() => void) | null = null;
  private readonly onAbort = () => this.stop(false);

  constructor(readonly spec: ReadSpec) {
    this.promise = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.over = new Promise((resolve) => (this.endTurn = resolve));
    spec.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  matches(filter: PollFilter): boolean {
    const { address, queue } = this.spec;
    if (filter.address && fullRequestId(filter.address) !== fullRequestId(address)) return false;
    if (filter.url !== undefined && filter.url !== address.url) return false;
    if (filter.method !== undefined && filter.method !== address.method) return false;
    return filter.queue === undefined || filter.queue === queue;
  }

  /** Runs after `turn` (the previous poll of its queue) is over. */
  async run(turn: Promise<void>): Promise<void> {
    await Promise.race([turn, this.over]);
    if (!this.settled) await this.loop();
  }

  /** Reads until the read settles (through succeed, fail or stop). */
  protected abstract loop(): Promise<void>;

  /** Whether stopping it with `withdraw` should also remove the request from its queue. */
  protected abstract withdrawsOnStop(): boolean;

  /** Ends the read with `{ id, status: 'stopped' }`, no callback; `withdraw` may also remove a request still waiting in its queue. */
  stop(withdraw: boolean): boolean {
    const withdrawing = withdraw && this.withdrawsOnStop();
    if (!this.end()) return false;
    if (withdrawing) this.onWithdraw();
    this.resolve(stoppedResult(this.spec.address.id));
    return true;
  }

  /** Removes the request from its queue (the polls of forwardRequest; a stream reader never does). */
  protected onWithdraw(): void {}

  /** Called once when the read ends, however it ends. */
  protected onEnd(): void {}

  /** Waits `ms`, or less when woken. */
  protected async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  /** Ends a pause at once. */
  protected wakeUp(): void {
    this.wake?.();
  }

  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.wake?.();
    this.spec.signal?.removeEventListener('abort', this.onAbort);
    this.onEnd();
    this.endTurn();
    return true;
  }

  /** Resolves with `value`, or with what onResponse returns (given `meta` when there is some). */
  protected async succeed(value: unknown, meta?: ForwardResponseMeta): Promise<void> {
    if (!this.end()) return;
    const { onResponse } = this.spec;
    try {
      this.resolve(!onResponse ? value : meta ? await onResponse(value, meta) : await onResponse(value));
    } catch (err) {
      this.reject(err);
    }
  }

  protected async fail(err: unknown): Promise<void> {
    if (!this.end()) return;
    const { onError } = this.spec;
    if (!onError) return this.reject(err);
    try {
      this.resolve(await onError(err));
    } catch (thrown) {
      this.reject(thrown);
    }
  }
}

/** A failed request's error as the client raises it. */
export function failureOf(envelope: ForwardStatusEnvelope): SvcError {
  const error = envelope.error ?? { code: 'ERROR', message: 'The request failed without a reason.' };
  return new SvcError(error.message, { code: error.code, cause: error as ServiceErrorBody });
}

/** A poll of a queued request's status: resolves with its result, a failed request rejects (or goes to onError). */
class StatusPoll extends LiveRead {
  private status: ForwardStatus;
  private executed?: number;

  constructor(
    override readonly spec: PollSpec,
    private readonly server: PollServer,
  ) {
    super(spec);
    this.status = spec.status;
    this.executed = spec.executed;
  }

  protected async loop(): Promise<void> {
    while (!this.settled) {
      let envelope: ForwardStatusEnvelope;
      try {
        envelope = await this.server.status(this.spec.address);
      } catch (err) {
        return this.fail(err);
      }
      if (this.settled) return; // stopped while the read was on its way
      this.status = envelope.status;
      if (typeof envelope.executed === 'number') this.executed = envelope.executed;
      if (envelope.status === 'resolved') return this.succeed(reshape(envelope.response_body, this.spec.responseType), this.meta());
      if (envelope.status === 'failed') return this.fail(failureOf(envelope));
      await this.pause(this.spec.latency);
    }
  }

  private meta(): ForwardResponseMeta {
    return this.executed === undefined ? {} : { executed: this.executed };
  }

  protected withdrawsOnStop(): boolean {
    return this.status === 'pending';
  }

  protected override onWithdraw(): void {
    this.server.withdraw(this.spec.address);
  }
}

/** The live reads of one client. */
export class PollRegistry {
  private readonly live = new Set<LiveRead>();
  /** The last read started on each queue: the next one waits for it. */
  private readonly lastOfQueue = new Map<string, LiveRead>();

  constructor(private readonly server: PollServer) {}

  /** Starts a status poll. */
  start<T = unknown>(spec: PollSpec): PollPromise<T> {
    return this.track(new StatusPoll(spec, this.server));
  }

  /** Registers and runs a read (after the previous read of its queue); stop() on the promise stops it and may withdraw. */
  track<T = unknown>(read: LiveRead): PollPromise<T> {
    this.live.add(read);
    void read.over.then(() => this.live.delete(read));
    let turn = Promise.resolve();
    const { queue, signal } = read.spec;
    if (queue !== null) {
      const previous = this.lastOfQueue.get(queue);
      if (previous) turn = previous.over;
      this.lastOfQueue.set(queue, read);
      void read.over.then(() => {
        if (this.lastOfQueue.get(queue) === read) this.lastOfQueue.delete(queue);
      });
    }
    if (signal?.aborted) read.stop(false);
    void read.run(turn);
    return Object.assign(read.promise as Promise<T | StoppedPoll>, { stop: () => void read.stop(true) });
  }

  /** Stops every live read matching the filter; returns how many. */
  stop(filter: PollFilter, withdraw: boolean): number {
    let stopped = 0;
    for (const read of [...this.live]) if (read.matches(filter) && read.stop(withdraw)) stopped++;
    return stopped;
  }
}
