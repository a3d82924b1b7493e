/**
 * The queues' runners: each queue served by a background job of the object's one alarm, one request at a
 * time in the order they were made. A request is marked running (and that is on disk) before it is sent,
 * so a runner that dies fails it and never sends it twice. Every new state of a request goes to the
 * history through the outbox.
 */
import { MAX_STREAM_MS } from '../../schemas/forward-rules';
import type { Env } from '../../src/env';
import type { HistoryChange } from '../../src/forward/history-changes';
import type { HistoryOwner } from '../../src/forward/history';
import { addressOfRecord } from '../../src/forward/owner-history';
import type { QueuedPlan } from '../../src/forward/queue-store';
import type { ForwardError, ForwardRecord } from '../../src/forward/record';
import { sendPrepared, sendStreamed, type ForwardOutcome, type SendKey, type StreamOutcome } from '../../src/forward/send';
import { backoffBaseMs, waitingAgain, type SendAnswer } from '../../src/forward/resend';
import { circuitPolicy, heldForCircuit, originOf, verdictOfOutcome, waitsForCircuit } from '../../src/forward/destination-pause';
import { admit, probeLost, recorded, type Verdict } from '../../src/outbound/circuit';
import { settled, settledStream } from '../../src/forward/settle';
import { withDeadLetter } from '../../src/forward/dead-letters';
import { keyRefusal, missingKey } from '../../src/forward/verdicts';
import { loadSecretKey } from '../../src/platform/secrets';
import type { DestinationCircuits } from '../destination-circuits';
import { streamLimitMs, type ForwardStreams } from '../forward-streams';
import type { Job } from '../job-table';
import type { Outbox } from '../outbox';
import type { ForwardJobs, ForwardJobTable } from './forward-jobs';
import { isUnresolved, type QueuedRequest, type RequestsStore } from './requests-store';
import type { StreamMover } from './stream-mover';

/** Longer than a send (10 s) and the search of its answer: a live runner is never taken for a dead one. */
const RUN_LEASE_MS = 60_000;
/** A streamed send holds the lease for the longest stream as well. */
const STREAM_LEASE_MS = RUN_LEASE_MS + MAX_STREAM_MS;

export const INTERRUPTED: ForwardError = {
  code: 'REQUEST_FAILED',
  message: 'The request was interrupted while it was running (its runner stopped); it was not sent again.',
};

const GIVEN_UP: ForwardError = {
  code: 'REQUEST_FAILED',
  message: 'The request could not be run: its runner failed on every try (an internal error, logged); it was not sent.',
};

/** What a runner works with: the object's parts. */
export interface QueueParts {
  storage: DurableObjectStorage;
  env: Env;
  store: RequestsStore;
  jobs: ForwardJobTable;
  streams: ForwardStreams;
  mover: StreamMover;
  outbox: Outbox<HistoryChange, ForwardJobs>;
  circuits: DestinationCircuits;
  /** A circuit of the owner's object was paused or let go (its report to the owner's listing is due). */
  circuitsChanged: (owner: HistoryOwner) => void;
  /** A request settled after a send (forward-metrics.ts counts it). */
  sentAndSettled: (owner: HistoryOwner, record: ForwardRecord, secretName: string | undefined) => void;
}

export class QueueRunner {
  /** The sends in flight, by request seq, so a cancel can end one. */
  private readonly inFlight = new Map<number, AbortController>();

  constructor(private readonly parts: QueueParts) {}

  /** A request was stored at the end of its queue: the queue runs, and the request expires in time. */
  queued(record: ForwardRecord & { queue_name: string }): void {
    const { jobs } = this.parts;
    const run = { queue: record.queue_name };
    if (!jobs.has('run', run)) jobs.add('run', Date.now(), run);
    if (record.expires_at !== undefined) jobs.add('expire', record.expires_at, addressOfRecord(record));
  }

  /** Writes a new state of the request, here and (through the outbox) to the history. */
  save(request: QueuedRequest, given: ForwardRecord): ForwardRecord {
    // A request sent with retry that failed after its last attempt is kept marked as a dead letter.
    const record = this.parts.store.write(request, withDeadLetter(given, request.plan.retryWithin !== undefined));
    this.parts.outbox.add({ op: 'put', owner: request.plan.owner, record });
    if (record.stream && !record.finalized && !isUnresolved(record.status)) this.parts.mover.settled(request.seq);
    return record;
  }

  /** Deletes the request here and from the history, ending its send when one is in flight. */
  remove(request: QueuedRequest): void {
    this.inFlight.get(request.seq)?.abort();
    this.inFlight.delete(request.seq);
    this.parts.store.delete(request.seq);
    this.parts.mover.drop(request.seq);
    this.parts.outbox.add({ op: 'delete', owner: request.plan.owner, address: addressOfRecord(request.record) });
    // A head waiting out back-pressure held its queue back: the requests behind it go on now.
    if (request.record.next_attempt_at !== undefined) this.runQueueNow(request.queue);
  }

  private runQueueNow(queue: string): void {
    const { jobs } = this.parts;
    for (const job of jobs.all()) if (job.kind === 'run' && jobs.payloadOf(job as Job<'run'>).queue === queue) jobs.reschedule(job.id, Date.now());
  }

  /** Nothing runs in a new instance: a request left running was cut off with the runner that ran it. */
  failInterrupted(): void {
    const { store, jobs } = this.parts;
    const now = Date.now();
    for (const request of store.running()) {
      this.save(request, this.interrupted(request, now));
      const payload = { queue: request.queue };
      if (!jobs.has('run', payload)) jobs.add('run', now, payload);
    }
    for (const job of jobs.all()) if (job.kind === 'run') jobs.reschedule(job.id, now);
  }

  /**
   * One step of the queue's runner: sends the oldest request waiting, in this invocation, and leaves the
   * job due while others wait, so the next one runs in an invocation of its own (job-alarm.ts).
   */
  async run(job: Job<'run'>): Promise<void> {
    const { store, jobs } = this.parts;
    const head = store.headOf(jobs.payloadOf(job).queue);
    if (!head) {
      jobs.delete(job.id);
      return;
    }
    if (head.status === 'running') {
      this.save(head, this.interrupted(head, Date.now()));
      jobs.reschedule(job.id, Date.now());
      return;
    }
    const started = Date.now();
    // Waiting out back-pressure (a restart ran every queue at once): the queue waits for the head's time.
    // A head held for its destination's circuit asks the circuit again instead (it may have closed early).
    if (head.record.next_attempt_at !== undefined && head.record.next_attempt_at > started && !waitsForCircuit(head.record)) {
      jobs.reschedule(job.id, head.record.next_attempt_at);
      return;
    }
    const lease = head.record.stream ? STREAM_LEASE_MS : RUN_LEASE_MS;
    const origin = originOf(head.plan.prepared.url);
    const admission = head.plan.retryWithin !== undefined && origin !== undefined ? this.admit(origin, started, started + lease) : 'go';
    if (typeof admission === 'number') {
      // Held, not sent: the head stays at the head, and its queue waits with it until the probe's time.
      if (head.record.next_attempt_at !== admission) this.save(head, heldForCircuit(head.record, admission, started));
      jobs.reschedule(job.id, admission);
      return;
    }
    const { next_attempt_at: _waited, ...waited } = head.record;
    const running: ForwardRecord = { ...waited, status: 'running', updated: started, executed: started };
    jobs.reschedule(job.id, started + lease);
    this.save(head, running);
    const controller = new AbortController();
    this.inFlight.set(head.seq, controller);
    let nextRunAt: number | undefined;
    let told = false;
    try {
      // On disk before anything is sent: from here a crash can fail this request, never send it again.
      await this.parts.storage.sync();
      // Cancelled or expired while that was written: never sent.
      if (controller.signal.aborted) return;
      const outcome = running.stream ? await this.sendStream(head.seq, running, head.plan, controller.signal) : await this.send(head.plan, controller.signal);
      if (controller.signal.aborted) return;
      if (origin !== undefined) this.tellCircuit(head.plan.owner, origin, verdictOfOutcome(outcome), admission === 'probe');
      told = true;
      const waiting = this.waitingAgain(head.plan, running, outcome);
      if (waiting) {
        // Not settled: the head stays at the head, and its queue waits with it (sequential queues).
        this.save(head, waiting);
        nextRunAt = waiting.next_attempt_at;
        return;
      }
      const done = running.stream
        ? settledStream(running, outcome as StreamOutcome, this.parts.streams.count(head.seq))
        : settled(running, outcome as ForwardOutcome);
      this.parts.sentAndSettled(head.plan.owner, this.save(head, done), head.plan.prepared.secretName);
    } finally {
      this.inFlight.delete(head.seq);
      // A probe cancelled (or that threw) told nothing: the next request due is the probe, not one after its lease.
      if (admission === 'probe' && !told && origin !== undefined) this.releaseProbe(origin);
      // The next request of the queue (or this one again after its wait), in an invocation of its own.
      jobs.reschedule(job.id, nextRunAt ?? Date.now());
    }
  }

  /**
   * A queue whose step failed on every try (a request it cannot read or save): its head request is settled
   * as failed, never sent, and the queue goes on with the next one.
   */
  giveUp(job: Job<'run'>): boolean {
    const { store, jobs } = this.parts;
    const head = store.givenUpHead(jobs.payloadOf(job).queue);
    if (head) {
      const { record, request } = head;
      if (!record) {
        console.error('a given-up request whose record cannot be read is removed', head.seq);
        store.delete(head.seq);
        jobs.reschedule(job.id, Date.now());
        return true;
      }
      const failed: ForwardRecord = { ...record, status: 'failed', updated: Math.max(Date.now(), record.updated), error: GIVEN_UP };
      try {
        if (!request) throw new Error('its plan cannot be read');
        this.save(request, failed);
      } catch (err) {
        // Its plan cannot be read: the row alone is settled (with an empty plan, so reads work); its history row keeps its last state.
        console.error('a given-up request could not be saved with its history', err instanceof Error ? err.message : String(err));
        store.failBare(head.seq, failed);
      }
    }
    jobs.reschedule(job.id, Date.now());
    return true;
  }

  /** The alarm runs every foreground job when no send is going (job-alarm.ts): an expiry waits for its time. */
  expire(job: Job<'expire'>): Promise<void> {
    if (job.run_at > Date.now()) return Promise.resolve();
    const request = this.parts.store.find(this.parts.jobs.payloadOf(job));
    if (request) this.remove(request);
    this.parts.jobs.delete(job.id);
    return Promise.resolve();
  }

  /**
   * Whether a send to the origin goes now ('go'), goes as the circuit's probe ('probe', the circuit marked
   * half-open first, so no other send is let through), or is held until the time answered.
   */
  private admit(origin: string, now: number, leaseUntil: number): 'go' | 'probe' | number {
    const admission = admit(this.parts.circuits.get(origin), now, leaseUntil);
    if (admission.send === 'wait') return admission.until;
    if (admission.send === 'probe') this.parts.circuits.put(origin, admission.circuit);
    return admission.send;
  }

  /** A queued send's verdict on its destination; a circuit that closes lets every queue held by it go on. */
  private tellCircuit(owner: HistoryOwner, origin: string, verdict: Verdict, probe: boolean): void {
    const { circuits } = this.parts;
    const before = circuits.get(origin);
    const after = recorded(before, verdict, probe, Date.now(), circuitPolicy(this.parts.env, Math.random));
    if (after === before) return;
    circuits.put(origin, after);
    const paused = (state: string | undefined) => state === 'open' || state === 'half-open';
    if (paused(before?.state) || paused(after?.state)) this.parts.circuitsChanged(owner);
    if (paused(before?.state) && !paused(after?.state)) this.runQueuesNow();
  }

  private releaseProbe(origin: string): void {
    const circuit = this.parts.circuits.get(origin);
    if (circuit?.state !== 'half-open') return;
    this.parts.circuits.put(origin, probeLost(circuit, Date.now()));
    this.runQueuesNow();
  }

  /** Every queue runs now: a head held for a circuit that closed is sent, any other wait is kept (see run). */
  private runQueuesNow(): void {
    const { jobs } = this.parts;
    for (const job of jobs.all()) if (job.kind === 'run') jobs.reschedule(job.id, Date.now());
  }

  /** A request sent with retry and answered 429 or 503: its waiting record (resend.ts); undefined when it settles. */
  private waitingAgain(plan: QueuedPlan, running: ForwardRecord, outcome: ForwardOutcome | StreamOutcome): ForwardRecord | undefined {
    if (plan.retryWithin === undefined) return undefined;
    const answer: SendAnswer = {
      ...(outcome.ok || 'statusCode' in outcome ? { statusCode: outcome.statusCode } : {}),
      ...('askedWaitMs' in outcome && outcome.askedWaitMs !== undefined ? { askedWaitMs: outcome.askedWaitMs } : {}),
    };
    const policy = { withinSeconds: plan.retryWithin, baseMs: backoffBaseMs(this.parts.env), random: Math.random };
    return waitingAgain(running, answer, policy, Date.now());
  }

  /** Checks the key again (it may have changed while the request waited); the key, or why it cannot be used. */
  private async keyFor(plan: QueuedPlan): Promise<{ key: SendKey | null } | { refusal: string }> {
    const { prepared } = plan;
    if (prepared.secretName === undefined) return { key: null };
    const key = await loadSecretKey(this.parts.env, plan.owner.serviceId, prepared.secretName);
    const refusal = key ? keyRefusal(key, plan.caller, prepared.url) : missingKey(prepared.secretName);
    return refusal === undefined && key ? { key } : { refusal: refusal ?? missingKey(prepared.secretName) };
  }

  private async send(stored: QueuedPlan, signal: AbortSignal): Promise<ForwardOutcome> {
    const plan = this.parts.store.sendable(stored);
    const checked = await this.keyFor(plan);
    if ('refusal' in checked) return { ok: false, error: { code: 'INVALID_REQUEST', message: checked.refusal }, httpStatus: 400 };
    return sendPrepared(plan.prepared, checked.key, this.parts.env, signal);
  }

  /** Sends and relays the answer into the chunk store; nothing is stored once the request is cancelled. */
  private async sendStream(requestSeq: number, record: ForwardRecord, stored: QueuedPlan, signal: AbortSignal): Promise<StreamOutcome> {
    const plan = this.parts.store.sendable(stored);
    const checked = await this.keyFor(plan);
    if ('refusal' in checked) return { ok: false, error: { code: 'INVALID_REQUEST', message: checked.refusal } };
    const store = this.parts.streams.sink(requestSeq, record, plan.owner, signal);
    return sendStreamed(plan.prepared, checked.key, this.parts.env, signal, { store, bodyMs: streamLimitMs(this.parts.env) });
  }

  /** A request left running by a runner that stopped: failed, with its pieces kept. */
  private interrupted(request: QueuedRequest, now: number): ForwardRecord {
    const { record } = request;
    return {
      ...record,
      status: 'failed',
      updated: now,
      error: record.stream ? { ...INTERRUPTED, chunks: this.parts.streams.count(request.seq) } : INTERRUPTED,
    };
  }
}
