/**
 * Issue 33 item 4: a request for something that does not exist costs no store read. 20,000 requests,
 * each to a new made-up service id, from 200 addresses, then 20,000 to made-up ticket ids of one real
 * project, while project B's ticket is consumed: D1 queries and Durable Object calls are counted by
 * strict mode over the whole process (src/platform/strict-limits.ts). The durations are printed, not asserted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REALTIME_ROUTE } from '../../schemas/forward-rules';
import { SECURE_REQUEST_ROUTE } from '../../schemas/secure-rules';
import { randomId } from '../../src/platform/crypto';
import { d1QueriesSoFar, durableObjectCallsSoFar } from '../../src/platform/strict-limits';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { from } from './support';

const REQUESTS = 20_000;
const ADDRESSES = 200;
/** At most 1 % of the requests may reach a store. */
const MOST_READS = REQUESTS / 100;
/** Requests in flight at once: a pool, so a miss waiting for the next directory read does not hold up the others. */
const IN_FLIGHT = 1_000;
/** B is consumed once per this many made-up requests. */
const STEADY_EVERY = 100;
/** A guard against a hang, not a figure under test. */
const LONGEST = 600_000;

let a: TestProject;
let b: TestProject;
beforeAll(async () => {
  a = await createProject();
  b = await createProject();
  await registerTicket(a, 'real', { actions: [] });
  await registerTicket(b, 'steady', { actions: [] });
  // Each project read once, as any busy isolate has them.
  expect((await call('GET', `/tg/${a.service_id}/real`)).status).toBe(200);
  expect((await call('GET', `/tg/${b.service_id}/steady`)).status).toBe(200);
});

/** The public routes that read a project by the id in their path: consume forms, dry run, forwarding, secureRequest, realtime. */
const ROUTES: ((serviceId: string, ticketId: string) => [string, string])[] = [
  (s, t) => ['GET', `/tg/${s}/${t}`],
  (s, t) => ['POST', `/tp/${s}/${t}`],
  (s, t) => ['POST', `/tpa/${s}/${t}`],
  (s, t) => ['GET', `/publ/check/${s}/owner/${t}`],
  (s, t) => ['GET', `/publ/consume/${s}/owner/${t}`],
  (s, t) => ['POST', `/auth/consume/${s}/owner/${t}`],
  (s) => ['POST', `/v1/projects/${s}/forward`],
  (s) => ['GET', `/v1/projects/${s}/forward/request?id=r1`],
  (s) => ['GET', `/v1/projects/${s}/forward/history`],
  (s) => ['GET', `/v1/projects/${s}/forward/queue?queue=q`],
  (s) => ['POST', `/v1/projects/${s}${SECURE_REQUEST_ROUTE}`],
  (s) => ['GET', `/v1/projects/${s}${REALTIME_ROUTE}`],
];

interface Run {
  statuses: Map<string, number>;
  steady: number[];
  d1Queries: number;
  objectCalls: number;
  seconds: number;
}

/** Sends `REQUESTS` made by `request(i)`, `IN_FLIGHT` at a time, B's consumption among them; counts what they cost. */
async function flood(request: (i: number) => [string, string, string]): Promise<Run> {
  const statuses = new Map<string, number>();
  const steady: Promise<{ status: number }>[] = [];
  const queries = d1QueriesSoFar();
  const calls = durableObjectCallsSoFar();
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < REQUESTS; i = next++) {
      if (i % STEADY_EVERY === 0) steady.push(call('GET', `/tg/${b.service_id}/steady?i=${i}`, { headers: from('203.0.113.50') }));
      const [method, path, ip] = request(i);
      const res = await call(method, path, { headers: from(ip, { 'content-type': 'application/json' }), raw: method === 'POST' ? '{}' : undefined });
      const key = `${res.status} ${res.json?.code ?? res.text.slice(0, 40)}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (Date.now() - started) / 1000;
  return {
    statuses,
    steady: (await Promise.all(steady)).map((res) => res.status),
    d1Queries: d1QueriesSoFar() - queries,
    objectCalls: durableObjectCallsSoFar() - calls,
    seconds,
  };
}

const address = (i: number) => `198.51.100.${(i % ADDRESSES) + 1}`;

function report(what: string, run: Run) {
  console.log(
    `${what}: ${REQUESTS} requests in ${run.seconds.toFixed(1)} s (${Math.round(REQUESTS / run.seconds)}/s), ` +
      `${run.d1Queries} D1 queries, ${run.objectCalls} Durable Object calls (B's ${run.steady.length} consumptions included); answers ${JSON.stringify(Object.fromEntries(run.statuses))}`,
  );
}

/**
 * Waits (at most 10 s) until no D1 query or object call happened for half a second: work the tests
 * before left behind (a ticket-id cache refresh, an object's export) is not counted as this test's.
 */
async function quiet(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const [queries, calls] = [d1QueriesSoFar(), durableObjectCallsSoFar()];
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (d1QueriesSoFar() === queries && durableObjectCallsSoFar() === calls) return;
  }
}

describe('a request for something that does not exist costs no store read (issue 33 item 4)', () => {
  it(
    `${REQUESTS} requests, each to a new made-up service id, from ${ADDRESSES} addresses: at most ${MOST_READS} D1 queries, every answer INVALID_SERVICE or 429`,
    async () => {
      const run = await flood((i) => {
        const [method, path] = ROUTES[i % ROUTES.length](randomId(20), 'ticket');
        return [method, path, address(i)];
      });
      report('made-up service ids', run);
      for (const answer of run.statuses.keys()) expect(answer).toMatch(/^(400 INVALID_SERVICE|429 TOO_MANY_REQUESTS)$/);
      expect(run.d1Queries).toBeLessThanOrEqual(MOST_READS);
      expect(run.steady.every((status) => status === 200)).toBe(true);
    },
    LONGEST,
  );

  it(
    `${REQUESTS} requests, each to a new made-up ticket id of a real project, from ${ADDRESSES} addresses: at most ${MOST_READS} D1 queries and Durable Object calls, every answer TICKET_NOT_FOUND or 429`,
    async () => {
      const consumeRoutes = ROUTES.slice(0, 6);
      const run = await flood((i) => {
        const [method, path] = consumeRoutes[i % consumeRoutes.length](a.service_id, `t-${randomId(12)}`);
        return [method, path.replace('/owner/', `/${a.owner_id}/`), address(i)];
      });
      report('made-up ticket ids', run);
      for (const answer of run.statuses.keys()) expect(answer).toMatch(/^(400 TICKET_NOT_FOUND|429 TOO_MANY_REQUESTS)$/);
      expect(run.d1Queries).toBeLessThanOrEqual(MOST_READS);
      // B's consumptions are one object call each; the made-up tickets none.
      expect(run.objectCalls).toBeLessThanOrEqual(run.steady.length + MOST_READS);
      expect(run.steady.every((status) => status === 200)).toBe(true);
    },
    LONGEST,
  );

  it('bad ids (made up, long, %2F, dots, Unicode) are INVALID_SERVICE or TICKET_NOT_FOUND, never a 500, with no store read', async () => {
    const services = [
      randomId(20),
      'x',
      'a'.repeat(5_000),
      'abcd%2Fefghijklmnopq',
      'abcd..efghijklmnopqr',
      encodeURIComponent('ñandú'.repeat(4)),
      'ABCDEFGHIJKLMNOPQRST',
      `${a.service_id.slice(0, 19)}${a.service_id[19] === 'a' ? 'b' : 'a'}`,
    ];
    const tickets = ['x'.repeat(5_000), 'a%2Fb', 'a..b', encodeURIComponent('ñandú'), `t-${randomId(12)}`, '-starts-with-dash'];
    await quiet();
    const queries = d1QueriesSoFar();
    const calls = durableObjectCallsSoFar();
    const answers = await Promise.all([
      ...services.flatMap((s) => ROUTES.map((route) => route(s, 'ticket'))).map(([method, path]) => call(method, path, { headers: from('198.51.100.7') })),
      ...tickets.map((t) => call('GET', `/tg/${a.service_id}/${t}`, { headers: from('198.51.100.8') })),
    ]);
    const codes = answers.map((res) => `${res.status} ${res.json?.code}`);
    expect(codes.slice(0, services.length * ROUTES.length).every((code) => code === '400 INVALID_SERVICE')).toBe(true);
    expect(codes.slice(services.length * ROUTES.length).every((code) => code === '400 TICKET_NOT_FOUND')).toBe(true);
    // The ticket misses share the project's directory reads: a miss waits for a read that started after it
    // arrived, so misses that arrive while the first read is in flight share the next one. Two reads at
    // most for the six of them (src/consume/fresh-ids.ts), none for a bad service id; no object called.
    expect(d1QueriesSoFar() - queries).toBeLessThanOrEqual(2);
    expect(durableObjectCallsSoFar() - calls).toBe(0);
  });
});
