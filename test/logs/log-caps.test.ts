/**
 * Issue 24, bad input: a kept request at its cap (64 KiB) goes through the ticket's log, into an R2
 * segment, and comes back whole: the listing shows it and a re-check judges the same bytes.
 */
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEGMENT_ENTRIES } from '../../src/ticket-log/ticket-log';
import { MAX_KEPT_BODY_BYTES } from '../../src/ticket-log/kept-request';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { getTickets } from './log-helpers';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
/** A JSON body of exactly MAX_KEPT_BODY_BYTES bytes whose `n` the condition reads. */
const capped = (n: number) => {
  const head = `{"n":${n},"pad":"`;
  return `${head}${'p'.repeat(MAX_KEPT_BODY_BYTES - head.length - 2)}"}`;
};

beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, 'capped', { condition: { body: [{ key: 'n', operator: '>=', value: 0 }] }, actions: [] });
  for (let i = 0; i < SEGMENT_ENTRIES + 1; i++) {
    const res = await call('POST', `/tp/${project.service_id}/capped`, { raw: capped(i), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  }
  const stub = ticketStub(env, project.service_id, 'capped');
  while ((await stub.scheduledJobs()).some((job) => job.kind === 'compact-logs')) await runDurableObjectAlarm(stub);
});

describe('a kept request at its 64 KiB cap', () => {
  it('is packed into R2 with its consumption', async () => {
    const { objects } = await env.BODIES.list({ prefix: `logs/d30/${project.service_id}/capped/` });
    expect(objects.length).toBeGreaterThan(0);
    // What stays in the object's SQLite is under one segment's worth (2 MB) per outcome.
    expect(objects.reduce((sum, o) => sum + o.size, 0)).toBeGreaterThan((SEGMENT_ENTRIES + 1) * MAX_KEPT_BODY_BYTES - 2_000_000);
  });

  it('is listed whole from its segment', async () => {
    const first = await getTickets(project, { ticket_id: '#capped#', limit: 100 });
    const second = await getTickets(project, { ticket_id: '#capped#', limit: 100, startKey: first.json.startKey });
    const oldest = second.json.list[second.json.list.length - 1];
    expect(oldest.request.body).toEqual({ text: capped(0) });
    expect(new TextEncoder().encode(oldest.request.body.text).length).toBe(MAX_KEPT_BODY_BYTES);
  });

  it('is re-checked from the same bytes', async () => {
    const page = await getTickets(project, { ticket_id: '#capped#', limit: 100 });
    const rest = await getTickets(project, { ticket_id: '#capped#', limit: 100, startKey: page.json.startKey });
    const oldest = rest.json.list[rest.json.list.length - 1];
    const res = await call('POST', `/v1/projects/${project.service_id}/tickets/capped/log/${oldest.consume_id}/recheck`, { token: project.owner_key });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json, JSON.stringify(res.json)).toMatchObject({ ticket_id: 'capped', replay_of: oldest.consume_id, passed: true });
  });
});
