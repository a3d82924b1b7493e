/**
 * The log's compaction job (durable-objects/ticket-store.ts `scheduleCompaction`): scheduled once while
 * a class's tail is past a segment's worth, and scheduled again by the consumptions after a pack.
 */
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEGMENT_ENTRIES } from '../../src/ticket-log/ticket-log';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders } from './log-helpers';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;

const consume = async (i: number) =>
  expect((await call('POST', `/tp/${project.service_id}/packed`, { body: { i }, headers: anonymousHeaders })).status).toBe(200);
const stub = () => ticketStub(env, project.service_id, 'packed');
const compactJobs = async () => (await stub().scheduledJobs()).filter((job) => job.kind === 'compact-logs').length;
const segments = async () => (await env.BODIES.list({ prefix: `logs/d30/${project.service_id}/packed/` })).objects.length;

async function runCompaction(): Promise<void> {
  for (let i = 0; i < 50 && (await compactJobs()) > 0; i++) {
    await runDurableObjectAlarm(stub());
    await scheduler.wait(20);
  }
}

beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, 'packed', { actions: [] });
});

describe('the log compaction job', () => {
  it('is scheduled once for a burst past a segment, and again by the consumptions after a pack', async () => {
    for (let i = 0; i < SEGMENT_ENTRIES + 3; i++) await consume(i);
    expect(await compactJobs()).toBe(1);
    await runCompaction();
    expect(await compactJobs()).toBe(0);
    expect(await segments()).toBe(1);

    // The next segment's worth: the job comes back although this instance scheduled one before.
    for (let i = 0; i < SEGMENT_ENTRIES; i++) await consume(SEGMENT_ENTRIES + 3 + i);
    expect(await compactJobs()).toBe(1);
    await runCompaction();
    expect(await segments()).toBe(2);
    expect((await stub().logEntries()).length).toBe(2 * SEGMENT_ENTRIES + 3);
  });
});
