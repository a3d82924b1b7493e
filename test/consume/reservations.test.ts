/**
 * Reservations across registrations (docs/decisions.md): a failed run gives its unit back only into
 * the count or per-user counters it was taken from, never into what a later registration or a delete
 * put in their place. Driven on the real consumeTicket and TicketStore inside a Durable Object, with
 * action chains held open until the test settles them.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredTicket } from '../../schemas/ticket-types';
import { TicketStore } from '../../durable-objects/ticket-store';
import type { RunOutcome } from '../../src/actions/runner';
import { consumeTicket, type ConsumePorts } from '../../src/consume/consume-ticket';
import type { ConsumeInput, ConsumeOutcome } from '../../src/consume/types';

const USERS = ['ann', 'bob'] as const;
type UserName = (typeof USERS)[number];

type Op =
  | { kind: 'consume'; user: UserName | null }
  | { kind: 'settle'; pick: number; ok: boolean }
  | { kind: 'register'; count: number | null | undefined; limit: number | undefined }
  | { kind: 'delete' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('consume' as const), user: fc.constantFrom<UserName | null>(null, ...USERS) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), ok: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('register' as const),
      count: fc.constantFrom<number | null | undefined>(undefined, null, 0, 1, 2, 3, 5),
      limit: fc.constantFrom<number | undefined>(undefined, 1, 2, 3),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
);

const definition = (limit: number | undefined): StoredTicket => ({
  ticket_id: 'reserve',
  condition: {},
  actions: [],
  ...(limit !== undefined ? { limit_per_user: limit } : {}),
  timestamp: 1,
  updated: 1,
  rules_version: 2,
});

const inputFor = (user: UserName | null): ConsumeInput => ({
  mode: 'consume',
  project: { service_id: 'svc-reserve', owner_id: 'owner', receipt_key: 'ab'.repeat(32), plan: 'free' },
  ticket_id: 'reserve',
  request: {
    method: 'POST',
    headers: {},
    ip: '203.0.113.7',
    user_agent: 'property',
    ...(user ? { user: { user_id: user, access_group: 1, attributes: {} } } : {}),
  },
  rawBody: new Uint8Array(),
  search: '',
  signedRoute: user !== null,
  longForm: false,
  issuer: false,
});

interface InFlight {
  settle(outcome: RunOutcome): void;
  done: Promise<ConsumeOutcome>;
  countEpoch: number;
  usageEpoch: number;
  user: UserName | null;
}

/** What the owner allowed, per count epoch (a registration that writes the count, or a delete, starts one). */
interface Epoch {
  allowance: number | null;
  /** Reservations made in this epoch whose run succeeded or is still running. */
  held: number;
  succeeded: number;
}

/**
 * Runs one interleaving against a fresh TicketStore and checks, after every step, that the stored
 * count and per-user counters are exactly what the owner's latest registration allows minus the
 * consumptions taken since, and that no epoch saw more successes than its registration allowed.
 */
async function runInterleaving(sql: SqlStorage, ops: Op[]): Promise<void> {
  const store = new TicketStore(sql, env.BODIES, () => 1_000);
  const waiting: ((outcome: RunOutcome) => void)[] = [];
  const ports: ConsumePorts = {
    now: () => 1_000,
    verifySignature: async () => true,
    hasRecordAccess: async () => true,
    runActions: () => new Promise<RunOutcome>((resolve) => waiting.push(resolve)),
  };
  const inFlight: InFlight[] = [];
  const epochs: Epoch[] = [{ allowance: null, held: 0, succeeded: 0 }];
  let exists = false;
  let limit: number | undefined;
  let usageEpoch = 0;
  const userHeld = new Map<string, number>();
  const userKey = (user: string, epoch: number) => `${epoch}/${user}`;
  const currentEpoch = () => epochs.length - 1;

  for (const op of ops) {
    if (op.kind === 'consume') {
      const before = waiting.length;
      const done = consumeTicket(store, inputFor(op.user), ports);
      // Wait until the run holds its reservation (its chain is waiting) or the consumption was refused.
      const reached = await Promise.race([done.then(() => 'answered' as const), until(() => waiting.length > before)]);
      const epoch = epochs[currentEpoch()];
      const held = op.user ? (userHeld.get(userKey(op.user, usageEpoch)) ?? 0) : 0;
      const refusable =
        !exists || (epoch.allowance !== null && epoch.allowance - epoch.held <= 0) || (op.user !== null && limit !== undefined && held >= limit);
      if (reached === 'answered') {
        const outcome = await done;
        expect(outcome.ok).toBe(false);
        expect(refusable).toBe(true);
        continue;
      }
      expect(refusable).toBe(false);
      const settle = waiting[waiting.length - 1];
      const flight: InFlight = { settle, done, countEpoch: currentEpoch(), usageEpoch, user: op.user };
      inFlight.push(flight);
      epochs[flight.countEpoch].held++;
      if (op.user) userHeld.set(userKey(op.user, usageEpoch), (userHeld.get(userKey(op.user, usageEpoch)) ?? 0) + 1);
    } else if (op.kind === 'settle') {
      if (inFlight.length === 0) continue;
      const [flight] = inFlight.splice(op.pick % inFlight.length, 1);
      flight.settle(op.ok ? { rows: [] } : { rows: [], error: { code: 'REQUEST_FAILED', message: 'failed on purpose', stage: 'action' } });
      const outcome = await flight.done;
      expect(outcome.ok).toBe(op.ok);
      if (op.ok) epochs[flight.countEpoch].succeeded++;
      else {
        epochs[flight.countEpoch].held--;
        if (flight.user) userHeld.set(userKey(flight.user, flight.usageEpoch), (userHeld.get(userKey(flight.user, flight.usageEpoch)) ?? 0) - 1);
      }
    } else if (op.kind === 'register') {
      store.store(definition(op.limit), op.count, 1_000);
      if (op.count !== undefined || !exists) epochs.push({ allowance: op.count ?? null, held: 0, succeeded: 0 });
      exists = true;
      limit = op.limit;
    } else {
      store.remove();
      epochs.push({ allowance: 0, held: 0, succeeded: 0 });
      usageEpoch++;
      exists = false;
    }

    // The count: what the latest registration wrote, less what was taken since and is not given back.
    const epoch = epochs[currentEpoch()];
    expect(store.remaining()).toBe(exists && epoch.allowance !== null ? epoch.allowance - epoch.held : null);
    for (const user of USERS) expect(store.userUsed(user)).toBe(Math.max(0, userHeld.get(userKey(user, usageEpoch)) ?? 0));
    for (const seen of epochs) if (seen.allowance !== null) expect(seen.succeeded).toBeLessThanOrEqual(seen.allowance);
  }
  // Leave nothing running.
  for (const flight of inFlight) flight.settle({ rows: [] });
  await Promise.all(inFlight.map((flight) => flight.done));
}

/** n consumptions in flight, then `between`, then a consumption, then the n fail, then more consumptions. */
function inFlightThenFail(n: number, user: UserName | null, between: Op): Op[] {
  const consume: Op = { kind: 'consume', user };
  return [
    ...Array.from({ length: n }, () => consume),
    between,
    ...(between.kind === 'delete' ? [{ kind: 'register', count: null, limit: 2 } as Op] : []),
    consume,
    ...Array.from({ length: n }, () => ({ kind: 'settle', pick: 0, ok: false }) as Op),
    ...Array.from({ length: n + 1 }, () => consume),
  ];
}

/** Resolves once `condition` holds, checking after each turn of the event loop (bounded). */
async function until(condition: () => boolean): Promise<'reached'> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (condition()) return 'reached';
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  throw new Error('the consumption neither answered nor reached its action chain');
}

describe('reservations across registrations', () => {
  it('over random interleavings of consume, fail, succeed, re-register and delete, no registration is overspent and the counts stay exact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
        await runInDurableObject(stub, (_instance, state) => runInterleaving(state.storage.sql, [{ kind: 'register', count: 3, limit: 2 }, ...ops]));
      }),
      {
        numRuns: 200,
        // The interleavings of the issue: runs in flight across a re-registration, and across a delete.
        examples: [
          [[...inFlightThenFail(5, null, { kind: 'register', count: 5, limit: 2 })]],
          [[...inFlightThenFail(5, null, { kind: 'register', count: 0, limit: 2 })]],
          [[...inFlightThenFail(2, 'ann', { kind: 'delete' })]],
        ],
      },
    );
  });
});
