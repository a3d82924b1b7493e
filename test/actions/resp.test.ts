import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/actions/queued-runs';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { accessGroupOf, consumePost, loggedConsumptions, remainingOf, settle, withoutMetricJobs } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject({ plan: 'standard' });
});

const setGroup = (group: number, userId = '${body[user]}') => ({ act: 'acsg', exe: { group, user_id: userId } });
const queuedRuns = async (p: TestProject) =>
  (
    await env.DB.prepare('SELECT queued_runs FROM usage_monthly WHERE service_id = ? AND month = ?')
      .bind(p.service_id, monthOf(Date.now()))
      .first<{ queued_runs: number }>()
  )?.queued_runs ?? 0;

describe('resp answers the caller', () => {
  it('at once, with its status and templated body, and the run stops there by default', async () => {
    const user = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'resp-now', {
      actions: [{ act: 'resp', exe: { status: 202, body: { got: '${body[x]}', raw: 'x=${body[x]}' } } }, setGroup(5)],
    });
    const res = await consumePost(project, 'resp-now', { x: 3, user: user.user_id });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ got: 3, raw: 'x=3' });
    await settle(project, 'resp-now');
    expect(await accessGroupOf(project, user.user_id)).toBe(1);
  });

  it('without a body answers the receipt { tkid, hash }', async () => {
    await registerTicket(project, 'resp-receipt', { actions: [{ act: 'resp', exe: {} }] });
    const res = await consumePost(project, 'resp-receipt');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['hash', 'tkid']);
  });

  it('a status may be a reference, and an error status is an answer, not a failure', async () => {
    await registerTicket(project, 'resp-status', { count: 5, actions: [{ act: 'resp', exe: { status: '${params[code]}', body: { ok: false } } }] });
    const res = await call('GET', `/tg/${project.service_id}/resp-status?code=404`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ ok: false });
    expect(await remainingOf(project, 'resp-status')).toBe(4);
  });

  it('a status that cannot carry a body (204) answers with no body', async () => {
    await registerTicket(project, 'resp-204', { actions: [{ act: 'resp', exe: { status: 204 } }] });
    const res = await consumePost(project, 'resp-204');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it("resume '0m' goes on in the background and the log row is closed when the run ends", async () => {
    const user = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'resp-bg', { actions: [{ act: 'resp', exe: { body: 'accepted', resume: '0m' } }, setGroup(6)] });
    const res = await consumePost(project, 'resp-bg', { user: user.user_id });
    expect(res.json).toBe('accepted');
    await settle(project, 'resp-bg');
    expect(await accessGroupOf(project, user.user_id)).toBe(6);
    const [logged] = await loggedConsumptions(project, 'resp-bg');
    expect(logged.failed).toBe(0);
    expect(logged.description).toMatchObject({ outcome: { ok: true }, responded: { status: 200 }, continuation: { finished: expect.any(Number) } });
    expect(logged.actions.map((a) => [a.seq, a.path, a.act])).toEqual([
      [0, 'actions[0]', 'resp'],
      [1, 'actions[1]', 'acsg'],
    ]);
    expect(withoutMetricJobs(await ticketStub(env, project.service_id, 'resp-bg').scheduledJobs())).toEqual([]);
  });

  it("resume '10m' is stored in the object's SQLite and survives the object being evicted", async () => {
    const user = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'resp-later', { actions: [{ act: 'resp', exe: { resume: '10m' } }, setGroup(8)] });
    const before = Date.now();
    await consumePost(project, 'resp-later', { user: user.user_id });
    const stub = ticketStub(env, project.service_id, 'resp-later');
    const [job] = (await stub.scheduledJobs()).filter((j) => j.kind === 'continuation');
    expect(job.run_at).toBeGreaterThanOrEqual(before + 600_000);
    expect(job.run_at).toBeLessThan(Date.now() + 600_000 + 1_000);

    await evictDurableObject(stub);
    // Time passes: the job becomes due (moved back, as the clock cannot be moved forward here).
    await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec("UPDATE jobs SET run_at = 0 WHERE kind = 'continuation'"));
    expect(await accessGroupOf(project, user.user_id)).toBe(1);
    await runDurableObjectAlarm(stub);
    await settle(project, 'resp-later');
    expect(await accessGroupOf(project, user.user_id)).toBe(8);
    const [logged] = await loggedConsumptions(project, 'resp-later');
    expect(logged.actions.map((a) => a.path)).toEqual(['actions[0]', 'actions[1]']);
  });

  it('a continuation interrupted by an eviction goes on from the action it was at', async () => {
    const [a, b] = [await mintUser(project, { access_group: 1 }), await mintUser(project, { access_group: 1 })];
    await registerTicket(project, 'resp-resume', { actions: [{ act: 'resp', exe: { resume: '1h' } }, setGroup(21, a.user_id), setGroup(22, b.user_id)] });
    await consumePost(project, 'resp-resume');
    const stub = ticketStub(env, project.service_id, 'resp-resume');
    // As if the first action had run and been checkpointed before the object went away.
    await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ payload: string }>("SELECT payload FROM jobs WHERE kind = 'continuation'").one();
      const job = JSON.parse(row.payload);
      job.state.frames[0].next = 2;
      state.storage.sql.exec("UPDATE jobs SET run_at = 0, payload = ? WHERE kind = 'continuation'", JSON.stringify(job));
    });
    await evictDurableObject(stub);
    await runDurableObjectAlarm(stub);
    await settle(project, 'resp-resume');
    expect([await accessGroupOf(project, a.user_id), await accessGroupOf(project, b.user_id)]).toEqual([1, 22]);
  });

  it('a continuation that fails closes the log row as failed and gives the count back', async () => {
    await registerTicket(project, 'resp-fails', { count: 3, actions: [{ act: 'resp', exe: { resume: '0m' } }, setGroup(3, 'nobody')] });
    const res = await consumePost(project, 'resp-fails');
    expect(res.status).toBe(200);
    await settle(project, 'resp-fails');
    expect(await remainingOf(project, 'resp-fails')).toBe(3);
    const [logged] = await loggedConsumptions(project, 'resp-fails');
    expect(logged).toMatchObject({
      failed: 1,
      code: 'ACTION_FAILED',
      description: { outcome: { ok: false, code: 'ACTION_FAILED', action: { act: 'acsg', path: 'actions[1]' } } },
    });
  });

  it('a second resp in the same run fails with ALREADY_RESPONDED and the caller keeps the first answer', async () => {
    await registerTicket(project, 'resp-twice', {
      actions: [
        { act: 'resp', exe: { body: 'first', resume: '0m' } },
        { act: 'resp', exe: { body: 'second' } },
      ],
    });
    const res = await consumePost(project, 'resp-twice');
    expect(res.json).toBe('first');
    await settle(project, 'resp-twice');
    const [logged] = await loggedConsumptions(project, 'resp-twice');
    expect(logged).toMatchObject({
      failed: 1,
      code: 'ALREADY_RESPONDED',
      description: { outcome: { stage: 'action', action: { act: 'resp', path: 'actions[1]' } } },
    });
  });

  it('queued runs are counted per project per month', async () => {
    const p = await createProject({ plan: 'standard' });
    await registerTicket(p, 'metered', {
      actions: [
        { act: 'resp', exe: { resume: '0m' } },
        { act: 'resp', exe: { status: 200 } },
      ],
    });
    await registerTicket(p, 'unmetered', {
      actions: [
        { act: 'resp', exe: {} },
        { act: 'resp', exe: {} },
      ],
    });
    await consumePost(p, 'metered');
    await consumePost(p, 'metered');
    await consumePost(p, 'unmetered');
    expect(await queuedRuns(p)).toBe(2);
  });

  it("a queued run past the plan's monthly quota fails with QUOTA_EXCEEDED before answering", async () => {
    const free = await createProject({ plan: 'free' });
    await env.DB.prepare('INSERT INTO usage_monthly (service_id, month, queued_runs) VALUES (?, ?, 1000)').bind(free.service_id, monthOf(Date.now())).run();
    await registerTicket(free, 'over', {
      count: 2,
      actions: [
        { act: 'resp', exe: { body: 'queued', resume: '0m' } },
        { act: 'resp', exe: {} },
      ],
    });
    const res = await consumePost(free, 'over');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUOTA_EXCEEDED', stage: 'action', action: { act: 'resp', path: 'actions[0]' } });
    expect(await remainingOf(free, 'over')).toBe(2);
    expect(await queuedRuns(free)).toBe(1000);
  });

  it('a premium project has no quota of queued runs', async () => {
    const premium = await createProject({ plan: 'premium' });
    await env.DB.prepare('INSERT INTO usage_monthly (service_id, month, queued_runs) VALUES (?, ?, 5000000)')
      .bind(premium.service_id, monthOf(Date.now()))
      .run();
    await registerTicket(premium, 'many', {
      actions: [
        { act: 'resp', exe: { body: 'queued', resume: '0m' } },
        { act: 'resp', exe: {} },
      ],
    });
    expect((await consumePost(premium, 'many')).json).toBe('queued');
    expect(await queuedRuns(premium)).toBe(5000001);
  });

  it('deleting the ticket cancels its runs waiting to go on', async () => {
    await registerTicket(project, 'resp-deleted', { actions: [{ act: 'resp', exe: { resume: '2h' } }, setGroup(9, 'nobody')] });
    await consumePost(project, 'resp-deleted');
    const stub = ticketStub(env, project.service_id, 'resp-deleted');
    expect((await stub.scheduledJobs()).some((j) => j.kind === 'continuation')).toBe(true);
    await call('DELETE', `/v1/projects/${project.service_id}/tickets/resp-deleted`, { token: project.owner_key });
    expect((await stub.scheduledJobs()).some((j) => j.kind === 'continuation')).toBe(false);
  });
});
