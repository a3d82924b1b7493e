/**
 * Alerts end to end from real consumptions: they fail, the ticket's object pushes its metrics to D1 (its
 * alarm's jobs, made due here), the minute's cron evaluates the rules, and the incident's notifications reach
 * a loopback receiver that verifies them with the `standardwebhooks` library, and the mail outbox.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { alertIncidentAnswer } from '../../schemas/alerts';
import { registersForEachTest, runJobs } from '../actions/run-support';
import { call, createProject, type TestProject } from '../helpers/api';
import { MIN, eventually, runCron } from './support';

const origin = inject('loopbackOrigin');
let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const register = registersForEachTest(() => project);
/** A ticket whose consumption succeeds when the body says ok, and fails (CONDITION_FAILED) otherwise. */
const GATED = { condition: { body: [{ key: 'ok', operator: '=', value: 'yes' }] }, actions: [] };
const consume = (ticketId: string, ok: boolean) => call('POST', `/tp/${project.service_id}/${ticketId}`, { body: { ok: ok ? 'yes' : 'no' } });

/** The ticket's object pushes what it counted to D1 (its alarm's metric jobs, run now). */
async function push(ticketId: string): Promise<void> {
  await runJobs(project, ticketId, 'flush-metrics');
  await runJobs(project, ticketId, 'report-metrics');
}

const received = async (key: string) => (await (await fetch(`${origin}/alert-hook-state/${key}`)).json()) as { verified: boolean; id: string; payload: any }[];
const incidentsOf = async (ruleId: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/incidents?rule_id=${ruleId}`, { token: project.owner_key })).json.list.map((item: unknown) =>
    alertIncidentAnswer.parse(item),
  );

async function makeRule(body: Record<string, unknown>, key: string): Promise<string> {
  const made = await call('POST', `/v1/projects/${project.service_id}/alert-rules`, {
    token: project.owner_key,
    body: { ...body, channels: { email: ['oncall@example.com'], webhook: { url: `${origin}/alert-hook/${key}` } } },
  });
  expect(made.status, made.text).toBe(200);
  await fetch(`${origin}/alert-secret/${key}`, { method: 'POST', body: made.json.webhook_secret });
  return made.json.rule_id;
}

const disable = (ruleId: string) =>
  call('PATCH', `/v1/projects/${project.service_id}/alert-rules/${ruleId}`, { token: project.owner_key, body: { enabled: false } });

describe('failures in a row: one incident, notified when it opens and when it resolves, none again within the cooldown', () => {
  it('opens on the third failure in a row, resolves after a success and a false window, and a second bad run inside the cooldown opens nothing', async () => {
    const key = `streak-${crypto.randomUUID()}`;
    await register('streaky', GATED);
    const ruleId = await makeRule({ kind: 'failure_streak', failures: 3, ticket_id: 'streaky', window_minutes: 1, cooldown_minutes: 60 }, key);
    for (let n = 0; n < 3; n++) expect((await consume('streaky', false)).status).toBe(400);
    await push('streaky');
    const t0 = Date.now();
    await runCron(t0);
    const [incident] = await incidentsOf(ruleId);
    expect(incident).toMatchObject({ state: 'open', kind: 'failure_streak', ticket_id: 'streaky', observed: { value: 3, bound: 3 } });
    const opened = await eventually(async () => {
      const got = await received(key);
      expect(got).toHaveLength(1);
      return got[0];
    });
    expect(opened).toMatchObject({ verified: true, id: `msg_${incident.incident_id}_opened` });
    expect(opened.payload).toMatchObject({ type: 'alert.opened', data: { incident_id: incident.incident_id, kind: 'failure_streak', ticket_id: 'streaky' } });
    await eventually(async () => {
      const mails = (await call('GET', `/v1/projects/${project.service_id}/mail-outbox`, { token: project.owner_key })).json.list;
      expect(mails.filter((mail: { subject: string }) => mail.subject.includes('Alert opened'))).toHaveLength(1);
    });

    expect((await consume('streaky', true)).status).toBe(200);
    await push('streaky');
    await runCron(t0 + 1000);
    expect((await incidentsOf(ruleId))[0].state).toBe('open');
    await runCron(t0 + 1000 + MIN);
    expect((await incidentsOf(ruleId))[0].state).toBe('resolved');
    const resolved = await eventually(async () => {
      const got = await received(key);
      expect(got).toHaveLength(2);
      return got[1];
    });
    expect(resolved).toMatchObject({ verified: true, id: `msg_${incident.incident_id}_resolved`, payload: { type: 'alert.resolved' } });

    for (let n = 0; n < 3; n++) await consume('streaky', false);
    await push('streaky');
    await runCron(t0 + 2 * MIN);
    expect(await incidentsOf(ruleId)).toHaveLength(1);
    expect(await received(key)).toHaveLength(2);
    await disable(ruleId);
  });
});

describe('failure rate over a percentage with a minimum volume, from the project metrics', () => {
  it('opens once the window holds enough consumptions over the bound, and resolves once the window is clean', async () => {
    // A project of its own: the project's scope counts every ticket of it.
    project = await createProject();
    const key = `rate-${crypto.randomUUID()}`;
    await register('rated', GATED);
    // Two minutes: the consumptions and the evaluation may fall on either side of a minute's end.
    const ruleId = await makeRule({ kind: 'failure_rate', threshold_percent: 50, min_volume: 4, window_minutes: 2, cooldown_minutes: 0 }, key);
    for (let n = 0; n < 3; n++) await consume('rated', false);
    await push('rated');
    const t0 = Date.now();
    await runCron(t0);
    expect(await incidentsOf(ruleId)).toEqual([]);
    await consume('rated', true);
    await push('rated');
    await runCron(t0 + 1000);
    const [incident] = await incidentsOf(ruleId);
    expect(incident).toMatchObject({ state: 'open', ticket_id: null, observed: { value: 75, bound: 50, consumptions: 4, failed: 3 } });
    await runCron(t0 + 2 * MIN);
    await runCron(t0 + 4 * MIN - 1);
    expect((await incidentsOf(ruleId))[0].state).toBe('open');
    await runCron(t0 + 4 * MIN);
    expect((await incidentsOf(ruleId))[0].state).toBe('resolved');
    await eventually(async () =>
      expect((await received(key)).map((hook) => [hook.verified, hook.payload?.type])).toEqual([
        [true, 'alert.opened'],
        [true, 'alert.resolved'],
      ]),
    );
    await disable(ruleId);
  });
});

describe('p95 latency over a bound', () => {
  it("opens when the window's consumptions took longer than the bound at the 95th percentile", async () => {
    const key = `slow-${crypto.randomUUID()}`;
    await register('slow', { actions: [{ act: 'req', exe: { url: `${origin}/delay/300/${key}` } }] });
    const ruleId = await makeRule({ kind: 'p95_latency', p95_ms: 200, ticket_id: 'slow', window_minutes: 2 }, key);
    expect((await call('POST', `/tp/${project.service_id}/slow`, { body: {} })).status).toBe(200);
    await push('slow');
    await runCron(Date.now());
    const [incident] = await incidentsOf(ruleId);
    expect(incident.state).toBe('open');
    expect(incident.observed.value as number).toBeGreaterThan(200);
    await disable(ruleId);
  });
});
