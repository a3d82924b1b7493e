import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeAll, beforeEach, describe, expect, inject, it, onTestFinished, vi } from 'vitest';
import { currentBudget, DEPTH_HEADER, encodeCarried, enter } from '../../src/platform/strict-context';
import { strictEnv, strictHandlers } from '../../src/platform/strict-entry';
import { deepestChain, forgetDeepest, InvocationBudget, LimitBreach } from '../../src/platform/strict-limits';
import type { Env } from '../../src/env';
import { BASE, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { realtimeStub, ticketStub } from '../../src/platform/object-stubs';

/**
 * Strict mode counts how deep a request recursed through the Worker and its Durable Objects (docs/limits.md,
 * "How strict mode counts"): production refuses a call past 16 with "Subrequest depth limit exceeded".
 */
const origin = inject('loopbackOrigin');
const DEPTH = 'subrequest depth (Workers and Durable Objects one request recursed through)';

/** `links` invocations before the one a test starts, as a consumption that recursed would have made them. */
const linksBefore = (links: number) => ['request POST /tp/deep', ...Array.from({ length: links - 1 }, () => 'rpc TicketDO.runJob')];

/** Runs `run` as the last of `chain` (a Worker request whose own host is `host`), with the suite's bindings. */
function at<T>(chain: string[], run: (e: Env) => Promise<T>, host = 'svc.test'): Promise<T> {
  const budget = new InvocationBudget(chain.at(-1)!, 'request', 'paid', 'worker', Date.now, { chain: chain.slice(0, -1), host });
  return enter(budget, () => run(strictEnv(env)));
}

/** Collects what strict mode logs (each breach is logged as it is thrown). */
function logged(): string[] {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  onTestFinished(() => spy.mockRestore());
  return lines;
}

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, 'plain', { count: null, actions: [] });
});
beforeEach(() => forgetDeepest());

/** Consumes the ticket through the real Worker, as a fetch of its own host made `links` invocations deep would. */
const consumeFrom = (links: number, signedIn?: string) =>
  exports.default.fetch(`${BASE}/${signedIn ? 'tpa' : 'tp'}/${project.service_id}/plain`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [DEPTH_HEADER]: encodeCarried({ chain: linksBefore(links), host: 'svc.test' }),
      ...(signedIn ? { authorization: `Bearer ${signedIn}` } : {}),
    },
    body: '{}',
  });

describe('subrequest depth', () => {
  it('a consumption through the real Worker reaches TicketDO.consume at depth 2', async () => {
    const res = await exports.default.fetch(`${BASE}/tp/${project.service_id}/plain`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    await res.text();
    const path = `/tp/${project.service_id}/plain`;
    expect(deepestChain('rpc TicketDO.consume')).toEqual({ depth: 2, chain: [`request POST ${path}`, 'rpc TicketDO.consume'] });
    expect(deepestChain().depth).toBe(2);
  });

  it('a chain of 17 fails: the 17th, an RPC call to TicketDO.consume, is refused with a LimitBreach naming the chain; 16 pass', async () => {
    const res16 = await consumeFrom(14);
    expect(res16.status).toBe(200);
    await res16.text();
    expect(deepestChain('rpc TicketDO.consume')).toMatchObject({
      depth: 16,
      chain: [...linksBefore(14), `request POST /tp/${project.service_id}/plain`, 'rpc TicketDO.consume'],
    });

    const lines = logged();
    forgetDeepest();
    const res17 = await consumeFrom(15);
    expect(res17.status).toBe(500);
    await res17.text();
    const breach = lines.find((line) => line.includes(DEPTH));
    expect(breach).toContain(`${DEPTH}: 17 > 16, in request POST /tp/deep → rpc TicketDO.runJob → `);
    expect(breach).toContain(`rpc TicketDO.runJob → request POST /tp/${project.service_id}/plain → TICKETS.consume`);
    expect(deepestChain('rpc TicketDO.consume').depth).toBe(0);
  });

  it('a stub fetch counts as an RPC call does: one deeper, refused past 16', async () => {
    const owner = { serviceId: project.service_id, callerKey: 'depth' };
    const res = await at(linksBefore(1), (e) => realtimeStub(e, owner).fetch('https://realtime.test/room'));
    await res.body?.cancel();
    expect(deepestChain('fetch RealtimeDO.fetch')).toEqual({ depth: 2, chain: ['request POST /tp/deep', 'fetch RealtimeDO.fetch'] });

    logged();
    const refused = await at(linksBefore(16), (e) => realtimeStub(e, owner).fetch('https://realtime.test/room')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(LimitBreach);
    expect(refused).toMatchObject({ limit: DEPTH, count: 17, max: 16 });
    expect((refused as LimitBreach).where).toMatch(/^request POST \/tp\/deep → (rpc TicketDO\.runJob → ){15}REALTIME\.fetch$/);
    const rpc = await at(linksBefore(16), (e) => ticketStub(e, project.service_id, 'plain').status()).catch((err: unknown) => err);
    expect(rpc).toMatchObject({ limit: DEPTH, count: 17 });
  });

  it('waitUntil work inherits the depth of its request', async () => {
    let caught: unknown;
    const worker = strictHandlers<Env, unknown>({
      fetch: async (_request, e, ctx) => {
        // Started after the answer is returned, as waitUntil work is.
        ctx.waitUntil(
          scheduler
            .wait(1)
            .then(() => ticketStub(e, project.service_id, 'plain').status())
            .catch((err: unknown) => (caught = err)),
        );
        return new Response('answered');
      },
      queue: async () => {},
      scheduled: async () => {},
    });
    const send = async (headers: Record<string, string>) => {
      const ctx = createExecutionContext();
      await (await worker.fetch(new Request(`${BASE}/later`, { headers }), env, ctx)).text();
      await waitOnExecutionContext(ctx);
    };
    await send({});
    expect(caught).toBeUndefined();
    expect(deepestChain('rpc TicketDO.status')).toEqual({ depth: 2, chain: ['request GET /later', 'rpc TicketDO.status'] });

    logged();
    await send({ [DEPTH_HEADER]: encodeCarried({ chain: linksBefore(15), host: 'svc.test' }) });
    expect(caught).toBeInstanceOf(LimitBreach);
    expect((caught as LimitBreach).where).toMatch(/→ request GET \/later → TICKETS\.status$/);
  });

  it('an alarm starts again at depth 1: the alarm a consumption 16 deep set exports its log entry and does not fail', async () => {
    const lines = logged();
    const res = await consumeFrom(14, (await mintUser(project)).id_token);
    expect(res.status).toBe(200);
    await res.text();
    // A signed-in consumption is exported to D1 by the alarm it set (200 ms later; the runtime may have run it already).
    const stub = ticketStub(env, project.service_id, 'plain');
    while ((await stub.pendingLogCount()) > 0) await runDurableObjectAlarm(stub);
    expect(deepestChain('alarm TicketDO.alarm')).toEqual({ depth: 1, chain: ['alarm TicketDO.alarm'] });
    expect(lines.filter((line) => line.includes(DEPTH))).toEqual([]);
  });

  it("a fetch of the Worker's own host is one deeper and carries the chain to the request entry; other hosts never see it", async () => {
    const loopbackHost = new URL(origin).host;
    const echoed = async (host: string) =>
      at(linksBefore(3), async () => (await (await fetch(`${origin}/echo`)).json()) as { headers: Record<string, string> }, host);
    expect((await echoed('svc.test')).headers[DEPTH_HEADER]).toBeUndefined();
    const own = (await echoed(loopbackHost)).headers[DEPTH_HEADER];
    expect(JSON.parse(decodeURIComponent(own))).toEqual({ chain: linksBefore(3), host: loopbackHost });

    let seen: { header: string | null; depth?: number } | undefined;
    const worker = strictHandlers<Env, unknown>({
      fetch: async (request) => {
        seen = { header: request.headers.get(DEPTH_HEADER), depth: currentBudget()?.depth };
        return new Response(null);
      },
      queue: async () => {},
      scheduled: async () => {},
    });
    await worker.fetch(new Request(`${BASE}/again`, { headers: { [DEPTH_HEADER]: own } }), env, createExecutionContext());
    expect(seen).toEqual({ header: null, depth: 4 });
    const limit = await at(linksBefore(16), () => fetch(`${origin}/echo`), loopbackHost).catch((err: unknown) => err);
    expect(limit).toMatchObject({ limit: DEPTH, count: 17 });
  });
});
