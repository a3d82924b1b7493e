/**
 * Issue 26 item 3 at full size: 20,000 bad signatures at one ticket of project A from many addresses,
 * while project B's ticket is consumed at a steady 20 a second. B loses nothing, A's log stays under its
 * bound, nothing answers 500. The flood's duration and rate are printed (docs/limits.md, "The flood test",
 * keeps the figures: tests never assert on wall-clock time); B's latencies are `npm run bench -- --only=fl`.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_LOG_BYTES_PER_MINUTE, MINUTE_MS } from '../../src/ticket-log/log-sampling';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { getTickets } from '../logs/log-helpers';
import { from, setFloodLimits } from './support';
import { ticketStub } from '../../src/platform/object-stubs';

/** Bad signatures sent at A. */
const FLOOD = 20_000;
/** Addresses the flood comes from: each stays under the ticket's per-caller limit. */
const ADDRESSES = 200;
const STEADY_EVERY_MS = 50;
/** Flood requests in flight at once. */
const BATCH = 100;

let a: TestProject;
let b: TestProject;
beforeAll(async () => {
  a = await createProject();
  b = await createProject();
  await putSecret(a, 'hook', 'flood-secret');
  await registerTicket(a, 'flooded', { condition: { method: 'POST', signature: { secretName: 'hook', header: 'x-sig' } }, actions: [] });
  await setFloodLimits(a, { tickets: { flooded: 5_000 } });
  await registerTicket(b, 'steady', { actions: [] });
});

/**
 * Sends the flood in small batches and, before each, B's consumptions due by then (one every 50 ms): the
 * pool's timers do not fire while its requests are in flight, so the pace is kept from the clock here.
 */
async function floodWhileSteady(send: (i: number) => Promise<{ status: number }>) {
  const statuses: number[] = [];
  const steady: Promise<{ status: number; json: any }>[] = [];
  const start = Date.now();
  const due = () => Math.floor((Date.now() - start) / STEADY_EVERY_MS) + 1;
  for (let next = 0; next < FLOOD; next += BATCH) {
    while (steady.length < due()) steady.push(call('GET', `/tg/${b.service_id}/steady?i=${steady.length}`, { headers: from('203.0.113.50') }));
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, FLOOD - next) }, (_, k) => send(next + k)));
    statuses.push(...batch.map((res) => res.status));
  }
  return { statuses, steady: await Promise.all(steady), seconds: (Date.now() - start) / 1000 };
}

describe(`a flood of ${FLOOD} bad signatures at one ticket of project A (issue 26 item 3)`, () => {
  let floodStatuses: number[];
  let steady: { status: number; json: any }[];
  let minutes: number;

  beforeAll(async () => {
    const startedAt = Date.now();
    const run = await floodWhileSteady((i) =>
      call('POST', `/tp/${a.service_id}/flooded`, {
        raw: JSON.stringify({ n: i }),
        headers: from(`198.51.100.${(i % ADDRESSES) + 1}`, { 'content-type': 'application/json', 'x-sig': 'bad' }),
      }),
    );
    ({ statuses: floodStatuses, steady } = run);
    console.log(
      `the flood: ${FLOOD} bad signatures in ${run.seconds.toFixed(1)} s (${Math.round(FLOOD / run.seconds)} a second), B consumed ${steady.length} times`,
    );
    // B is consumed at 20 a second for as long as the flood lasts (but its last batch).
    expect(steady.length).toBeGreaterThanOrEqual(Math.floor(run.seconds * 20 * 0.9));
    minutes = Math.floor(Date.now() / MINUTE_MS) - Math.floor(startedAt / MINUTE_MS) + 1;
  }, 300_000);

  it('answers no 500: every bad signature is refused CONDITION_FAILED (400) or, past a limit, 429', () => {
    expect(new Set(floodStatuses.filter((s) => s !== 400 && s !== 429))).toEqual(new Set());
    expect(floodStatuses.filter((s) => s === 400).length).toBeGreaterThan(FLOOD / 2);
  });

  it("the object's alarm writes A's counts held in memory to storage: every refusal is counted in what storage holds", async () => {
    const stub = ticketStub(env, a.service_id, 'flooded');
    // The flush is due a second after the counts started to be held; run the alarm rather than wait for it.
    for (let i = 0; i < 5 && (await stub.scheduledJobs()).some((job) => job.kind === 'flush-sampling'); i++) await runDurableObjectAlarm(stub);
    expect((await stub.scheduledJobs()).filter((job) => job.kind === 'flush-sampling')).toEqual([]);
    // Nothing is left in memory, so the log's read below writes nothing first: what it reads, storage held.
    expect(await runInDurableObject(stub, (instance) => instance['data'].sampler['held'].size)).toBe(0);
    const entries = await stub.logEntries();
    expect(entries.reduce((n, row) => n + (JSON.parse(row.description).sampled?.more ?? 1), 0)).toBe(floodStatuses.filter((s) => s === 400).length);
  });

  it('B loses nothing: each of its steady consumptions is answered 200 and logged once', async () => {
    expect(steady.length).toBeGreaterThan(10);
    expect(steady.filter((res) => res.status !== 200)).toEqual([]);
    const logged = await ticketStub(env, b.service_id, 'steady').logEntries();
    const receipts = new Set(steady.map((res) => res.json.tkid));
    expect(receipts.size).toBe(steady.length);
    expect(logged.length).toBe(steady.length);
    expect(new Set(logged.map((row) => row.consume_id)).size).toBe(steady.length);
    expect(logged.every((row) => !row.failed)).toBe(true);
  });

  it(`A's stored log stays under ${FAILURE_LOG_BYTES_PER_MINUTE} bytes for each minute the flood touched`, async () => {
    const bytes = await ticketStub(env, a.service_id, 'flooded').logBytes();
    expect(bytes).toBeLessThanOrEqual(FAILURE_LOG_BYTES_PER_MINUTE * minutes);
  });

  it('A\'s log shows the flood as "N more failed with CONDITION_FAILED (signature) in this minute", every refusal counted once', async () => {
    const page = await getTickets(a, { ticket_id: '#flooded#', limit: 100 });
    const summaries = page.json.list.filter((row: any) => row.sampled);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries[0].sampled).toMatchObject({ code: 'CONDITION_FAILED', field: 'signature' });
    expect(summaries[0].sampled.text).toBe(`${summaries[0].sampled.more} more failed with CONDITION_FAILED (signature) in this minute`);
    const entries = await ticketStub(env, a.service_id, 'flooded').logEntries();
    const counted = entries.reduce((n, row) => n + (JSON.parse(row.description).sampled?.more ?? 1), 0);
    expect(counted).toBe(floodStatuses.filter((s) => s === 400).length);
  });

  it("A's flood counts show, per minute, the failures counted instead of kept", async () => {
    const res = await call('GET', `/v1/projects/${a.service_id}/tickets/flooded/flood`, { token: a.owner_key });
    const entries = await ticketStub(env, a.service_id, 'flooded').logEntries();
    const more = entries.reduce((n, row) => n + (JSON.parse(row.description).sampled?.more ?? 0), 0);
    expect(res.json.minutes.reduce((n: number, m: { sampled: number }) => n + m.sampled, 0)).toBe(more);
  });
});
