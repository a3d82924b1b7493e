/**
 * condition.preset at registration (extension): a known preset expands into the stored condition; an
 * unknown id, a missing Secret Key name or token, or a signed handshake without a signature is a clear
 * INVALID_PARAMETER naming the field, never a 500, and no message repeats a token. Token presets
 * (GitLab, Postmark) compare the header their provider documents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { presetSignature } from '../../schemas/signature-presets';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';

let project: TestProject;
const register = (id: string, condition: Record<string, unknown>) =>
  call('PUT', `/v1/projects/${project.service_id}/tickets/${id}`, { token: project.owner_key, body: { condition, actions: [] } });
const stored = async (id: string) => (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${id}`, { token: project.owner_key })).json.list[0];

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'stripe', 'whsec_registration_test');
});

describe('condition.preset', () => {
  it('a known preset is stored as its signature with the Secret Key name (and its handshake)', async () => {
    await registerTicket(project, 'from-preset', { condition: { preset: { id: 'stripe', secretName: 'stripe' } }, actions: [] });
    const ticket = await stored('from-preset');
    expect(ticket.condition.signature).toEqual(presetSignature('stripe', 'stripe'));
    expect(ticket.condition).not.toHaveProperty('preset');
  });

  it('an unknown preset id is INVALID_PARAMETER naming the id and the known ones', async () => {
    const res = await register('bad-id', { preset: { id: 'stripe-v9', secretName: 'stripe' } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_PARAMETER');
    expect(res.json.message).toContain('no signature preset "stripe-v9"');
    expect(res.json.message).toContain('stripe, github');
  });

  it('a signature preset without secretName says what the key must hold', async () => {
    const res = await register('no-key', { preset: { id: 'github' } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/secretName.*is required: the name of the Secret Key that holds the webhook's secret/);
  });

  it('a Secret Key that does not exist is refused as for a written signature', async () => {
    const res = await register('missing-key', { preset: { id: 'github', secretName: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('no Secret Key named "nope"');
  });

  it('preset and signature together are refused', async () => {
    const res = await register('both', { preset: { id: 'stripe', secretName: 'stripe' }, signature: presetSignature('github', 'stripe') });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('not both');
  });

  it('a signed handshake without a signature is refused; a handshake on a GET ticket too', async () => {
    const unsigned = await register('hs-unsigned', { handshake: 'zoom' });
    expect(unsigned.status).toBe(400);
    expect(unsigned.json.message).toContain('answered only after its signature verifies');
    const get = await register('hs-get', { method: 'GET', handshake: 'msgraph' });
    expect(get.status).toBe(400);
    const unknown = await register('hs-unknown', { handshake: 'teams' });
    expect(unknown.status).toBe(400);
  });
});

describe('token presets', () => {
  it('gitlab: X-Gitlab-Token must equal the token; a token preset without a token is refused without echoing anything', async () => {
    await registerTicket(project, 'gitlab-hook', { condition: { preset: { id: 'gitlab', token: 'glwht-3f9a1c' } }, actions: [] });
    // GitLab's push event delivery (docs: "Webhook events", push events) with its headers.
    const body = JSON.stringify({ object_kind: 'push', event_name: 'push', ref: 'refs/heads/main', project: { path_with_namespace: 'group/project' } });
    const send = (token: string) => call('POST', `/tp/${project.service_id}/gitlab-hook`, { raw: body, headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': token } });
    expect((await send('glwht-3f9a1c')).status).toBe(200);
    const wrong = await send('glwht-guess');
    expect(wrong.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'headers' } });
    expect(wrong.text).not.toContain('glwht-3f9a1c');
    const missing = await register('gitlab-no-token', { preset: { id: 'gitlab' } });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain('token');
  });

  it('postmark: the basic-auth credentials of the webhook URL must match', async () => {
    const credentials = `Basic ${btoa('postmark:s3cret-hook')}`;
    await registerTicket(project, 'postmark-hook', { condition: { preset: { id: 'postmark', token: credentials } }, actions: [] });
    // Postmark's Delivery webhook (docs: "Delivery webhook").
    const body = JSON.stringify({ RecordType: 'Delivery', MessageID: '00000000-0000-0000-0000-000000000000', Recipient: 'john@example.com', DeliveredAt: '2025-10-09T08:53:20Z' });
    const send = (authorization: string) => call('POST', `/tp/${project.service_id}/postmark-hook`, { raw: body, headers: { 'content-type': 'application/json', authorization } });
    expect((await send(credentials)).status).toBe(200);
    expect((await send(`Basic ${btoa('postmark:wrong')}`)).json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'headers' } });
  });
});
