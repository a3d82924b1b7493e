import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, durationMs, MAX_BACKOFF_MS, MAX_WAIT_MS, requestedWaitMs } from './back-pressure';

const NOW = Date.UTC(2026, 10, 29, 7, 0, 0);
const asked = (headers: Record<string, string>, status = 429) => requestedWaitMs(status, Object.fromEntries(new Headers(headers)), NOW);

describe('the wait a back-pressure answer asks for', () => {
  it('reads Retry-After as delta seconds', () => {
    expect(asked({ 'retry-after': '120' })).toBe(120_000);
    expect(asked({ 'retry-after': ' 1 ' }, 503)).toBe(1000);
  });

  it('reads Retry-After as an HTTP date in each of its three forms', () => {
    expect(asked({ 'retry-after': 'Sun, 29 Nov 2026 07:00:30 GMT' })).toBe(30_000);
    expect(asked({ 'retry-after': 'Sunday, 29-Nov-26 07:01:00 GMT' })).toBe(60_000);
    expect(asked({ 'retry-after': 'Sun Nov 29 07:00:05 2026' })).toBe(5000);
  });

  it('reads x-ratelimit-reset and ratelimit-reset as delta seconds, or as an epoch time above 1e9', () => {
    expect(asked({ 'ratelimit-reset': '7' })).toBe(7000);
    expect(asked({ 'x-ratelimit-reset': String(NOW / 1000 + 42) })).toBe(42_000);
    expect(asked({ 'x-ratelimit-reset': String(NOW + 1500) })).toBe(1500);
    expect(asked({ 'x-ratelimit-reset': '2.5' })).toBe(2500);
  });

  it("reads OpenAI's reset durations and waits for the longer of requests and tokens", () => {
    expect(asked({ 'x-ratelimit-reset-requests': '1s' })).toBe(1000);
    expect(asked({ 'x-ratelimit-reset-tokens': '6m0s' })).toBe(360_000);
    expect(asked({ 'x-ratelimit-reset-requests': '20ms', 'x-ratelimit-reset-tokens': '1m2.5s' })).toBe(62_500);
  });

  it('reads a date in a reset header', () => {
    expect(asked({ 'x-ratelimit-reset': '2026-11-29T07:00:10Z' })).toBe(10_000);
  });

  it('prefers Retry-After over the reset headers', () => {
    expect(asked({ 'retry-after': '3', 'x-ratelimit-reset': '600' })).toBe(3000);
  });

  it('falls back to the reset headers when Retry-After is unusable', () => {
    expect(asked({ 'retry-after': 'later', 'x-ratelimit-reset': '4' })).toBe(4000);
  });

  it('caps a wait of more than a day at a day', () => {
    expect(asked({ 'retry-after': String(2 * 86_400) })).toBe(MAX_WAIT_MS);
    expect(asked({ 'x-ratelimit-reset-tokens': '30h' })).toBe(MAX_WAIT_MS);
  });

  it('ignores an absurd wait (years ahead)', () => {
    expect(asked({ 'retry-after': String(3 * 365 * 86_400) })).toBeUndefined();
    expect(asked({ 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' })).toBeUndefined();
  });

  it('ignores garbage, negative values, zero and dates in the past', () => {
    for (const value of ['garbage', 'soon 2', '-5', '0', '1e3', '', 'Wed, 21 Oct 2015 07:28:00 GMT', '10 s', 'NaN']) {
      expect(asked({ 'retry-after': value }), value).toBeUndefined();
      expect(asked({ 'x-ratelimit-reset': value }), value).toBeUndefined();
    }
    expect(asked({ 'x-ratelimit-reset': String(NOW / 1000 - 10) })).toBeUndefined();
  });

  it('asks for nothing on a status other than 429 and 503', () => {
    for (const status of [200, 301, 500, 502, 504]) expect(asked({ 'retry-after': '5' }, status)).toBeUndefined();
  });
});

describe('Go-style durations', () => {
  it('adds the parts and refuses anything else', () => {
    expect(durationMs('1h2m3s')).toBe(3_723_000);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('1.5s')).toBe(1500);
    for (const text of ['', 's', '1', '1x', '-1s', '1s ']) expect(durationMs(text), text).toBeUndefined();
  });
});

describe('the backoff when nothing usable is asked for', () => {
  it('doubles the base per earlier wait, with jitter between half and all of the step', () => {
    expect(backoffMs(0, 1000, () => 1)).toBe(1000);
    expect(backoffMs(0, 1000, () => 0)).toBe(500);
    expect(backoffMs(3, 1000, () => 1)).toBe(8000);
  });

  it('is capped', () => {
    expect(backoffMs(100, 1000, () => 1)).toBe(MAX_BACKOFF_MS);
  });
});

describe('any answer at all', () => {
  it('never throws, and the wait is never zero, negative or more than a day', () => {
    const names = fc.constantFrom('retry-after', 'x-ratelimit-reset', 'ratelimit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens');
    const value = fc.oneof(
      fc.string({ maxLength: 40 }).filter((text) => !/[\r\n\0]/.test(text)),
      fc.double({ noNaN: false }).map(String),
      fc.integer({ min: -1e13, max: 1e13 }).map(String),
      fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
    );
    fc.assert(
      fc.property(
        fc.dictionary(names, value, { maxKeys: 5 }),
        fc.constantFrom(429, 503, 200),
        fc.nat(60),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (headers, status, waits, random) => {
          const asked = requestedWaitMs(status, Object.fromEntries(new Headers(headers)), NOW);
          if (asked !== undefined) expect(asked).toBeGreaterThan(0);
          const wait = asked ?? backoffMs(waits, 1000, () => random);
          expect(wait).toBeGreaterThan(0);
          expect(wait).toBeLessThanOrEqual(MAX_WAIT_MS);
        },
      ),
    );
  });
});
