/**
 * Bad input (issue 33): a continuation whose run throws on every try (here its saved state lacks its
 * project) is given up after a bounded number of tries: its log entry is closed as failed and the job is
 * kept among the object's dead jobs.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RETRY } from '../../durable-objects/job-alarm';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { driveTries } from '../helpers/job-tries';
import { origin } from '../forward/support';
import { loggedConsumptions, settle } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

describe('a continuation whose run fails on every try', () => {
  it('is given up after RETRY.tries tries: closed as failed in the log, listed among the dead jobs', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await registerTicket(project, 'given-up', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '1h' } },
        { act: 'req', exe: { url: `${origin}/echo/given-up` } },
      ],
    });
    expect((await call('POST', `/tp/${project.service_id}/given-up`, { body: {} })).json).toBe('accepted');
    const stub = ticketStub(env, project.service_id, 'given-up');
    await runInDurableObject(
      stub,
      (_instance, state) => void state.storage.sql.exec("UPDATE jobs SET payload = json_remove(payload, '$.project') WHERE kind = 'continuation'"),
    );

    const tries = await driveTries(stub, 'continuation', async () => (await stub.deadJobs()).length > 0);
    expect(tries).toBe(RETRY.tries - 1);
    const dead = await stub.deadJobs();
    expect(dead).toEqual([expect.objectContaining({ kind: 'continuation', tries: RETRY.tries, error: expect.any(String) })]);
    expect((await stub.scheduledJobs()).filter((job) => job.kind === 'continuation')).toEqual([]);
    // The owner sees it, without its payload; another project's key does not.
    const jobs = await call('GET', `/v1/projects/${project.service_id}/tickets/given-up/jobs`, { token: project.owner_key });
    expect(jobs.status).toBe(200);
    expect(jobs.json.dead).toEqual([{ kind: 'continuation', died_at: expect.any(Number), tries: RETRY.tries, error: expect.any(String) }]);
    expect(jobs.json.scheduled.filter((job: { kind: string }) => job.kind === 'continuation')).toEqual([]);
    const stranger = await createProject({ plan: 'standard' });
    expect((await call('GET', `/v1/projects/${project.service_id}/tickets/given-up/jobs`, { token: stranger.owner_key })).status).toBe(401);
    await settle(project, 'given-up');
    const [row] = await loggedConsumptions(project, 'given-up');
    expect(row).toMatchObject({ failed: 1, code: 'INTERNAL_ERROR' });
    expect(row.description.continuation?.finished).toEqual(expect.any(Number));
  }, 30_000);
});
