/**
 * Idempotent consumption under concurrency (docs/decisions.md "Idempotent consumption"): of consumptions
 * with one key, exactly one runs its actions; a success is answered to every later one, a failure frees
 * the key. Driven on the real consumeTicket and TicketStore inside a Durable Object, with action chains
 * held open until the property settles them.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TicketStore } from '../../durable-objects/ticket-store';
import type { RunOutcome } from '../../src/actions/runner';
import { consumeTicket, type ConsumePorts } from '../../src/consume/consume-ticket';
import type { ConsumeInput, ConsumeOutcome } from '../../src/consume/types';

type Op = { kind: 'consume' } | { kind: 'settle'; ok: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'consume' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), ok: fc.boolean() }) },
);

const input: ConsumeInput = {
  mode: 'consume',
  project: { service_id: 'svc-idem', owner_id: 'owner', receipt_key: 'cd'.repeat(32), plan: 'free' },
  ticket_id: 'idem',
  request: { method: 'POST', headers: { 'webhook-id': 'evt-1' }, ip: '203.0.113.8', user_agent: 'property' },
  rawBody: new Uint8Array(),
  search: '',
  signedRoute: false,
  longForm: false,
  issuer: false,
};

/** Resolves once `condition` holds, checking after each turn of the event loop (bounded). */
async function until(condition: () => boolean): Promise<'reached'> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (condition()) return 'reached';
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  throw new Error('the consumption neither answered nor reached its action chain');
}

/**
 * Consumptions with one key, started while earlier ones are still running: each either starts its run
 * (only when no run holds the key and none succeeded), or answers at once — 409 while a run holds the
 * key, the first success's receipt after it. The count only moves for the run that succeeded.
 */
async function runInterleaving(sql: SqlStorage, ops: Op[]): Promise<void> {
  const store = new TicketStore(sql, env.BODIES, () => 1_000);
  store.store(
    {
      ticket_id: 'idem',
      condition: {},
      actions: [],
      idempotency: { key: '${headers[webhook-id]}', window: '24h' },
      timestamp: 1,
      updated: 1,
      rules_version: 2,
    },
    10,
    1_000,
  );
  const waiting: ((outcome: RunOutcome) => void)[] = [];
  const ports: ConsumePorts = {
    now: () => 1_000,
    verifySignature: async () => true,
    hasRecordAccess: async () => true,
    runActions: () => new Promise<RunOutcome>((resolve) => waiting.push(resolve)),
  };
  let running: { settle: (outcome: RunOutcome) => void; done: Promise<ConsumeOutcome> } | undefined;
  let receipt: unknown;
  let runs = 0;
  let succeeded = 0;
  const pending: Promise<ConsumeOutcome>[] = [];

  for (const op of ops) {
    if (op.kind === 'consume') {
      const before = waiting.length;
      const done = consumeTicket(store, input, ports);
      pending.push(done);
      const reached = await Promise.race([done.then(() => 'answered' as const), until(() => waiting.length > before)]);
      if (reached === 'answered') {
        const outcome = await done;
        if (receipt !== undefined) expect(outcome).toEqual({ ok: true, status: 200, body: receipt });
        else {
          expect(running).toBeDefined();
          expect(outcome).toMatchObject({ ok: false, status: 409, error: { code: 'IDEMPOTENCY_KEY_IN_USE' } });
        }
        continue;
      }
      // A run started: only when no other holds the key and none succeeded.
      expect(running).toBeUndefined();
      expect(receipt).toBeUndefined();
      runs++;
      running = { settle: waiting[waiting.length - 1], done };
    } else {
      if (!running) continue;
      const { settle, done } = running;
      running = undefined;
      settle(op.ok ? { rows: [] } : { rows: [], error: { code: 'REQUEST_FAILED', message: 'failed on purpose', stage: 'action' } });
      const outcome = await done;
      expect(outcome.ok).toBe(op.ok);
      if (op.ok) {
        succeeded++;
        receipt = outcome.ok ? outcome.body : undefined;
      }
    }
    expect(succeeded).toBeLessThanOrEqual(1);
    expect(store.remaining()).toBe(10 - succeeded - (running ? 1 : 0));
  }
  running?.settle({ rows: [] });
  await Promise.all(pending);
  expect(runs).toBeLessThanOrEqual(ops.filter((op) => op.kind === 'settle' && !op.ok).length + 1);
}

describe('idempotent consumption under concurrency', () => {
  it('over random interleavings of consumptions with one key, exactly one runs at a time and none runs after a success', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
        const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
        await runInDurableObject(stub, (_instance, state) => runInterleaving(state.storage.sql, ops));
      }),
      {
        numRuns: 150,
        examples: [
          // N concurrent consumptions with one key: one runs, the others are refused while it runs, then answered its receipt.
          [[...Array.from({ length: 8 }, () => ({ kind: 'consume' }) as Op), { kind: 'settle', ok: true }, { kind: 'consume' }, { kind: 'consume' }]],
          [
            [
              { kind: 'consume' },
              { kind: 'consume' },
              { kind: 'settle', ok: false },
              { kind: 'consume' },
              { kind: 'consume' },
              { kind: 'settle', ok: true },
              { kind: 'consume' },
            ],
          ],
        ],
      },
    );
  }, 60_000);
});
