import { describe, expect, it } from 'vitest';
import { deadLetterFacts, deadLetterReasonOf } from './dead-letter';
import { startProgress } from './retry-attempts';

const failure = (code: string, detail?: Record<string, unknown>) => ({ act: 'req', path: 'actions[1]', code, ...(detail ? { detail } : {}) });

describe('a ticket dead letter', () => {
  it('says why by what the last attempt got', () => {
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { status: 503 }))).toBe('retry_window_ended');
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { status: 429 }))).toBe('retry_window_ended');
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { status: 500 }))).toBe('error_status');
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { status: 408 }))).toBe('error_status');
    expect(deadLetterReasonOf(failure('TIMEOUT'))).toBe('timeout');
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { reason: 'timeout' }))).toBe('timeout');
    expect(deadLetterReasonOf(failure('REQUEST_FAILED', { reason: 'unreachable' }))).toBe('request_failed');
  });

  it('counts the attempts made, the last one included, and lists the waits apart', () => {
    const progress = {
      ...startProgress(0),
      failed: 2,
      records: [
        { at: 1, ok: false, status: 503, waited_ms: 1_000, wait_from: 'backoff' },
        { at: 2, ok: false, status: 500 },
        { at: 3, ok: false, status: 500 },
      ],
      total: 3,
    };
    const facts = deadLetterFacts(failure('REQUEST_FAILED', { status: 500 }), 'The destination answered with status 500.', 'https://api.example/x', progress);
    expect(facts).toEqual({
      reason: 'error_status',
      what: 'req https://api.example/x',
      act: 'req',
      path: 'actions[1]',
      status_code: 500,
      error: { code: 'REQUEST_FAILED', message: 'The destination answered with status 500.' },
      attempts: 3,
      waits: [{ at: 1, status_code: 503, waited_ms: 1_000 }],
    });
    expect(deadLetterFacts(failure('TIMEOUT'), 'm', undefined, startProgress(0)).what).toBe('req at actions[1]');
  });

  it('a run held for an open circuit until its window ended is judged by the last answer it got', () => {
    const progress = { ...startProgress(0), failed: 0, records: [{ at: 1, ok: false, status: 503, waited_ms: 1_000, wait_from: 'backoff' }], total: 1 };
    const held = failure('REQUEST_FAILED', { reason: 'circuit_open', origin: 'https://api.example' });
    expect(deadLetterFacts(held, 'Not sent', undefined, progress)).toMatchObject({ reason: 'retry_window_ended', status_code: 503 });
    expect(deadLetterFacts(held, 'Not sent', undefined, startProgress(0)).reason).toBe('request_failed');
  });
});
