import { describe, expect, it } from 'vitest';
import { boundsOf } from '../../schemas/alerts';
import { type RuleProgress, nextStep, verdictOf, windowRange } from './evaluate';

const MIN = 60_000;
const quiet: RuleProgress = { open_incident: null, false_since: null, last_resolved: null, window_minutes: 5, cooldown_minutes: 30 };
const open: RuleProgress = { ...quiet, open_incident: 'inc_1' };

describe('an alert condition holds only past its bound', () => {
  it('failure rate: over the percentage with at least the minimum volume', () => {
    const bounds = { threshold_percent: 50, min_volume: 4 };
    expect(verdictOf('failure_rate', bounds, { consumptions: 4, failed: 3 }).holds).toBe(true);
    expect(verdictOf('failure_rate', bounds, { consumptions: 4, failed: 2 }).holds).toBe(false);
    expect(verdictOf('failure_rate', bounds, { consumptions: 3, failed: 3 }).holds).toBe(false);
    expect(verdictOf('failure_rate', bounds, {}).holds).toBe(false);
    expect(verdictOf('failure_rate', bounds, { consumptions: 4, failed: 3 }).observed).toMatchObject({ value: 75, bound: 50, consumptions: 4 });
  });

  it('failure streak: at the number of failures in a row', () => {
    expect(verdictOf('failure_streak', { failures: 3 }, { streak: 3 }).holds).toBe(true);
    expect(verdictOf('failure_streak', { failures: 3 }, { streak: 2 }).holds).toBe(false);
  });

  it('p95 latency: over the bound, never without consumptions', () => {
    expect(verdictOf('p95_latency', { p95_ms: 200 }, { p95_ms: 201 }).holds).toBe(true);
    expect(verdictOf('p95_latency', { p95_ms: 200 }, { p95_ms: 200 }).holds).toBe(false);
    expect(verdictOf('p95_latency', { p95_ms: 200 }, { p95_ms: null }).holds).toBe(false);
  });

  it('flood refusals, dead letters and paused destinations: any at all', () => {
    expect(verdictOf('flood_refused', {}, { flood_refused: 1 }).holds).toBe(true);
    expect(verdictOf('flood_refused', {}, { flood_refused: 0 }).holds).toBe(false);
    expect(verdictOf('dead_letter', {}, { dead_letters: 2 }).holds).toBe(true);
    expect(verdictOf('dead_letter', {}, {}).holds).toBe(false);
    expect(verdictOf('destination_paused', {}, { paused: 1 }).holds).toBe(true);
    expect(verdictOf('destination_paused', {}, { paused: 0 }).holds).toBe(false);
  });
});

describe('an incident opens once per episode and resolves after a false window', () => {
  it('opens when the condition holds and no incident is open', () => {
    expect(nextStep(quiet, true, 1000)).toEqual({ step: 'open' });
    expect(nextStep(quiet, false, 1000)).toEqual({ step: 'none' });
  });

  it('does not open a second incident while one is open', () => {
    expect(nextStep(open, true, 1000)).toEqual({ step: 'none' });
  });

  it('notes when the condition turned false, and resolves only once it stayed false for the window', () => {
    expect(nextStep(open, false, 1000)).toEqual({ step: 'mark_false', since: 1000 });
    const falseSince = { ...open, false_since: 1000 };
    expect(nextStep(falseSince, false, 1000 + 5 * MIN - 1)).toEqual({ step: 'none' });
    expect(nextStep(falseSince, false, 1000 + 5 * MIN)).toEqual({ step: 'resolve' });
  });

  it('forgets the false start when the condition holds again before the window passed', () => {
    expect(nextStep({ ...open, false_since: 1000 }, true, 2000)).toEqual({ step: 'clear_false' });
  });

  it('opens nothing within the cooldown after a resolve, and opens once it passed', () => {
    const resolved = { ...quiet, last_resolved: 10 * MIN };
    expect(nextStep(resolved, true, 10 * MIN + 30 * MIN - 1)).toEqual({ step: 'cooling_down', until: 40 * MIN });
    expect(nextStep(resolved, true, 40 * MIN)).toEqual({ step: 'open' });
    expect(nextStep({ ...resolved, cooldown_minutes: 0 }, true, 10 * MIN)).toEqual({ step: 'open' });
  });
});

describe("a rule's window covers whole minute buckets up to now", () => {
  it('the minute of now and the window_minutes - 1 before it', () => {
    expect(windowRange(10 * MIN + 5, 5)).toEqual({ from: 6 * MIN, to: 10 * MIN + 5 });
    expect(windowRange(10 * MIN, 1)).toEqual({ from: 10 * MIN, to: 10 * MIN });
  });
});

describe("a rule's bounds are its kind's members", () => {
  it('fills the default minimum volume of a failure rate rule', () => {
    expect(boundsOf('failure_rate', { threshold_percent: 5 })).toEqual({ ok: true, bounds: { threshold_percent: 5, min_volume: 10 } });
  });
  it("refuses another kind's member, naming it", () => {
    expect(boundsOf('failure_streak', { failures: 3, p95_ms: 10 })).toMatchObject({ ok: false, field: 'p95_ms' });
  });
  it('refuses a missing required bound, naming it', () => {
    expect(boundsOf('p95_latency', {})).toMatchObject({ ok: false, field: 'p95_ms' });
    expect(boundsOf('dead_letter', {})).toEqual({ ok: true, bounds: {} });
  });
});
