import { beforeAll, describe, expect, inject, it } from 'vitest';
import { alertIncidentAnswer } from '../../schemas/alerts';
import { env } from 'cloudflare:workers';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { MIN, eventually, pauseDestination, resumeDestinations, runCron } from './support';

const origin = inject('loopbackOrigin');

const received = async (key: string) => (await (await fetch(`${origin}/alert-hook-state/${key}`)).json()) as { verified: boolean; id: string; payload: any }[];

async function incidents(project: TestProject) {
  const res = await call('GET', `/v1/projects/${project.service_id}/incidents`, { token: project.owner_key });
  return res.json.list.map((item: unknown) => alertIncidentAnswer.parse(item));
}

async function ruleOf(project: TestProject, ruleId: string) {
  return (await call('GET', `/v1/projects/${project.service_id}/alert-rules/${ruleId}`, { token: project.owner_key })).json;
}

async function outbox(project: TestProject): Promise<{ subject: string; to: string; text: string }[]> {
  return (await call('GET', `/v1/projects/${project.service_id}/mail-outbox`, { token: project.owner_key })).json.list;
}

describe('an incident is notified once when it opens and once when it resolves (webhook signed per Standard Webhooks, and e-mail)', () => {
  let project: TestProject;
  let ruleId: string;
  const key = `paused-${crypto.randomUUID()}`;
  let t0: number;

  beforeAll(async () => {
    project = await createProject();
    const made = await call('POST', `/v1/projects/${project.service_id}/alert-rules`, {
      token: project.owner_key,
      body: {
        kind: 'destination_paused',
        name: 'API paused',
        window_minutes: 1,
        cooldown_minutes: 60,
        channels: { email: ['ops@example.com'], webhook: { url: `${origin}/alert-hook/${key}` } },
      },
    });
    expect(made.status).toBe(200);
    ruleId = made.json.rule_id;
    await fetch(`${origin}/alert-secret/${key}`, { method: 'POST', body: made.json.webhook_secret });
    t0 = Date.now();
  });

  it('opens one incident and delivers one verified alert.opened webhook and one mail', async () => {
    await pauseDestination(project.service_id, t0);
    await runCron(t0);
    await runCron(t0 + 1000);
    const [incident] = await incidents(project);
    expect(incident).toMatchObject({ rule_id: ruleId, kind: 'destination_paused', state: 'open', observed: { value: 1, bound: 0 } });
    const hooks = await eventually(async () => {
      const got = await received(key);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(hooks[0]).toMatchObject({ verified: true, id: `msg_${incident.incident_id}_opened` });
    expect(hooks[0].payload).toMatchObject({
      type: 'alert.opened',
      data: { incident_id: incident.incident_id, rule_id: ruleId, state: 'open', service_id: project.service_id },
    });
    const mails = await eventually(async () => {
      const list = await outbox(project);
      expect(list).toHaveLength(1);
      return list;
    });
    expect(mails[0]).toMatchObject({ to: 'ops@example.com' });
    expect(mails[0].subject).toContain('Alert opened: API paused');
    await eventually(async () => expect((await ruleOf(project, ruleId)).last_delivery).toMatchObject({ event: 'alert.opened', ok: true, status: 200 }));
    expect((await ruleOf(project, ruleId)).state).toBe('firing');
  });

  it('the owner acknowledges the open incident', async () => {
    const [incident] = await incidents(project);
    const acked = await call('POST', `/v1/projects/${project.service_id}/incidents/${incident.incident_id}/acknowledge`, { token: project.owner_key });
    expect(acked.json).toMatchObject({ incident_id: incident.incident_id, state: 'acknowledged' });
    expect(acked.json.acknowledged_at).toEqual(expect.any(Number));
  });

  it('resolves once the condition stayed false for the window, and delivers alert.resolved', async () => {
    await resumeDestinations(project.service_id);
    await runCron(t0 + 2000);
    expect((await incidents(project))[0].state).toBe('acknowledged');
    await runCron(t0 + 2000 + MIN);
    const [incident] = await incidents(project);
    expect(incident.state).toBe('resolved');
    const hooks = await eventually(async () => {
      const got = await received(key);
      expect(got).toHaveLength(2);
      return got;
    });
    expect(hooks[1]).toMatchObject({
      verified: true,
      id: `msg_${incident.incident_id}_resolved`,
      payload: { type: 'alert.resolved', data: { state: 'resolved' } },
    });
    await eventually(async () =>
      expect((await outbox(project)).map((mail) => mail.subject)).toContain('[' + project.service_id + '] Alert resolved: API paused'),
    );
  });

  it('a second bad window inside the cooldown opens nothing', async () => {
    await pauseDestination(project.service_id, t0);
    await runCron(t0 + 3 * MIN);
    await runCron(t0 + 4 * MIN);
    expect(await incidents(project)).toHaveLength(1);
    expect((await ruleOf(project, ruleId)).state).toBe('ok');
    await resumeDestinations(project.service_id);
    expect(await received(key)).toHaveLength(2);
  });
});

describe('a receiver that is down never stops the evaluation: the failure shows on the rule and the incident', () => {
  it('records the failed webhook; the incident opens and consumptions go on', async () => {
    const project = await createProject();
    await registerTicket(project, 'hook', { actions: [] });
    const made = await call('POST', `/v1/projects/${project.service_id}/alert-rules`, {
      token: project.owner_key,
      body: { kind: 'destination_paused', channels: { webhook: { url: 'http://127.0.0.1:1/down' } } },
    });
    const now = Date.now();
    await pauseDestination(project.service_id, now);
    await runCron(now);
    const [incident] = await incidents(project);
    expect(incident.state).toBe('open');
    const rule = await eventually(async () => {
      const read = await ruleOf(project, made.json.rule_id);
      expect(read.last_delivery).not.toBeNull();
      return read;
    });
    expect(rule.last_delivery).toMatchObject({ event: 'alert.opened', ok: false, error: expect.stringContaining('webhook: unreachable') });
    expect((await incidents(project))[0].last_delivery).toMatchObject({ ok: false });
    expect(JSON.stringify(rule)).not.toContain('whsec_');
    const consumed = await call('POST', `/tp/${project.service_id}/hook`, { body: {} });
    expect(consumed.status).toBe(200);
    await resumeDestinations(project.service_id);
    await call('PATCH', `/v1/projects/${project.service_id}/alert-rules/${made.json.rule_id}`, { token: project.owner_key, body: { enabled: false } });
  });
});

describe('a rule keeps its newest incidents, and deleting it deletes them', () => {
  it('an opening drops the resolved incidents past the newest 100; a delete takes the rest', async () => {
    const project = await createProject();
    const made = await call('POST', `/v1/projects/${project.service_id}/alert-rules`, {
      token: project.owner_key,
      body: { kind: 'destination_paused', cooldown_minutes: 0, channels: { email: ['ops@example.com'] } },
    });
    const ruleId = made.json.rule_id;
    const old = Array.from({ length: 100 }, (_, n) =>
      env.DB.prepare(
        `INSERT INTO alert_incidents (service_id, incident_id, rule_id, state, opened_at, resolved_at, observed) VALUES (?, ?, ?, 'resolved', ?, ?, '{}')`,
      ).bind(project.service_id, `inc_old${String(n).padStart(13, '0')}`, ruleId, 1000 + n, 2000 + n),
    );
    await env.DB.batch(old);
    const now = Date.now();
    await pauseDestination(project.service_id, now);
    await runCron(now);
    await resumeDestinations(project.service_id);
    const count = async () =>
      (await env.DB.prepare('SELECT COUNT(*) AS n, MIN(opened_at) AS oldest FROM alert_incidents WHERE service_id = ?')
        .bind(project.service_id)
        .first<{ n: number; oldest: number }>())!;
    expect(await count()).toEqual({ n: 100, oldest: 1001 });
    expect((await incidents(project))[0]).toMatchObject({ rule_id: ruleId, state: 'open' });
    await call('DELETE', `/v1/projects/${project.service_id}/alert-rules/${ruleId}`, { token: project.owner_key });
    expect((await count()).n).toBe(0);
  });
});

describe('a rule whose read fails is skipped for the minute; the others are evaluated', () => {
  it('a rule over a table that cannot be read leaves the paused-destination rule to open its incident', async () => {
    const project = await createProject();
    await registerTicket(project, 'hook', { actions: [] });
    // The point of the ticket's scope holds text that is not JSON: the rule reading it cannot be judged.
    await env.DB.prepare(`INSERT INTO metric_points (service_id, scope, grain, start, counts) VALUES (?, 'ticket:hook', 'm', ?, 'not json')`)
      .bind(project.service_id, Math.floor(Date.now() / MIN) * MIN)
      .run();
    const make = (body: Record<string, unknown>) =>
      call('POST', `/v1/projects/${project.service_id}/alert-rules`, { token: project.owner_key, body: { ...body, channels: { email: ['ops@example.com'] } } });
    const broken = await make({ kind: 'dead_letter', ticket_id: 'hook' });
    const paused = await make({ kind: 'destination_paused' });
    const now = Date.now();
    await pauseDestination(project.service_id, now);
    await runCron(now);
    await resumeDestinations(project.service_id);
    const list = await incidents(project);
    expect(list.map((incident: { rule_id: string }) => incident.rule_id)).toEqual([paused.json.rule_id]);
    await call('DELETE', `/v1/projects/${project.service_id}/alert-rules/${broken.json.rule_id}`, { token: project.owner_key });
    await call('DELETE', `/v1/projects/${project.service_id}/alert-rules/${paused.json.rule_id}`, { token: project.owner_key });
  });
});
