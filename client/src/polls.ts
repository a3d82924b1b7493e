/**
 * The live polls of one client (spec 4.3): each asks the server for a queued request's status until it
 * settles; the registry stops them by request, by queue or all at once. Polls of one queue take turns
 * (the server runs that queue one request at a time, so only the oldest watched one can be moving).
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

export interface PollSpec {
  address: RequestAddress;
  /** The queue it runs in; polls of one queue take turns. */
  queue: string | null;
  /** ms between two status reads. */
  latency: number;
  /** The status last known (the dispatch or history answer's). */
  status: ForwardStatus;
  /** When it began running, if already known. */
  executed?: number;
  responseType?: ResponseType;
  /** Aborting it stops this poll, and only the poll. */
  signal?: AbortSignal;
  onResponse?: OnForwardResponse;
  onError?: OnForwardError;
}

/** Which polls to stop: each given field must match. */
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

/** One poll: runs until the request settles or the poll is stopped; `promise` settles exactly once. */
class LivePoll {
  readonly promise: Promise<unknown>;
  /** Resolves once the poll is over, however it ended (the next poll of its queue waits on it). */
  readonly over: Promise<void>;
  private settled = false;
  private status: ForwardStatus;
  private executed?: number;
  private resolve!: (value: unknown) => void;
  private reject!: (reason: unknown) => void;
  private endTurn!: () => void;
  private wake: (() => void) | null = null;
  private readonly onAbort = () => this.stop(false);

  constructor(
    readonly spec: PollSpec,
    private readonly server: PollServer,
    private readonly release: (poll: LivePoll) => void,
  ) {
    this.status = spec.status;
    this.executed = spec.executed;
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
      if (envelope.status === 'resolved') return this.succeed(envelope.response_body);
      if (envelope.status === 'failed') return this.fail(failureOf(envelope));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.spec.latency);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Ends the poll with `{ id, status: 'stopped' }`, no callback; `withdraw` also removes a request still waiting in its queue. */
  stop(withdraw: boolean): boolean {
    if (!this.end()) return false;
    if (withdraw && this.status === 'pending') this.server.withdraw(this.spec.address);
    this.resolve(stoppedResult(this.spec.address.id));
    return true;
  }

  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.wake?.();
    this.spec.signal?.removeEventListener('abort', this.onAbort);
    this.release(this);
    this.endTurn();
    return true;
  }

  private async succeed(body: unknown): Promise<void> {
    if (!this.end()) return;
    const value = reshape(body, this.spec.responseType);
    const meta: ForwardResponseMeta = this.executed === undefined ? {} : { executed: this.executed };
    const { onResponse } = this.spec;
    try {
      this.resolve(onResponse ? await onResponse(value, meta) : value);
    } catch (err) {
      this.reject(err);
    }
  }

  private async fail(err: unknown): Promise<void> {
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

function failureOf(envelope: ForwardStatusEnvelope): SvcError {
  const error = envelope.error ?? { code: 'ERROR', message: 'The request failed without a reason.' };
  return new SvcError(error.message, { code: error.code, cause: error as ServiceErrorBody });
}

/** The live polls of one client. */
export class PollRegistry {
  private readonly live = new Set<LivePoll>();
  /** The last poll started on each queue: the next one waits for it. */
  private readonly lastOfQueue = new Map<string, LivePoll>();

  constructor(private readonly server: PollServer) {}

  start<T = unknown>(spec: PollSpec): PollPromise<T> {
    const poll = new LivePoll(spec, this.server, (ended) => this.live.delete(ended));
    this.live.add(poll);
    let turn = Promise.resolve();
    if (spec.queue !== null) {
      const previous = this.lastOfQueue.get(spec.queue);
      if (previous) turn = previous.over;
      this.lastOfQueue.set(spec.queue, poll);
      void poll.over.then(() => {
        if (this.lastOfQueue.get(spec.queue as string) === poll) this.lastOfQueue.delete(spec.queue as string);
      });
    }
    if (spec.signal?.aborted) poll.stop(false);
    void poll.run(turn);
    return Object.assign(poll.promise as Promise<T | StoppedPoll>, { stop: () => void poll.stop(true) });
  }

  /** Stops every live poll matching the filter; returns how many. */
  stop(filter: PollFilter, withdraw: boolean): number {
    let stopped = 0;
    for (const poll of [...this.live]) if (poll.matches(filter) && poll.stop(withdraw)) stopped++;
    return stopped;
  }
}
