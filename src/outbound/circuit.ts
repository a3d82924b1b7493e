/**
 * A circuit breaker per destination origin (issue 36 item 6, an extension): after THRESHOLD failures in a
 * row within WINDOW_MS the circuit opens and work that can wait is held; one probe at a time is let through
 * every 1–5 minutes (jittered), and its success closes the circuit. Pure: the state is a small value, the
 * clock and the random source are given. The store keeps it (durable-objects/destination-circuits.ts).
 */

/** Failures in a row that open a circuit. */
export const THRESHOLD = 5;
/** The failures must fall within this time of the first of them (ms). */
export const WINDOW_MS = 600_000;
/** A probe's shortest and longest wait (ms): 1 and 5 minutes. */
export const PROBE_MIN_MS = 60_000;
export const PROBE_MAX_MS = 300_000;

/** What one send tells of its destination: a 429 is back-pressure, waited out on its own, and tells nothing. */
export type Verdict = 'success' | 'failure' | 'neutral';

export type Circuit =
  /** Failures so far in the current run of them (a circuit with none is not kept). */
  | { state: 'closed'; failures: number; first_failure_at: number }
  /** Held until probe_at; probes_failed: the probes that failed since it opened (they lengthen the wait). */
  | { state: 'open'; since: number; failures: number; probe_at: number; probes_failed: number }
  /** A probe is out until probe_until (its send's lease): no other send goes. */
  | { state: 'half-open'; since: number; failures: number; probe_until: number; probes_failed: number };

/** A circuit that holds work back, with its origin. */
export interface PausedDestination {
  origin: string;
  circuit: Exclude<Circuit, { state: 'closed' }>;
}

export interface CircuitPolicy {
  threshold: number;
  windowMs: number;
  /** The first probe's shortest wait; the longest wait is 5 times it (1 and 5 minutes in production). */
  probeMinMs: number;
  random: () => number;
}

export type Admission =
  /** The circuit is closed: send. */
  | { send: 'go' }
  /** The probe: send it, and keep `circuit` (half-open) first. */
  | { send: 'probe'; circuit: Circuit }
  /** Held: try again at `until` (the probe's time, or the end of the probe's lease). */
  | { send: 'wait'; until: number };

/** The verdict of a send: its status when the destination answered, else whether it failed on the way. */
export function verdictOf(statusCode: number | undefined, failed: boolean): Verdict {
  if (statusCode === undefined) return failed ? 'failure' : 'neutral';
  if (statusCode >= 500) return 'failure';
  return statusCode === 429 ? 'neutral' : 'success';
}

/**
 * How long the next probe waits after `probesFailed` failed probes: the step doubles from probeMinMs
 * (1, 2, 4 minutes), plus up to one probeMinMs of jitter, never past 5 × probeMinMs.
 */
export function probeDelayMs(probesFailed: number, policy: Pick<CircuitPolicy, 'probeMinMs' | 'random'>): number {
  const max = policy.probeMinMs * 5;
  const step = Math.min(max - policy.probeMinMs, policy.probeMinMs * 2 ** Math.min(Math.max(0, probesFailed), 3));
  const jitter = Math.min(1, Math.max(0, policy.random()));
  return Math.round(step + jitter * policy.probeMinMs);
}

/** Whether a send to the destination may go now; `leaseUntil`: when a probe sent now is taken for lost. */
export function admit(circuit: Circuit | undefined, now: number, leaseUntil: number): Admission {
  if (!circuit || circuit.state === 'closed') return { send: 'go' };
  const until = circuit.state === 'open' ? circuit.probe_at : circuit.probe_until;
  if (now < until) return { send: 'wait', until };
  const { since, failures, probes_failed } = circuit;
  return { send: 'probe', circuit: { state: 'half-open', since, failures, probe_until: Math.max(leaseUntil, now + 1), probes_failed } };
}

/**
 * The circuit after a send's verdict; undefined when it is closed with no failure (nothing is kept).
 * `probe`: the send was the probe admit() let through. A success always closes; a probe that does not
 * succeed opens the circuit again, with a longer wait.
 */
export function recorded(circuit: Circuit | undefined, verdict: Verdict, probe: boolean, now: number, policy: CircuitPolicy): Circuit | undefined {
  if (verdict === 'success') return undefined;
  if (circuit?.state === 'half-open' && probe) return reopened(circuit, circuit.probes_failed + 1, now, policy, verdict === 'failure' ? 1 : 0);
  if (verdict === 'neutral') return circuit;
  if (!circuit || circuit.state === 'closed') {
    const fresh = !circuit || now - circuit.first_failure_at > policy.windowMs;
    const failures = fresh ? 1 : circuit.failures + 1;
    const first_failure_at = fresh ? now : circuit.first_failure_at;
    if (failures < policy.threshold) return { state: 'closed', failures, first_failure_at };
    return { state: 'open', since: now, failures, probe_at: now + probeDelayMs(0, policy), probes_failed: 0 };
  }
  // A send that was not the probe (it began before the circuit opened, or needs no admission): counted only.
  return { ...circuit, failures: circuit.failures + 1 };
}

function reopened(circuit: Extract<Circuit, { state: 'half-open' }>, probesFailed: number, now: number, policy: CircuitPolicy, added: number): Circuit {
  const { since, failures } = circuit;
  return { state: 'open', since, failures: failures + added, probe_at: now + probeDelayMs(probesFailed, policy), probes_failed: probesFailed };
}

/** A probe taken for lost (its object restarted while it ran): the circuit is open again, its probe due now. */
export function probeLost(circuit: Circuit, now: number): Circuit {
  if (circuit.state !== 'half-open') return circuit;
  const { since, failures, probes_failed } = circuit;
  return { state: 'open', since, failures, probe_at: now, probes_failed };
}
