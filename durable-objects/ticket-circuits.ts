/**
 * The destination circuits of a ticket's object (extension, docs/api.md "Pausing a failing destination"):
 * its runs with a retry schedule ask them before an attempt and tell them how each `req` send went
 * (src/consume/circuit-gate.ts); a circuit that pauses or lets go has the report to the owner's listing
 * made by a job of the object's alarm, off the consumption path.
 */
import type { StoredRetrySchedule } from '../schemas/retry-schedule';
import type { CircuitGate } from '../src/consume/circuit-gate';
import { heldForCircuit, windowEnd, type ScheduleProgress } from '../src/consume/retry-attempts';
import { admit, probeLost, recorded, type Verdict } from '../src/outbound/circuit';
import { circuitPolicy } from '../src/forward/destination-pause';
import { MAX_REPORTED_PER_CALLER, reportPaused, ticketCallerKey } from '../src/forward/destination-report';
import type { Env } from '../src/env';
import type { DestinationCircuits } from './destination-circuits';
import type { Job, JobTable } from './job-table';
import type { LogRef, TicketJobs } from './ticket-store';

const paused = (state: string | undefined) => state === 'open' || state === 'half-open';

/** What an attempt of a scheduled run may do, as the circuit of the origin it stands at says. */
export type AttemptAdmission =
  /** Not run: the run waits until heldUntil, with this progress (the hold listed). */
  | { heldUntil: number; progress: ScheduleProgress }
  /** Run, its sends told through `gate`; `settled` once the attempt ended (frees a probe that sent nothing). */
  | { gate: CircuitGate; settled: () => void };

const holderOf = (ref: LogRef) => ({ serviceId: ref.service_id, callerKey: ticketCallerKey(ref.ticket_id) });

export class TicketCircuits {
  constructor(
    private readonly circuits: DestinationCircuits,
    private readonly jobs: JobTable<TicketJobs>,
    private readonly env: Env,
  ) {}

  /**
   * Whether an attempt to the origin runs now ('go'), runs as the circuit's probe ('probe', the circuit
   * marked half-open until `leaseUntil` first, so no other attempt is let through), or is held until the time answered.
   */
  private admit(origin: string, now: number, leaseUntil: number): 'go' | 'probe' | number {
    const admission = admit(this.circuits.get(origin), now, leaseUntil);
    if (admission.send === 'wait') return admission.until;
    if (admission.send === 'probe') this.circuits.put(origin, admission.circuit);
    return admission.send;
  }

  /**
   * Before an attempt of a run with a retry schedule: held while its failed req's origin has an open circuit
   * (not the probe's time yet); run as the probe when it is; past the schedule's window, run so that the
   * action fails without sending (the gate's heldAt), as the last attempt.
   */
  admitAttempt(ref: LogRef, schedule: StoredRetrySchedule, progress: ScheduleProgress, now: number, leaseUntil: number): AttemptAdmission {
    const { origin } = progress;
    const admission = origin !== undefined ? this.admit(origin, now, leaseUntil) : 'go';
    const pastWindow = typeof admission === 'number' && admission > windowEnd(schedule, progress);
    if (typeof admission === 'number' && !pastWindow) return { heldUntil: admission, progress: heldForCircuit(progress, admission, now) };
    // The origins this attempt sends the probe to (admitted half-open): their send is let through, once.
    const probing = new Set<string>(admission === 'probe' && origin !== undefined ? [origin] : []);
    const gate: CircuitGate = {
      tell: (to, verdict) => {
        this.tell({ service_id: ref.service_id, ticket_id: ref.ticket_id }, to, verdict, probing.has(to));
        probing.delete(to);
      },
      admit: (to) => {
        if (probing.has(to)) return 'go';
        const asked = this.admit(to, Date.now(), leaseUntil);
        if (asked === 'probe') probing.add(to);
        return asked === 'probe' ? 'go' : asked;
      },
      ...(pastWindow && origin !== undefined ? { heldAt: { path: progress.records.at(-1)?.path ?? '', origin } } : {}),
    };
    const settled = () => {
      for (const to of probing) this.releaseProbe(to);
    };
    return { gate, settled };
  }

  /** A send's verdict on its origin (`probe`: the send was the probe admit let through). */
  private tell(ref: LogRef, origin: string, verdict: Verdict, probe: boolean): void {
    const before = this.circuits.get(origin);
    const after = recorded(before, verdict, probe, Date.now(), circuitPolicy(this.env, Math.random));
    if (after === before) return;
    this.circuits.put(origin, after);
    if ((paused(before?.state) || paused(after?.state)) && !this.jobs.has('report-circuits', ref)) this.jobs.add('report-circuits', Date.now(), ref);
  }

  /** A probe's attempt ended without a send to its origin: the next attempt there is the probe, due now. */
  private releaseProbe(origin: string): void {
    const circuit = this.circuits.get(origin);
    if (circuit?.state === 'half-open') this.circuits.put(origin, probeLost(circuit, Date.now()));
  }

  /** Writes the ticket's paused destinations to D1 for the owner's listing (src/forward/destination-report.ts). */
  async report(job: Job<'report-circuits'>): Promise<void> {
    const paused = this.circuits.paused(MAX_REPORTED_PER_CALLER);
    await reportPaused(this.env.DB, holderOf(this.jobs.payloadOf(job)), paused, Date.now());
    // A change while D1 was written found this job due and added none: it runs again.
    if (JSON.stringify(this.circuits.paused(MAX_REPORTED_PER_CALLER)) === JSON.stringify(paused)) this.jobs.delete(job.id);
    else this.jobs.reschedule(job.id, Date.now());
  }

  /** The ticket is deleted: its circuits go, and so do its rows in the owner's listing. */
  async forget(ref: LogRef | undefined): Promise<void> {
    const reported = this.circuits.paused(1).length > 0;
    this.circuits.clear();
    if (reported && ref) await reportPaused(this.env.DB, holderOf(ref), [], Date.now());
  }
}
