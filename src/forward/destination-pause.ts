/**
 * Pausing a failing destination (issue 36 item 6, an extension): what the forwarding queue makes of a
 * destination's circuit (outbound/circuit.ts). A queued request sent with `retry` whose destination's
 * circuit is open waits, pending at the head of its queue, listed among its attempts as a wait for the
 * circuit; every queued send tells the circuit how it went.
 */
import { type CircuitPolicy, PROBE_MIN_MS, THRESHOLD, verdictOf, type Verdict, WINDOW_MS } from '../outbound/circuit';
import type { Env } from '../env';
import type { ForwardOutcome, StreamOutcome } from './send';
import { MAX_LISTED_ATTEMPTS } from './resend';
import type { ForwardRecord } from './record';

/** The circuits' policy: CIRCUIT_PROBE_MS (test settings only) may shorten the probe's 1-minute step. */
export function circuitPolicy(env: Pick<Env, 'CIRCUIT_PROBE_MS'>, random: () => number): CircuitPolicy {
  const configured = Number(env.CIRCUIT_PROBE_MS);
  const probeMinMs = Number.isFinite(configured) && configured > 0 ? Math.min(configured, PROBE_MIN_MS) : PROBE_MIN_MS;
  return { threshold: THRESHOLD, windowMs: WINDOW_MS, probeMinMs, random };
}

/** The origin a circuit is kept for; undefined when the url does not parse (its send fails on its own). */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * What a queued send tells of its destination: a network error or a timeout fails (REQUEST_FAILED also
 * covers an answer too large to keep); a request refused before it was sent (INVALID_*) tells nothing.
 */
export function verdictOfOutcome(outcome: ForwardOutcome | StreamOutcome): Verdict {
  if (outcome.ok || ('statusCode' in outcome && outcome.statusCode !== undefined)) return verdictOf(outcome.statusCode, false);
  return verdictOf(undefined, outcome.error.code === 'TIMEOUT' || outcome.error.code === 'REQUEST_FAILED');
}

/** Whether the record waits for its destination's circuit (not for back-pressure). */
export function waitsForCircuit(record: ForwardRecord): boolean {
  return record.next_attempt_at !== undefined && record.attempts?.at(-1)?.waited === 'circuit';
}

/**
 * The pending request held until `until` for its destination's circuit: a wait listed among its attempts
 * (one entry per hold, lengthened while the hold lasts) and its next send's time set.
 */
export function heldForCircuit(record: ForwardRecord, until: number, now: number): ForwardRecord {
  const attempts = record.attempts ?? [];
  const held = waitsForCircuit(record) ? attempts.slice(0, -1) : attempts;
  const at = waitsForCircuit(record) ? (attempts.at(-1)?.at ?? now) : now;
  return {
    ...record,
    updated: now,
    attempts: [...held, { at, waited: 'circuit' as const, waited_ms: until - at }].slice(-MAX_LISTED_ATTEMPTS),
    next_attempt_at: until,
  };
}
