/** Issue 24 item 6: one project cannot fill what others need — a storage quota per project, tested with two projects. */
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEGMENT_ENTRIES } from '../../src/ticket-log/ticket-log';
import { forgetProject } from '../../src/platform/projects';
import { call, createProject, OPERATOR_TOKEN, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, ticketLog } from '../logs/log-helpers';
import { ticketStub } from '../../src/platform/object-stubs';
import { withoutMetricJobs } from '../actions/run-support';

/**
 * A's quota: above what one ticket object holds with its log cleared (its SQLite file, about 160 KB),
 * below what it holds after one segment of 2 KB bodies (about 300 KB). The test checks both sides.
 */
const QUOTA = 200_000;
const PAD = 'x'.repeat(2_000);
const COUNT = 1_000;

let a: TestProject;
let b: TestProject;
/** A's consumptions that succeeded. */
let consumed = 0;

const patchProject = (serviceId: string, body: unknown) => call('PATCH', `/v1/projects/${serviceId}`, { token: OPERATOR_TOKEN, body });
const consume = (p: TestProject, i: number) => call('POST', `/tp/${p.service_id}/hook`, { body: { i, pad: PAD }, headers: anonymousHeaders });
const dryRun = (p: TestProject) => call('POST', `/publ/check/${p.service_id}/${p.owner_id}/hook`, { body: { i: -1 }, headers: anonymousHeaders });

/** The bytes a ticket's log last reported to D1; null when it never reported. */
async function reported(p: TestProject, ticketId: string): Promise<number | null> {
  const row = await env.DB.prepare('SELECT bytes FROM project_storage WHERE service_id = ? AND part = ?')
    .bind(p.service_id, `ticket:${ticketId}`)
    .first<{ bytes: number }>();
  return row?.bytes ?? null;
}

/** Runs the ticket object's alarm until no segment is waiting to be packed (the packing reports the log's bytes). */
async function packSegments(p: TestProject, ticketId: string): Promise<void> {
  const stub = ticketStub(env, p.service_id, ticketId);
  for (let i = 0; i < 10 && (await stub.scheduledJobs()).some((job) => job.kind === 'compact-logs'); i++) await runDurableObjectAlarm(stub);
}

/** The ticket's log entries and remaining count: what a refused consumption must leave as it was. */
async function written(p: TestProject) {
  return { entries: (await ticketLog(p.service_id, 'hook')).length, remaining: (await ticketStub(env, p.service_id, 'hook').status()).remaining };
}

beforeAll(async () => {
  a = await createProject();
  b = await createProject();
  expect((await patchProject(a.service_id, { storage_quota_bytes: QUOTA })).status).toBe(200);
  await registerTicket(a, 'hook', { count: COUNT, actions: [] });
  await registerTicket(b, 'hook', { count: COUNT, actions: [] });
});

describe('storage quota: one project cannot fill what others need', () => {
  it('a ticket reports its storage when a segment is packed, not per consumption', async () => {
    const stub = ticketStub(env, a.service_id, 'hook');
    const packDue = async () => (await stub.scheduledJobs()).some((job) => job.kind === 'compact-logs');
    for (; consumed < 10; consumed++) expect((await consume(a, consumed)).status).toBe(200);
    for (let i = 0; i < 5 && (await runDurableObjectAlarm(stub)); i++);
    expect(await reported(a, 'hook')).toBeNull();

    while (!(await packDue()) && consumed < 2 * SEGMENT_ENTRIES) expect((await consume(a, consumed++)).status).toBe(200);
    expect(await reported(a, 'hook')).toBeNull();
    await packSegments(a, 'hook');
    expect(await reported(a, 'hook')).toBeGreaterThanOrEqual(QUOTA);
  });

  it('a project at or over its quota gets QUOTA_EXCEEDED on a consumption and a dry run, and nothing is written', async () => {
    forgetProject(a.service_id);
    const before = await written(a);
    expect(before).toEqual({ entries: consumed, remaining: COUNT - consumed });

    const refused = await consume(a, 0);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'QUOTA_EXCEEDED', stage: 'ticket', detail: { quota_bytes: QUOTA } });
    expect(refused.json.message).toMatch(
      new RegExp(`^The project's storage quota of ${QUOTA} bytes is used up \\(\\d+ bytes stored\\): clear ticket logs or raise the plan\\.$`),
    );
    expect(refused.json.detail.stored_bytes).toBe(await reported(a, 'hook'));
    expect((await dryRun(a)).json).toMatchObject({ code: 'QUOTA_EXCEEDED', stage: 'ticket' });

    expect(await written(a)).toEqual(before);
    expect(withoutMetricJobs(await ticketStub(env, a.service_id, 'hook').scheduledJobs()).filter((job) => job.kind !== 'export-logs')).toEqual([]);
  });

  it('another project keeps consuming, and its consumptions are logged, while one is over its quota', async () => {
    for (let i = 0; i < 3; i++) expect((await consume(b, i)).json).toMatchObject({ tkid: expect.stringMatching(/^#hook#/) });
    expect((await dryRun(b)).status).toBe(200);
    expect(await written(b)).toEqual({ entries: 4, remaining: COUNT - 3 });
    // Still refused: the other project's traffic changes nothing of A's.
    expect((await consume(a, 0)).json.code).toBe('QUOTA_EXCEEDED');
  });

  it("after the owner clears the ticket's log and the ticket reports it, the project consumes again", async () => {
    const cleared = await call('POST', `/v1/projects/${a.service_id}/tickets/hook/clear-log`, { token: a.owner_key, body: {} });
    expect(cleared.status).toBe(200);
    const after = await reported(a, 'hook');
    expect(after).toBeLessThan(QUOTA);
    expect(await written(a)).toEqual({ entries: 0, remaining: COUNT - consumed });

    forgetProject(a.service_id);
    const again = await consume(a, 1);
    expect(again.status).toBe(200);
    expect(await written(a)).toEqual({ entries: 1, remaining: COUNT - consumed - 1 });
  });
});

describe('storage_quota_bytes on PATCH /v1/projects/{service_id}', () => {
  it('a value that is not a whole number of bytes from 0 to 100 TB is INVALID_PARAMETER naming storage_quota_bytes', async () => {
    for (const value of [-1, 1.5, 100_000_000_000_001, 1e300, '1000', true, [], {}]) {
      const res = await patchProject(b.service_id, { storage_quota_bytes: value });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.json, JSON.stringify(value)).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'storage_quota_bytes' } });
      expect(res.json.message, JSON.stringify(value)).toMatch(/^Invalid "storage_quota_bytes": must be/);
    }
  });

  it("null gives the project its plan's quota again; 0 refuses every consumption; the owner cannot change it", async () => {
    const c = await createProject();
    await registerTicket(c, 'hook', { actions: [] });
    expect((await patchProject(c.service_id, { storage_quota_bytes: 0 })).status).toBe(200);
    expect((await consume(c, 0)).json).toMatchObject({ code: 'QUOTA_EXCEEDED', detail: { quota_bytes: 0, stored_bytes: 0 } });

    const byOwner = await call('PATCH', `/v1/projects/${c.service_id}/settings`, { token: c.owner_key, body: { storage_quota_bytes: null } });
    expect(byOwner.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'storage_quota_bytes' } });
    forgetProject(c.service_id);
    expect((await consume(c, 1)).json.code).toBe('QUOTA_EXCEEDED');

    expect((await patchProject(c.service_id, { storage_quota_bytes: null })).status).toBe(200);
    expect((await consume(c, 2)).status).toBe(200);
  });
});
