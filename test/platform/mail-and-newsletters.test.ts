import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { newsletterGroupKey } from '../../src/platform/newsletter-groups';
import { newsletterExists, templateExists } from '../../src/platform/resources';
import { call, newProject } from './worker-api';

describe('mail templates', () => {
  it('stores, lists, reads and deletes a mail template', async () => {
    const project = await newProject();
    const path = `/v1/projects/${project.service_id}/mail-templates`;
    const put = await call('PUT', `${path}/welcome`, { token: project.owner_key, body: { subject: 'Hi ${name}', html: '<p>Hello</p>' } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ template_id: 'welcome', subject: 'Hi ${name}', html: '<p>Hello</p>', text: '' });
    expect(await templateExists(env, project.service_id, 'welcome')).toBe(true);
    const list = await call('GET', path, { token: project.owner_key });
    expect(list.json.list.map((t: { template_id: string }) => t.template_id)).toEqual(['welcome']);
    expect((await call('GET', `${path}/welcome`, { token: project.owner_key })).json.subject).toBe('Hi ${name}');
    expect((await call('DELETE', `${path}/welcome`, { token: project.owner_key })).json).toEqual({ deleted: true });
    expect(await templateExists(env, project.service_id, 'welcome')).toBe(false);
    const gone = await call('DELETE', `${path}/welcome`, { token: project.owner_key });
    expect([gone.status, gone.json.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('replaces a template on PUT, keeping its created time', async () => {
    const project = await newProject();
    const path = `/v1/projects/${project.service_id}/mail-templates/t1`;
    const first = await call('PUT', path, { token: project.owner_key, body: { subject: 'a', text: 'x' } });
    const second = await call('PUT', path, { token: project.owner_key, body: { subject: 'b' } });
    expect(second.json).toMatchObject({ subject: 'b', text: '', created: first.json.created });
  });

  it('refuses a template without a subject, with unknown fields or wrong types (INVALID_PARAMETER naming the field)', async () => {
    const project = await newProject();
    for (const [body, field] of [
      [{ html: '<p/>' }, 'subject'],
      [{ subject: '' }, 'subject'],
      [{ subject: 's', html: 5 }, 'html'],
      [{ subject: 's', body: 'x' }, 'body'],
    ] as const) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/mail-templates/t1`, { token: project.owner_key, body });
      expect([field, res.status, res.json.code]).toEqual([field, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain(field);
    }
    expect(await templateExists(env, project.service_id, 't1')).toBe(false);
  });

  it('refuses a template id outside ^[A-Za-z0-9_-]{1,64}$', async () => {
    const project = await newProject();
    const res = await call('PUT', `/v1/projects/${project.service_id}/mail-templates/a.b`, { token: project.owner_key, body: { subject: 's' } });
    expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(res.json.message).toContain('template_id');
  });
});

describe('newsletter groups', () => {
  it("accepts 'public', 'authorized', numbers 2..99 and names; refuses other numbers", () => {
    expect(newsletterGroupKey('public')).toBe('public');
    expect(newsletterGroupKey('authorized')).toBe('authorized');
    expect(newsletterGroupKey(2)).toBe('2');
    expect(newsletterGroupKey('99')).toBe('99');
    expect(newsletterGroupKey('vip-members_2')).toBe('vip-members_2');
    for (const bad of [0, 1, 100, 2.5, '1', '100', '07', '', 'a b', 'x'.repeat(65)]) expect(newsletterGroupKey(bad)).toBeNull();
  });
});

describe('newsletters', () => {
  it('stores newsletters per group, lists them (optionally by group) and deletes them', async () => {
    const project = await newProject();
    const base = `/v1/projects/${project.service_id}/newsletters`;
    const token = project.owner_key;
    expect((await call('PUT', `${base}/public/spring`, { token, body: { subject: 'Spring', html: '<b>new</b>' } })).status).toBe(200);
    const numeric = await call('PUT', `${base}/5/m1`, { token, body: { subject: 'For group 5', text: 'hi' } });
    expect(numeric.json).toMatchObject({ group: 5, message_id: 'm1', subject: 'For group 5', text: 'hi', html: '' });
    await call('PUT', `${base}/vip/m1`, { token, body: { subject: 'VIP' } });

    const all = await call('GET', base, { token });
    expect(all.json.list.map((n: { group: unknown; message_id: string }) => [n.group, n.message_id])).toEqual([
      [5, 'm1'],
      ['public', 'spring'],
      ['vip', 'm1'],
    ]);
    const five = await call('GET', `${base}?group=5`, { token });
    expect(five.json.list).toHaveLength(1);
    expect((await call('GET', `${base}/vip/m1`, { token })).json.subject).toBe('VIP');

    expect(await newsletterExists(env, project.service_id, 5, 'm1')).toBe(true);
    expect(await newsletterExists(env, project.service_id, '5', 'm1')).toBe(true);
    expect(await newsletterExists(env, project.service_id, 'public', 'm1')).toBe(false);
    expect(await newsletterExists(env, project.service_id, 1, 'm1')).toBe(false);

    expect((await call('DELETE', `${base}/5/m1`, { token })).json).toEqual({ deleted: true });
    expect(await newsletterExists(env, project.service_id, 5, 'm1')).toBe(false);
    const gone = await call('DELETE', `${base}/5/m1`, { token });
    expect([gone.status, gone.json.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses an invalid group in the path or the listing filter with INVALID_PARAMETER naming "group"', async () => {
    const project = await newProject();
    const base = `/v1/projects/${project.service_id}/newsletters`;
    for (const [method, path] of [
      ['PUT', `${base}/1/m`],
      ['PUT', `${base}/100/m`],
      ['PUT', `${base}/a.b/m`],
      ['GET', `${base}?group=0`],
    ]) {
      const res = await call(method, path, { token: project.owner_key, body: method === 'PUT' ? { subject: 's' } : undefined });
      expect([path, res.status, res.json.code]).toEqual([path, 400, 'INVALID_PARAMETER']);
      expect(res.json.message).toContain('"group"');
    }
  });

  it('refuses a newsletter body with a missing subject or an unknown field, storing nothing', async () => {
    const project = await newProject();
    for (const body of [{}, { subject: 's', to: 'x' }]) {
      const res = await call('PUT', `/v1/projects/${project.service_id}/newsletters/public/m`, { token: project.owner_key, body });
      expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
    }
    expect(await newsletterExists(env, project.service_id, 'public', 'm')).toBe(false);
  });
});
