/**
 * The event inspector's search (issue 37 item 4, extension): GET …/tickets/{ticket_id}/events filters a
 * ticket's log by outcome, code and time from the index, and finds a value in the request as received
 * by reading bodies newest first, in bounded pages that hand out where they stopped.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActionRow } from '../../src/actions/types';
import type { KeptRequest } from '../../src/ticket-log/kept-request';
import type { LogRow } from '../../src/ticket-log/log-row';
import { SEARCH_INDEX_ROWS, SEARCH_SEGMENT_READS } from '../../src/ticket-log/log-search';
import type { TicketLog } from '../../src/ticket-log/ticket-log';
import { ticketStub } from '../../src/platform/object-stubs';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, logRow } from './log-helpers';

let project: TestProject;
const TICKET = 'inspect';
/** Entries seeded straight into the log: more than SEARCH_SEGMENT_READS segments of 100 once packed. */
const SEEDED = 2_600;
/** An hour ago: within the plan's retention, which compaction applies. */
const BASE = Date.now() - 3_600_000;

const kept = (i: number): KeptRequest => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-name': `h${i}`, authorization: '[redacted]' },
  search: `?k=${i}`,
  body: { text: JSON.stringify({ data: { object: { id: `pi_${i}` } }, n: i, flag: i % 2 === 0, items: [{ sku: `s${i}` }] }) },
  ip: '198.51.100.1',
  user_agent: 'seed',
  signed_route: false,
  long_form: false,
  received_at: BASE + i,
});

/** Every 10th seeded entry failed with ACTION_FAILED at its first action. */
const seeded = (i: number): { row: LogRow; actions: ActionRow[] } => {
  const failed = i % 10 === 0;
  return {
    row: logRow(project.service_id, TICKET, `seed${String(i).padStart(5, '0')}`, BASE + i, {
      failed,
      code: failed ? 'ACTION_FAILED' : null,
      request: kept(i),
      description: failed ? { outcome: { ok: false, code: 'ACTION_FAILED' } } : { outcome: { ok: true }, duration_ms: i },
    }),
    actions: failed ? [{ seq: 0, path: 'actions[0]', act: 'req', detail: { attempts: 1, ms: 12, error: { code: 'HTTP_ERROR', message: 'status 500' } } }] : [],
  };
};

const stub = () => ticketStub(env, project.service_id, TICKET);
const events = (query: Record<string, string | number>) =>
  call('GET', `/v1/projects/${project.service_id}/tickets/${TICKET}/events?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, {
    token: project.owner_key,
  });

type Page = {
  list: { consume_id: string; log_key: string; outcome: string; code: string | null; duration_ms?: number; first_failure?: { code: string; path: string } }[];
  startKey: string | null;
  endOfList: boolean;
  scanned_to: number | null;
  scanned: number;
  segments_read: number;
};

/** Every page of a search, followed by its startKey to the end. */
async function allPages(query: Record<string, string | number>): Promise<Page[]> {
  const pages: Page[] = [];
  let startKey: string | null = null;
  do {
    const res = await events({ ...query, ...(startKey ? { startKey } : {}) });
    expect(res.status, res.text).toBe(200);
    pages.push(res.json as Page);
    startKey = (res.json as Page).startKey;
  } while (startKey !== null && pages.length < 100);
  return pages;
}

beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, TICKET, { actions: [] });
  // A real consumption first: it binds the log to the ticket and plan its segments are stored under.
  const res = await call('POST', `/tp/${project.service_id}/${TICKET}?via=real`, {
    body: { data: { object: { id: 'pi_real' } } },
    headers: { ...anonymousHeaders, 'X-Delivery': 'd-42', authorization: 'Bearer caller-credential' },
  });
  expect(res.status).toBe(200);
  await runInDurableObject(stub(), async (instance) => {
    const log = (instance as unknown as { data: { log: TicketLog } }).data.log;
    log.takeIn(Array.from({ length: SEEDED }, (_, i) => seeded(i)));
    while (await log.compact()) {}
  });
  await runDurableObjectAlarm(stub());
}, 120_000);

describe('the event search of a ticket log', () => {
  it('keeps the seeded log mostly in R2 segments (more than one page may read)', async () => {
    const segments = await env.BODIES.list({ prefix: `logs/`, include: [] });
    const mine = segments.objects.filter((o) => o.key.includes(`/${project.service_id}/${TICKET}/`));
    expect(mine.length).toBeGreaterThan(SEARCH_SEGMENT_READS);
  });

  it('finds a body value kept only in an old R2 segment by following the cursor, each page reading at most 20 segments', async () => {
    const pages = await allPages({ where: 'body.data.object.id', equals: 'pi_5' });
    const found = pages.flatMap((p) => p.list);
    expect(found.map((e) => e.consume_id)).toEqual(['seed00005']);
    for (const page of pages) {
      expect(page.segments_read).toBeLessThanOrEqual(SEARCH_SEGMENT_READS);
      expect(page.scanned).toBeLessThanOrEqual(SEARCH_INDEX_ROWS);
    }
    // A page that stopped at its bound with nothing found still hands out where to go on, and says how far it walked.
    const empty = pages.find((p) => p.list.length === 0 && p.startKey !== null);
    expect(empty?.scanned_to).toBeTypeOf('number');
    expect(pages.at(-1)?.endOfList).toBe(true);
  });

  it('compares numbers and booleans as their JSON text, and indexes arrays by number', async () => {
    const n = (await allPages({ where: 'body.n', equals: '2599' })).flatMap((p) => p.list);
    expect(n.map((e) => e.consume_id)).toEqual(['seed02599']);
    const sku = (await allPages({ where: 'body.items.0.sku', equals: 's2598' })).flatMap((p) => p.list);
    expect(sku.map((e) => e.consume_id)).toEqual(['seed02598']);
    const flag = await events({ where: 'body.flag', equals: 'true', limit: 3 });
    expect((flag.json as Page).list.map((e) => e.consume_id)).toEqual(['seed02598', 'seed02596', 'seed02594']);
  });

  it('finds a header value by its name in any case, and a query parameter', async () => {
    const header = (await allPages({ where: 'headers.X-Name', equals: 'h2597' })).flatMap((p) => p.list);
    expect(header.map((e) => e.consume_id)).toEqual(['seed02597']);
    const query = (await allPages({ where: 'query.k', equals: '2596' })).flatMap((p) => p.list);
    expect(query.map((e) => e.consume_id)).toEqual(['seed02596']);
  });

  it('filters outcome, code and time range from the index, pages continuing without repeats or gaps', async () => {
    const query = { outcome: 'failed', code: 'ACTION_FAILED', from: BASE + 1000, to: BASE + 1999, limit: 7 };
    const found = (await allPages(query)).flatMap((p) => p.list);
    expect(found).toHaveLength(100);
    expect(new Set(found.map((e) => e.consume_id)).size).toBe(100);
    expect(found[0]).toMatchObject({
      consume_id: 'seed01990',
      outcome: 'failed',
      code: 'ACTION_FAILED',
      first_failure: { code: 'HTTP_ERROR', path: 'actions[0]' },
    });
    expect(found.at(-1)?.consume_id).toBe('seed01000');
    const other = await events({ code: 'TICKET_NOT_FOUND' });
    expect((other.json as Page).list).toEqual([]);
  });

  it('lists a real consumption found by a header it was sent with, and its detail shows the request with credentials redacted', async () => {
    const page = await events({ where: 'headers.x-delivery', equals: 'd-42' });
    const [event] = (page.json as Page).list;
    expect(event).toMatchObject({ outcome: 'ok', code: null });
    // Its duration from arrival to answer, as the consumption logged it.
    expect(event.duration_ms).toEqual(expect.any(Number));
    const detail = await call('GET', `/v1/projects/${project.service_id}/tickets/${TICKET}/events/${event.log_key}`, { token: project.owner_key });
    expect(detail.status).toBe(200);
    expect(detail.json.request.headers.authorization).toBe('[redacted]');
    expect(detail.json.request.search).toBe('?via=real');
    expect(JSON.parse(detail.json.request.body.text)).toEqual({ data: { object: { id: 'pi_real' } } });
    expect(detail.json.answer.outcome).toEqual({ ok: true });
    expect(detail.text).not.toContain('caller-credential');
  });

  it('shows a failed action with its timing and code in the detail of a seeded failure', async () => {
    const detail = await call('GET', `/v1/projects/${project.service_id}/tickets/${TICKET}/events/seed00010`, { token: project.owner_key });
    expect(detail.status).toBe(200);
    expect(detail.json.actions).toEqual([
      { seq: 0, path: 'actions[0]', act: 'req', attempts: 1, ms: 12, error: { code: 'HTTP_ERROR', message: 'status 500' } },
    ]);
    const missing = await call('GET', `/v1/projects/${project.service_id}/tickets/${TICKET}/events/nosuch00`, { token: project.owner_key });
    expect(missing.status).toBe(404);
  });
});
