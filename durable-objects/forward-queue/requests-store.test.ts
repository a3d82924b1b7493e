/**
 * RequestsStore on a real object's storage (a fresh ForwardQueueDO): a row is read once into a
 * QueuedRequest with its texts beside it, the unresolved predicate counts places in a queue, and a head
 * whose record or plan cannot be read is told apart for the runner that gave up.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { QueuedDispatch } from '../../src/forward/queue-store';
import type { ForwardRecord } from '../../src/forward/record';
import { RequestsStore } from './requests-store';

function inStore(body: (store: RequestsStore, sql: SqlStorage) => void) {
  const stub = env.FORWARD_QUEUES.get(env.FORWARD_QUEUES.idFromName(`requests-store-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, state) => body(new RequestsStore(state.storage.sql), state.storage.sql));
}

function dispatch(id: string, queue: string, data?: unknown): QueuedDispatch {
  const record: ForwardRecord & { queue_name: string } = {
    id,
    method: 'POST',
    url: `https://api.example.com/${id}`,
    queue_name: queue,
    status: 'pending',
    created: 1,
    updated: 1,
    ...(data === undefined ? {} : { request_body: JSON.stringify(data) }),
  };
  return {
    owner: { serviceId: 'svc', callerKey: 'v:test' },
    caller: { signedIn: false, accessGroup: 0 },
    prepared: { method: 'POST', url: record.url, headers: {}, ...(data === undefined ? {} : { data }), secretName: 'llm' },
    record,
  };
}

describe('RequestsStore', () => {
  it('reads a row once into its values, its body kept beside the row and read back when asked', async () => {
    await inStore((store) => {
      const seq = store.add(dispatch('a', 'q', { big: 'x'.repeat(10) }));
      const request = store.find({ method: 'POST', url: 'https://api.example.com/a', id: 'a' });
      expect(request).toMatchObject({ seq, queue: 'q', status: 'pending', unresolved: true, plan: { dataFromRecord: true } });
      expect(request?.record.request_body).toBeUndefined();
      expect(store.withTexts(request!, ['request_body']).request_body).toBe('{"big":"xxxxxxxxxx"}');
      expect(store.sendable(request!.plan).prepared.data).toEqual({ big: 'x'.repeat(10) });
      expect(store.bySeq(seq)).toEqual(request);
    });
  });

  it('counts only unresolved requests: places in a queue, its head, and the requests using a secret', async () => {
    await inStore((store) => {
      const first = store.add(dispatch('a', 'q'));
      const second = store.add(dispatch('b', 'q'));
      store.add(dispatch('c', 'other'));
      expect([store.place('q', second), store.queueCount('q'), store.unresolvedWithSecret('llm')]).toEqual([2, 2, 3]);
      const head = store.headOf('q')!;
      expect(head.seq).toBe(first);
      store.write(head, { ...head.record, status: 'resolved', updated: 2 });
      expect(store.bySeq(first)).toMatchObject({ status: 'resolved', unresolved: false });
      expect([store.place('q', second), store.queueCount('q'), store.unresolvedWithSecret('llm'), store.count()]).toEqual([1, 1, 2, 3]);
      expect(store.headOf('q')?.seq).toBe(second);
    });
  });

  it('tells a given-up head whose plan or record cannot be read apart', async () => {
    await inStore((store, sql) => {
      const seq = store.add(dispatch('a', 'q'));
      sql.exec("UPDATE requests SET plan = 'not json' WHERE seq = ?", seq);
      expect(() => store.headOf('q')).toThrow(SyntaxError);
      const head = store.givenUpHead('q');
      expect(head).toMatchObject({ seq, request: null, record: { id: 'a', status: 'pending' } });
      store.failBare(seq, { ...head!.record!, status: 'failed' });
      expect(store.bySeq(seq)).toMatchObject({ status: 'failed', unresolved: false, plan: {} });
      sql.exec("UPDATE requests SET record = 'not json', status = 'pending' WHERE seq = ?", seq);
      expect(store.givenUpHead('q')).toEqual({ seq, record: null, request: null });
    });
  });
});
