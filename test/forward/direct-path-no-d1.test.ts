/**
 * Nothing on a direct request's path waits on D1 (issue 34 item 2): the dispatch goes to the caller's object,
 * which records the request in its own history, sends it and settles it there. With the project and the key
 * in the isolate's caches (as on every request after the first), the Worker's dispatch makes no D1 call at
 * all, and the request is in the caller's history the moment the dispatch answered.
 */
import { env } from 'cloudflare:workers';
import type { Env } from '../../src/env';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkForwardDispatch } from '../../schemas/forward';
import { forwardCaller } from '../../src/forward/caller';
import { dispatchForward, type ForwardContext } from '../../src/forward/dispatch';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { SvcHttpError } from '../../src/wire/errors';
import { origin, received, uniquePath } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'direct-key', 'sk_direct_path_value');
});

/** The Worker's env with every D1 call written down (then made as usual). */
function countingD1(calls: string[]): Env {
  const db = new Proxy(env.DB, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(prop)} ${String(args[0]).slice(0, 60)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return new Proxy(env, { get: (target, prop) => (prop === 'DB' ? db : Reflect.get(target, prop)) }) as Env;
}

async function dispatch(calls: string[], body: Record<string, unknown>, store?: ForwardContext['queues']) {
  const caller = await forwardCaller({ kind: 'anonymous' }, '192.0.2.44', 'direct-path');
  const owner = { serviceId: project.service_id, callerKey: caller.key };
  const context: ForwardContext = {
    env: countingD1(calls),
    serviceId: project.service_id,
    caller,
    queues: store ?? (() => forwardQueueStub(env, owner)),
    waitUntil: () => undefined,
    hops: 0,
  };
  const checked = await checkForwardDispatch(body);
  if (!checked.ok) throw new Error(JSON.stringify(checked));
  return { answer: await dispatchForward(context, checked.value), owner };
}

describe("a direct request's path", () => {
  it('makes no D1 call in the Worker once the key is cached, and the request is in the history as it answers', async () => {
    const url = `${origin}${uniquePath('/echo/no-d1')}`;
    const body = (i: number) => ({ url, method: 'POST', data: { i }, secretName: 'direct-key', headers: { 'x-key': '$CLIENT_SECRET' } });
    // The first call fills the isolate's key cache (one D1 read, as after a deploy).
    await dispatch([], body(0));
    const calls: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const { answer, owner } = await dispatch(calls, body(i));
      expect(answer.kind).toBe('direct');
      const id = (answer as { id: string }).id;
      const kept = await forwardQueueStub(env, owner).historyFind(owner, { method: 'POST', url, id });
      expect(kept, `request ${i} in the history`).not.toBeNull();
      expect((kept as unknown as { status: string }).status).toBe('resolved');
    }
    expect(calls).toEqual([]);
  });
});

describe('a caller whose object is unavailable', () => {
  it('gets a 503 with Retry-After for a direct or a queued request, and nothing is sent', async () => {
    const path = uniquePath('/echo/unavailable');
    const overloaded = (() => {
      const refuse = () => Promise.reject(Object.assign(new Error('Durable Object is overloaded. Too many requests queued.'), { overloaded: true }));
      return { sendDirect: refuse, enqueue: refuse };
    }) as unknown as ForwardContext['queues'];
    for (const queue of [undefined, 'q-unavailable']) {
      const refused = await dispatch([], { url: `${origin}${path}`, method: 'POST', data: { queue }, ...(queue ? { queue } : {}) }, overloaded).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(SvcHttpError);
      expect(refused).toMatchObject({ status: 503, retryAfterSeconds: 1, code: 'INTERNAL_ERROR' });
      expect((refused as Error).message).toMatch(/unavailable/);
    }
    expect(await received(path)).toBe(0);
  });
});
