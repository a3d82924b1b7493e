import { describe, expect, it } from 'vitest';
import { countedEntry, ranEffects, selectionOf, skipOf, startingProgress, stepIntervalMs, type ReplaySpec } from './bulk-replay';
import { LOG_CLASS } from '../ticket-log/log-body';

const spec = (over: Partial<ReplaySpec> = {}): ReplaySpec => ({ filter: {}, full: false, per_minute: 60, until: 1_000, ...over });
const row = (act: string, failed = false) => ({ act, detail: failed ? { error: { code: 'REQUEST_FAILED' } } : {} });

describe('bulk replay rules', () => {
  it('takes failed consumptions by default; a code takes failures only; the range ends at the start', () => {
    expect(selectionOf({}, 1_000)).toEqual({ classes: [LOG_CLASS.failed], from: 0, to: 1_000 });
    expect(selectionOf({ outcome: 'any', to: 5_000 }, 1_000)).toEqual({ classes: [LOG_CLASS.ok, LOG_CLASS.failed], from: 0, to: 1_000 });
    expect(selectionOf({ outcome: 'ok', code: 'TIMEOUT' }, 1_000).classes).toEqual([LOG_CLASS.failed]);
    expect(selectionOf({ consume_ids: ['abcde1'] }, 1_000).logKeys).toEqual(['abcde1']);
  });

  it('paces per_minute entries a minute, one entry a step', () => {
    expect(stepIntervalMs(1)).toBe(60_000);
    expect(stepIntervalMs(60)).toBe(1_000);
    expect(stepIntervalMs(600)).toBe(100);
    for (const perMinute of [1, 7, 13, 59, 60, 61, 599, 600]) expect(60_000 / stepIntervalMs(perMinute)).toBeLessThanOrEqual(perMinute);
  });

  it('an action with an effect that succeeded keeps an entry from running again unless full', () => {
    expect(ranEffects([row('cond'), row('resp'), row('req', true)])).toBe(false);
    expect(ranEffects([row('req'), row('req', true)])).toBe(true);
    const entry = { code: 'REQUEST_FAILED', actions: [row('mail'), row('req', true)] };
    expect(skipOf(entry, spec())).toBe('succeeded_actions');
    expect(skipOf(entry, spec({ full: true }))).toBeUndefined();
    expect(skipOf(entry, spec({ filter: { code: 'TIMEOUT' }, full: true }))).toBe('code_differs');
  });

  it('counts each entry once, keeping the latest 20 failures', () => {
    let progress = startingProgress();
    for (let i = 0; i < 25; i++) progress = countedEntry(progress, { t: i, k: `k${i}` }, { ok: false, consume_id: `k${i}`, code: 'TIMEOUT' });
    progress = countedEntry({ ...progress, taking: { t: 30, k: 'a' } }, { t: 30, k: 'a' }, { skipped: 'gone' });
    expect(progress.taking).toBeUndefined();
    progress = countedEntry(progress, { t: 31, k: 'b' }, { ok: true });
    expect(progress).toMatchObject({ done: 27, failed: 25, skipped: 1, succeeded: 1, skipped_by: { gone: 1 }, cursor: { t: 31, k: 'b' } });
    expect(progress.failures).toHaveLength(20);
    expect(progress.failures[0].consume_id).toBe('k5');
  });
});
