import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { failingDb } from '../../test/actions/failing-db';
import { consumeWorkBatch } from './consume-batch';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Consumes the bodies as one batch (message ids m0, m1, …, first delivery) and returns what became of each. */
async function consume(bodies: unknown[], workerEnv = env) {
  const batch = createMessageBatch<unknown>(
    'svc-work',
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: 0, attempts: 1, body })),
  );
  await consumeWorkBatch(batch, workerEnv);
  const result = await getQueueResult(batch, createExecutionContext());
  return { acked: result.explicitAcks.sort(), retried: result.retryMessages.map((retry) => retry.msgId) };
}

describe('the work queue consumer', () => {
  it('acks and logs a message of an unknown kind, or no kind, instead of retrying it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await consume([{ kind: 'no-such-kind' }, 'text', null])).toEqual({ acked: ['m0', 'm1', 'm2'], retried: [] });
    expect(logged.mock.calls.map((call) => call.slice(0, 2))).toEqual([
      ['invalid work message dropped', 'no-such-kind'],
      ['invalid work message dropped', undefined],
      ['invalid work message dropped', undefined],
    ]);
  });

  it('acks and logs a message of a known kind with a missing or mistyped field instead of retrying it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const bodies = [
      { kind: 'newsletter-plan', service_id: 's', after: null, next_batch: 0 },
      { kind: 'newsletter-batch', service_id: 's', send_id: 'n', batch: 0, recipients: 'a@example.com' },
      { kind: 'ticket-log.clear', service_id: 's', ticket_id: 't', before: '2026' },
      { kind: 'ticket-log.retention', now: Number.NaN, after: '' },
    ];
    expect(await consume(bodies)).toEqual({ acked: ['m0', 'm1', 'm2', 'm3'], retried: [] });
    expect(logged.mock.calls.map((call) => call[2])).toEqual([
      'send_id: Invalid input: expected string, received undefined',
      'recipients: Invalid input: expected array, received string',
      'before: Invalid input: expected number, received string',
      'now: Invalid input: expected number, received NaN',
    ]);
  });

  it("runs a valid message's consumer and acks it; a consumer that fails has its message retried", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const retention = { kind: 'ticket-log.retention', now: Date.now(), after: '\uffff' };
    expect(await consume([retention])).toEqual({ acked: ['m0'], retried: [] });
    const withoutProjects = { ...env, DB: failingDb(env.DB, /FROM projects/) };
    expect(await consume([retention], withoutProjects)).toEqual({ acked: [], retried: ['m0'] });
  });
});
