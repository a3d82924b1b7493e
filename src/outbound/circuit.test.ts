import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admit,
  type Circuit,
  type CircuitPolicy,
  PROBE_MAX_MS,
  PROBE_MIN_MS,
  probeDelayMs,
  probeLost,
  recorded,
  THRESHOLD,
  verdictOf,
  WINDOW_MS,
} from './circuit';

const NOW = Date.UTC(2026, 10, 29, 9, 0, 0);
const LEASE_MS = 60_000;
const policy = (random = () => 0.5): CircuitPolicy => ({ threshold: THRESHOLD, windowMs: WINDOW_MS, probeMinMs: PROBE_MIN_MS, random });

/** The circuit after `count` failures, one a second from `from`. */
function failed(count: number, from = NOW, start?: Circuit): Circuit | undefined {
  let circuit = start;
  for (let i = 0; i < count; i++) circuit = recorded(circuit, 'failure', false, from + i * 1000, policy());
  return circuit;
}

describe('what a send tells of its destination', () => {
  it('counts network errors, timeouts and 5xx as failures, a 429 as nothing, any other answer as a success', () => {
    expect(verdictOf(undefined, true)).toBe('failure');
    expect(verdictOf(500, false)).toBe('failure');
    expect(verdictOf(503, false)).toBe('failure');
    expect(verdictOf(429, false)).toBe('neutral');
    expect(verdictOf(200, false)).toBe('success');
    expect(verdictOf(404, false)).toBe('success');
    expect(verdictOf(undefined, false)).toBe('neutral');
  });
});

describe('a destination circuit', () => {
  it('stays closed below the threshold and opens at it, its probe 1 to 2 minutes on', () => {
    expect(failed(THRESHOLD - 1)).toEqual({ state: 'closed', failures: THRESHOLD - 1, first_failure_at: NOW });
    const open = failed(THRESHOLD);
    const at = NOW + (THRESHOLD - 1) * 1000;
    expect(open).toMatchObject({ state: 'open', since: at, failures: THRESHOLD, probes_failed: 0 });
    const probeAt = (open as Extract<Circuit, { state: 'open' }>).probe_at;
    expect(probeAt - at).toBeGreaterThanOrEqual(PROBE_MIN_MS);
    expect(probeAt - at).toBeLessThanOrEqual(2 * PROBE_MIN_MS);
  });

  it('counts failures only within the window of the first: older ones start the count again', () => {
    const old = failed(THRESHOLD - 1);
    expect(recorded(old, 'failure', false, NOW + WINDOW_MS + 5000, policy())).toEqual({
      state: 'closed',
      failures: 1,
      first_failure_at: NOW + WINDOW_MS + 5000,
    });
  });

  it('is reset by a success and left as it is by a 429', () => {
    expect(recorded(failed(3), 'success', false, NOW, policy())).toBeUndefined();
    expect(recorded(failed(3), 'neutral', false, NOW, policy())).toEqual(failed(3));
  });

  it('holds sends until the probe time, then lets exactly one probe through', () => {
    const open = failed(THRESHOLD) as Extract<Circuit, { state: 'open' }>;
    expect(admit(open, open.probe_at - 1, 0)).toEqual({ send: 'wait', until: open.probe_at });
    const probe = admit(open, open.probe_at, open.probe_at + LEASE_MS);
    expect(probe).toMatchObject({ send: 'probe', circuit: { state: 'half-open', probe_until: open.probe_at + LEASE_MS } });
    const halfOpen = (probe as { circuit: Circuit }).circuit;
    expect(admit(halfOpen, open.probe_at + 10, open.probe_at + 10 + LEASE_MS)).toEqual({ send: 'wait', until: open.probe_at + LEASE_MS });
  });

  it('closes on the probe success and opens again, waiting longer, on its failure', () => {
    const open = failed(THRESHOLD) as Extract<Circuit, { state: 'open' }>;
    const halfOpen = (admit(open, open.probe_at, open.probe_at + LEASE_MS) as { circuit: Circuit }).circuit;
    expect(recorded(halfOpen, 'success', true, open.probe_at + 5, policy())).toBeUndefined();
    const again = recorded(
      halfOpen,
      'failure',
      true,
      open.probe_at + 5,
      policy(() => 0),
    ) as Extract<Circuit, { state: 'open' }>;
    expect(again).toMatchObject({ state: 'open', since: open.since, failures: THRESHOLD + 1, probes_failed: 1 });
    expect(again.probe_at - (open.probe_at + 5)).toBe(2 * PROBE_MIN_MS);
  });

  it('takes a probe answered 429 as not a success: open again, no failure counted', () => {
    const open = failed(THRESHOLD) as Extract<Circuit, { state: 'open' }>;
    const halfOpen = (admit(open, open.probe_at, open.probe_at + LEASE_MS) as { circuit: Circuit }).circuit;
    expect(recorded(halfOpen, 'neutral', true, open.probe_at + 5, policy())).toMatchObject({ state: 'open', failures: THRESHOLD, probes_failed: 1 });
  });

  it('lets a new probe through once a probe outlives its lease, and at once after the object restarted', () => {
    const open = failed(THRESHOLD) as Extract<Circuit, { state: 'open' }>;
    const halfOpen = (admit(open, open.probe_at, open.probe_at + LEASE_MS) as { circuit: Circuit }).circuit;
    expect(admit(halfOpen, open.probe_at + LEASE_MS, open.probe_at + 2 * LEASE_MS)).toMatchObject({ send: 'probe' });
    expect(admit(probeLost(halfOpen, open.probe_at + 7), open.probe_at + 7, open.probe_at + 7 + LEASE_MS)).toMatchObject({ send: 'probe' });
  });

  it('never waits less than 1 minute or more than 5 between probes', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.double({ min: 0, max: 1, noNaN: true }), (probesFailed, random) => {
        const wait = probeDelayMs(probesFailed, { probeMinMs: PROBE_MIN_MS, random: () => random });
        return wait >= PROBE_MIN_MS && wait <= PROBE_MAX_MS;
      }),
    );
  });
});

/** One event on a destination: a send asks to go (and reports after `takes` ms, unless lost), or time passes. */
const event = fc.oneof(
  fc.record({
    kind: fc.constant('send' as const),
    verdict: fc.constantFrom<'success' | 'failure' | 'neutral'>('success', 'failure', 'neutral'),
    lost: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 2 * PROBE_MAX_MS }) }),
);

describe('a destination circuit, over any run of sends', () => {
  it('never has two probes out at once, a success always closes it, and every probe wait is 1 to 5 minutes', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 80 }), fc.double({ min: 0, max: 1, noNaN: true }), (events, random) => {
        let circuit: Circuit | undefined;
        let now = NOW;
        /** The probes sent and not reported, with the end of their lease. */
        let out: number[] = [];
        for (const step of events) {
          if (step.kind === 'tick') {
            now += step.ms;
            continue;
          }
          const lease = now + LEASE_MS;
          const admission = admit(circuit, now, lease);
          if (admission.send === 'wait') {
            if (admission.until <= now) return false;
            continue;
          }
          const probe = admission.send === 'probe';
          if (probe) {
            out = out.filter((until) => until > now);
            if (out.length > 0) return false;
            circuit = admission.circuit;
            if (step.lost) {
              out.push(lease);
              continue;
            }
          }
          now += 1;
          const before = circuit;
          circuit = recorded(
            circuit,
            step.verdict,
            probe,
            now,
            policy(() => random),
          );
          if (step.verdict === 'success' && circuit !== undefined) return false;
          if (circuit?.state === 'open' && before?.state !== 'open') {
            const wait = circuit.probe_at - now;
            if (wait < PROBE_MIN_MS || wait > PROBE_MAX_MS) return false;
          }
        }
        return true;
      }),
    );
  });
});
