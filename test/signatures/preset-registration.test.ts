/**
 * condition.preset at registration (extension): a known preset expands into the stored condition; an
 * unknown id, a missing Secret Key name, or a signed handshake without a signature is a clear
 * INVALID_PARAMETER naming the field, never a 500. Token presets (GitLab, Postmark), which name a
 * Secret Key too, are test/signatures/token-presets.test.ts's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { presetSignature } from '../../schemas/signature-presets';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';

let project: TestProject;
const register = (id: string, condition: Record<string, unknown>) =>
  call('PUT', `/v1/projects/${project.service_id}/tickets/${id}`, { token: project.owner_key, body: { condition, actions: [] } });
const stored = async (id: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${id}`, { token: project.owner_key })).json.list[0];

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
