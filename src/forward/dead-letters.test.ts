import { describe, expect, it } from 'vitest';
import { deadLetterItemOf, deadLetterReason, withDeadLetter } from './dead-letters';
import type { ForwardRecord } from './record';

const base: ForwardRecord = {
  id: '0000000001:abcdefabcdefabcd',
  method: 'GET',
  url: 'https://api.example/x',
  queue_name: 'q',
  status: 'running',
  created: 1,
  updated: 2,
};
const resolved = (status_code: number): ForwardRecord => ({ ...base, status: 'resolved', status_code });
const failed = (error: ForwardRecord['error'], status_code?: number): ForwardRecord => ({
  ...base,
  status: 'failed',
  error,
  ...(status_code !== undefined ? { status_code } : {}),
});

describe('deadLetterReason', () => {
  it('a 429 or 503 that settled (its retry window ended) is retry_window_ended', () => {
    expect(deadLetterReason(resolved(429))).toBe('retry_window_ended');
    expect(deadLetterReason(resolved(503))).toBe('retry_window_ended');
  });

  it('a 408 or another 5xx is error_status, also on a failed stream', () => {
    expect(deadLetterReason(resolved(500))).toBe('error_status');
    expect(deadLetterReason(resolved(408))).toBe('error_status');
    expect(deadLetterReason(failed({ code: 'REQUEST_FAILED', message: 'The destination answered 502.', status_code: 502 }, 502))).toBe('error_status');
  });

  it('a timeout and a send that got no answer are dead letters', () => {
    expect(deadLetterReason(failed({ code: 'TIMEOUT', message: 't' }))).toBe('timeout');
    expect(deadLetterReason(failed({ code: 'REQUEST_FAILED', message: 'unreachable' }))).toBe('request_failed');
  });

  it('a success, another 4xx, a refusal before sending and an unsettled request are not', () => {
    for (const record of [
      resolved(200),
      resolved(404),
      resolved(301),
      failed({ code: 'INVALID_REQUEST', message: 'key refused' }),
      failed({ code: 'REQUEST_FAILED', message: 'The destination answered 400.', status_code: 400 }, 400),
      base,
      { ...base, status: 'pending' as const },
    ]) {
      expect(deadLetterReason(record)).toBeUndefined();
    }
  });
});

describe('withDeadLetter', () => {
  it('marks only a request sent with retry', () => {
    expect(withDeadLetter(resolved(500), true).dead_letter).toBe('error_status');
    expect(withDeadLetter(resolved(500), false)).not.toHaveProperty('dead_letter');
    expect(withDeadLetter(resolved(200), true)).not.toHaveProperty('dead_letter');
  });
});

describe('deadLetterItemOf', () => {
  it('counts the sends (waits for an open circuit are not sends) and names what failed', () => {
    const item = deadLetterItemOf({
      caller: 'u1',
      id: base.id,
      method: 'POST',
      url: 'https://api.example/x',
      queue_name: 'q',
      status: 'resolved',
      created: 1,
      updated: 9,
      status_code: 429,
      dead_letter: 'retry_window_ended',
      attempts: [
        { at: 2, status_code: 429, waited_ms: 1 },
        { at: 4, waited: 'circuit', waited_ms: 1 },
        { at: 6, status_code: 503, waited_ms: 1 },
      ],
    });
    expect(item).toMatchObject({
      kind: 'forward',
      what: 'POST https://api.example/x',
      failed_at: 9,
      reason: 'retry_window_ended',
      status_code: 429,
      attempts: 3,
      forward: { caller: 'u1', full_id: `POST:${base.id}:https://api.example/x` },
    });
    expect(item).not.toHaveProperty('error');
  });
});
