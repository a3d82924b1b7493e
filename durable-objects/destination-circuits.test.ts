/**
 * DestinationCircuits on a real object's storage (a fresh ForwardQueueDO): each state is kept and read back
 * as it was, a circuit closed with no failure leaves no row, and a new instance frees a probe that was out.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Circuit } from '../src/outbound/circuit';
import { DestinationCircuits } from './destination-circuits';

function inStore(body: (store: DestinationCircuits, sql: SqlStorage) => void) {
  const stub = env.FORWARD_QUEUES.get(env.FORWARD_QUEUES.idFromName(`circuits-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, state) => body(new DestinationCircuits(state.storage.sql), state.storage.sql));
}

const A = 'https://a.example';
const B = 'https://b.example';
const C = 'https://c.example';

describe('DestinationCircuits', () => {
  it('reads back each state as it was kept', async () => {
    await inStore((store) => {
      const states: Circuit[] = [
        { state: 'closed', failures: 2, first_failure_at: 10 },
        { state: 'open', since: 20, failures: 5, probe_at: 80, probes_failed: 1 },
        { state: 'half-open', since: 20, failures: 6, probe_until: 90, probes_failed: 2 },
      ];
      for (const circuit of states) {
        store.put(A, circuit);
        expect(store.get(A)).toEqual(circuit);
      }
      expect(store.get(B)).toBeUndefined();
    });
  });

  it('keeps no row for a circuit closed with no failure', async () => {
    await inStore((store, sql) => {
      store.put(A, { state: 'open', since: 20, failures: 5, probe_at: 80, probes_failed: 0 });
      store.put(A, undefined);
      expect(store.get(A)).toBeUndefined();
      expect(sql.exec('SELECT COUNT(*) AS n FROM destination_circuits').one().n).toBe(0);
    });
  });

  it('lists the paused ones, longest paused first, up to the limit, never a closed one', async () => {
    await inStore((store) => {
      store.put(A, { state: 'half-open', since: 30, failures: 5, probe_until: 90, probes_failed: 0 });
      store.put(B, { state: 'open', since: 20, failures: 7, probe_at: 80, probes_failed: 1 });
      store.put(C, { state: 'closed', failures: 3, first_failure_at: 10 });
      expect(store.paused(10).map((paused) => paused.origin)).toEqual([B, A]);
      expect(store.paused(1)).toEqual([{ origin: B, circuit: { state: 'open', since: 20, failures: 7, probe_at: 80, probes_failed: 1 } }]);
    });
  });

  it('frees a probe that was out when the object restarted: open again, its probe due now', async () => {
    await inStore((store) => {
      store.put(A, { state: 'half-open', since: 30, failures: 5, probe_until: 90, probes_failed: 1 });
      store.put(B, { state: 'open', since: 20, failures: 7, probe_at: 800, probes_failed: 1 });
      store.releaseProbes(50);
      expect(store.get(A)).toEqual({ state: 'open', since: 30, failures: 5, probe_at: 50, probes_failed: 1 });
      expect(store.get(B)).toMatchObject({ probe_at: 800 });
    });
  });
});
