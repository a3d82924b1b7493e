import { describe, expect, it } from 'vitest';
import { FieldIssueError } from './field-issue';
import { DEFAULT_RETRY_SCHEDULE, normalizeRetrySchedule } from './retry-schedule';

type Input = Parameters<typeof normalizeRetrySchedule>[0];

const refusedField = (input: Input): string | undefined => {
  try {
    normalizeRetrySchedule(input, 'retry_schedule');
    return undefined;
  } catch (err) {
    if (err instanceof FieldIssueError) return err.issue.field;
    throw err;
  }
};

describe('the retry schedule definition', () => {
  it('true is the default schedule: 5 s, 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, then 24 h steps, within 3 days, on 408, 429, 5xx, network errors and timeouts', () => {
    expect(normalizeRetrySchedule(true, 'retry_schedule')).toEqual({
      delays: ['5s', '1m', '5m', '30m', '2h', '5h', '10h', '24h', '24h'],
      within: '3d',
      attempts: 10,
      on: { statuses: [408, 429, '5xx'], network: true, timeout: true },
    });
    expect(normalizeRetrySchedule({}, 'retry_schedule')).toEqual(DEFAULT_RETRY_SCHEDULE);
  });

  it('own delays give one more attempt than they list; the stored form normalizes to itself', () => {
    const stored = normalizeRetrySchedule({ delays: ['1s', '10s'], on: { statuses: [500, 500, 409] } }, 'retry_schedule');
    expect(stored).toEqual({ delays: ['1s', '10s'], within: '3d', attempts: 3, on: { statuses: [500, 409], network: true, timeout: true } });
    expect(normalizeRetrySchedule(stored, 'retry_schedule')).toEqual(stored);
  });

  it('without own delays, the defaults that fit the window and the attempts are kept', () => {
    expect(normalizeRetrySchedule({ within: '1h' }, 'retry_schedule')).toMatchObject({ delays: ['5s', '1m', '5m', '30m'], attempts: 5 });
    const three = normalizeRetrySchedule({ attempts: 3 }, 'retry_schedule');
    expect(three).toMatchObject({ delays: ['5s', '1m'], attempts: 3 });
    expect(normalizeRetrySchedule(three, 'retry_schedule')).toEqual(three);
    expect(normalizeRetrySchedule({ attempts: 50, within: '7d' }, 'retry_schedule')).toMatchObject({ delays: DEFAULT_RETRY_SCHEDULE.delays, attempts: 50 });
  });

  it('a zero, negative, garbage or over-long delay is refused naming it', () => {
    for (const bad of ['0s', '-5s', '25h', '2d', 'soon', '1.5s', '']) expect(refusedField({ delays: ['5s', bad] })).toBe('retry_schedule.delays[1]');
    expect(refusedField({ delays: ['2h'], within: '1h' })).toBe('retry_schedule.delays[0]');
    expect(refusedField({ delays: [] })).toBe('retry_schedule.delays');
    expect(refusedField({ delays: Array.from({ length: 50 }, () => '1s') })).toBe('retry_schedule.delays');
    expect(refusedField({ delays: ['1s', '2s', '3s'], attempts: 3 })).toBe('retry_schedule.delays');
  });

  it('a window over 7 days, of zero or of no duration is refused naming within', () => {
    for (const bad of ['8d', '169h', '0d', '-1d', 'week', '1s']) expect(refusedField({ within: bad })).toBe('retry_schedule.within');
    expect(refusedField({ within: '7d' })).toBeUndefined();
  });

  it('attempts outside 2 to 50, or not whole, are refused naming attempts', () => {
    for (const bad of [0, 1, 51, 1000, 2.5, -3]) expect(refusedField({ attempts: bad })).toBe('retry_schedule.attempts');
    expect(refusedField({ attempts: 50 })).toBeUndefined();
  });

  it('a status outside 400 to 599 is refused naming it', () => {
    for (const bad of [200, 302, 399, 600]) expect(refusedField({ on: { statuses: [429, bad] } })).toBe('retry_schedule.on.statuses[1]');
  });
});
