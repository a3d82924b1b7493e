import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alertRuleAnswer, alertRuleCreatedAnswer } from '../../schemas/alerts';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';

let project: TestProject;
const rules = () => `/v1/projects/${project.service_id}/alert-rules`;
const create = (body: Record<string, unknown>) => call('POST', rules(), { token: project.owner_key, body });
const WEBHOOK = { webhook: { url: 'https://alerts.example.com/hook' } };

beforeAll(async () => {
  project = await createProject();
  await registerTicket(project, 'hook', { actions: [] });
});

afterEach(() => {
  env.ALLOW_PRIVATE_DESTINATIONS = 'true';
});

describe('alert rules: an owner makes them per project or per ticket', () => {
  it('a rule with a webhook answers its whsec_ secret once; the owner reads it again and rotates it', async () => {
    const made = await create({ kind: 'failure_rate', threshold_percent: 20, channels: WEBHOOK });
    expect(made.status).toBe(200);
    const rule = alertRuleCreatedAnswer.parse(made.json);
    expect(rule).toMatchObject({
      kind: 'failure_rate',
      ticket_id: null,
      threshold_percent: 20,
      min_volume: 10,
      window_minutes: 5,
      cooldown_minutes: 30,
      state: 'ok',
    });
    expect(rule.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(atob(rule.webhook_secret!.slice('whsec_'.length))).toHaveLength(24);

    const read = await call('GET', `${rules()}/${rule.rule_id}`, { token: project.owner_key });
    expect(alertRuleAnswer.strict().safeParse(read.json).success).toBe(true);
    expect(read.text).not.toContain(rule.webhook_secret);

    const secret = await call('GET', `${rules()}/${rule.rule_id}/webhook-secret`, { token: project.owner_key });
    expect(secret.json).toEqual({ webhook_secret: rule.webhook_secret });
    const rotated = await call('POST', `${rules()}/${rule.rule_id}/webhook-secret/rotate`, { token: project.owner_key });
    expect(rotated.json.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.json.webhook_secret).not.toBe(rule.webhook_secret);
    const again = await call('GET', `${rules()}/${rule.rule_id}/webhook-secret`, { token: project.owner_key });
    expect(again.json).toEqual(rotated.json);
  });

  it('the secret is stored encrypted, never as written', async () => {
    const made = await create({ kind: 'dead_letter', channels: WEBHOOK, enabled: false });
    const row = await env.DB.prepare('SELECT webhook_secret_enc FROM alert_rules WHERE rule_id = ?')
      .bind(made.json.rule_id)
      .first<{ webhook_secret_enc: string }>();
    expect(row?.webhook_secret_enc).toMatch(/^v1\./);
    expect(row?.webhook_secret_enc).not.toContain(made.json.webhook_secret.slice(6));
  });

  it('a rule of a ticket names it; a ticket that does not exist is TICKET_NOT_FOUND', async () => {
    const made = await create({ kind: 'failure_streak', failures: 3, ticket_id: 'hook', channels: { email: ['ops@example.com'] } });
    expect(made.json).toMatchObject({ ticket_id: 'hook', failures: 3, webhook_secret: null, channels: { email: ['ops@example.com'], webhook: null } });
    const missing = await create({ kind: 'failure_streak', failures: 3, ticket_id: 'nope', channels: { email: ['ops@example.com'] } });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('TICKET_NOT_FOUND');
    const listed = await call('GET', `${rules()}?ticket_id=hook`, { token: project.owner_key });
    expect(listed.json.list.map((rule: { rule_id: string }) => rule.rule_id)).toEqual([made.json.rule_id]);
  });

  it('a webhook on a private address is refused at save, naming the field', async () => {
    env.ALLOW_PRIVATE_DESTINATIONS = 'false';
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.5/hook', 'http://localhost/hook', 'http://[::1]/hook']) {
      const refused = await create({ kind: 'dead_letter', channels: { webhook: { url } } });
      expect(refused.status, url).toBe(400);
      expect(refused.json, url).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'channels.webhook.url' } });
    }
    const made = await create({ kind: 'dead_letter', channels: WEBHOOK, enabled: false });
    const changed = await call('PATCH', `${rules()}/${made.json.rule_id}`, {
      token: project.owner_key,
      body: { channels: { webhook: { url: 'http://192.168.1.1/' } } },
    });
    expect(changed.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'channels.webhook.url' } });
  });

  it('a change keeps what it does not name; removing the webhook drops its secret; a new webhook gets a new one', async () => {
    const made = await create({ kind: 'p95_latency', p95_ms: 500, channels: { email: ['a@example.com'], ...WEBHOOK } });
    const id = made.json.rule_id;
    const changed = await call('PATCH', `${rules()}/${id}`, { token: project.owner_key, body: { p95_ms: 800, cooldown_minutes: 0 } });
    expect(changed.json).toMatchObject({
      p95_ms: 800,
      cooldown_minutes: 0,
      window_minutes: 5,
      channels: { email: ['a@example.com'], webhook: WEBHOOK.webhook },
      webhook_secret: null,
    });
    const dropped = await call('PATCH', `${rules()}/${id}`, { token: project.owner_key, body: { channels: { webhook: null } } });
    expect(dropped.json.channels).toEqual({ email: ['a@example.com'], webhook: null });
    expect((await call('GET', `${rules()}/${id}/webhook-secret`, { token: project.owner_key })).status).toBe(404);
    const back = await call('PATCH', `${rules()}/${id}`, { token: project.owner_key, body: { channels: WEBHOOK } });
    expect(back.json.webhook_secret).toMatch(/^whsec_/);
    const nothingLeft = await call('PATCH', `${rules()}/${id}`, { token: project.owner_key, body: { channels: { email: ['a@example.com'], webhook: null } } });
    expect(nothingLeft.status).toBe(200);
    const none = await call('PATCH', `${rules()}/${id}`, { token: project.owner_key, body: { channels: { webhook: null } } });
    expect(none.status).toBe(200);
  });

  it('a rule needs a channel and its kind’s bound, and takes no other kind’s bound', async () => {
    expect((await create({ kind: 'dead_letter' })).json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'channels' } });
    expect((await create({ kind: 'failure_rate', channels: WEBHOOK })).json).toMatchObject({
      code: 'INVALID_PARAMETER',
      detail: { field: 'threshold_percent' },
    });
    expect((await create({ kind: 'dead_letter', failures: 2, channels: WEBHOOK })).json).toMatchObject({
      code: 'INVALID_PARAMETER',
      detail: { field: 'failures' },
    });
  });

  it('a deleted rule is gone', async () => {
    const made = await create({ kind: 'flood_refused', channels: WEBHOOK, enabled: false });
    expect((await call('DELETE', `${rules()}/${made.json.rule_id}`, { token: project.owner_key })).json).toEqual({ deleted: true });
    expect((await call('GET', `${rules()}/${made.json.rule_id}`, { token: project.owner_key })).status).toBe(404);
    expect((await call('DELETE', `${rules()}/${made.json.rule_id}`, { token: project.owner_key })).status).toBe(404);
  });
});
