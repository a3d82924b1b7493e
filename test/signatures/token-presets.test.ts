/**
 * Token presets (GitLab, Postmark) compare a Secret Key, in constant time (the `token` algorithm, an
 * extension of spec 2.2.1): the header their provider documents verifies when it holds the Secret
 * Key's value; a wrong or missing one is CONDITION_FAILED { field: 'signature' }; the token never
 * shows in the ticket listing, an error, the log or the diagnosis. Neither provider's npm library
 * checks a delivery (@gitbeaker/* calls GitLab's API, `postmark` sends mail), so the requests carry
 * the header format each documents. A ticket registered before, with the token in a headers row,
 * works as it did (plain condition data). Spec-defined HMAC refusals are unchanged (the `raw`
 * encoding is refused on an HMAC signature).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeSignature, type SignatureInput } from '../../schemas/signature';
import { presetSignature } from '../../schemas/signature-presets';
import type { SignatureTrace } from '../../schemas/signature';
import { verifySignature } from '../../src/engine/signature';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { flushLogs, getTickets } from '../logs/log-helpers';
import { NOW_MS, signedRequest } from './helpers';

// The values an owner stores: GitLab's secret token as typed in its webhook form, Postmark's URL credentials.
const GITLAB_TOKEN = 'glwht-3f9a1c7e-secret-token';
const POSTMARK_CREDENTIALS = 'postmark-hook:s3cret-hook-pass';

// GitLab's push event (https://docs.gitlab.com/user/project/integrations/webhook_events/#push-events) with
// the headers GitLab sends: X-Gitlab-Token is the secret token as written
// (https://docs.gitlab.com/user/project/integrations/webhooks/#validate-payloads-by-using-a-secret-token).
const GITLAB_PUSH = JSON.stringify({
  object_kind: 'push',
  event_name: 'push',
  ref: 'refs/heads/main',
  checkout_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  project: { path_with_namespace: 'group/project' },
});
const gitlabHeaders = (token: string) => ({
  'content-type': 'application/json',
  'x-gitlab-event': 'Push Hook',
  'x-gitlab-instance': 'https://gitlab.com',
  'x-gitlab-token': token,
});
// Postmark's Delivery webhook (https://postmarkapp.com/developer/webhooks/delivery-webhook); the URL's
// user:password arrive as HTTP basic auth (https://postmarkapp.com/developer/webhooks/webhooks-overview#protecting-your-webhook).
const POSTMARK_DELIVERY = JSON.stringify({
  RecordType: 'Delivery',
  ServerID: 23,
  MessageStream: 'outbound',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  Recipient: 'john@example.com',
  DeliveredAt: '2025-10-09T08:53:20Z',
});
const basic = (credentials: string) => `Basic ${btoa(credentials)}`;

describe('the token algorithm (engine)', () => {
  const gitlab = presetSignature('gitlab', 'gitlab_token')!;
  const postmark = presetSignature('postmark', 'postmark_auth')!;

  it('gitlab: X-Gitlab-Token equal to the Secret Key verifies; another token, a prefix of it, or no header does not', async () => {
    expect(await verifySignature(gitlab, signedRequest(GITLAB_PUSH, gitlabHeaders(GITLAB_TOKEN)), GITLAB_TOKEN, NOW_MS)).toBe(true);
    for (const wrong of ['glwht-guess', GITLAB_TOKEN.slice(0, -1), `${GITLAB_TOKEN}x`, GITLAB_TOKEN.toUpperCase()]) {
      expect(await verifySignature(gitlab, signedRequest(GITLAB_PUSH, gitlabHeaders(wrong)), GITLAB_TOKEN, NOW_MS)).toBe(false);
    }
    expect(await verifySignature(gitlab, signedRequest(GITLAB_PUSH, { 'content-type': 'application/json' }), GITLAB_TOKEN, NOW_MS)).toBe(false);
  });

  it('gitlab: the body is not what is checked (GitLab signs nothing): any body with the right token verifies', async () => {
    expect(await verifySignature(gitlab, signedRequest('{"object_kind":"tag_push"}', gitlabHeaders(GITLAB_TOKEN)), GITLAB_TOKEN, NOW_MS)).toBe(true);
  });

  it('postmark: Authorization: Basic of the stored user:password verifies; other credentials or another scheme do not', async () => {
    expect(
      await verifySignature(postmark, signedRequest(POSTMARK_DELIVERY, { authorization: basic(POSTMARK_CREDENTIALS) }), POSTMARK_CREDENTIALS, NOW_MS),
    ).toBe(true);
    expect(
      await verifySignature(postmark, signedRequest(POSTMARK_DELIVERY, { authorization: basic('postmark-hook:wrong') }), POSTMARK_CREDENTIALS, NOW_MS),
    ).toBe(false);
    expect(
      await verifySignature(
        postmark,
        signedRequest(POSTMARK_DELIVERY, { authorization: `Bearer ${btoa(POSTMARK_CREDENTIALS)}` }),
        POSTMARK_CREDENTIALS,
        NOW_MS,
      ),
    ).toBe(false);
    expect(await verifySignature(postmark, signedRequest(POSTMARK_DELIVERY, {}), POSTMARK_CREDENTIALS, NOW_MS)).toBe(false);
  });

  it('the trace of a token check shows neither the token sent nor the Secret Key', async () => {
    for (const sent of [GITLAB_TOKEN, 'glwht-guess']) {
      const trace: SignatureTrace = {};
      await verifySignature(gitlab, signedRequest(GITLAB_PUSH, gitlabHeaders(sent)), GITLAB_TOKEN, NOW_MS, new Map(), trace);
      const text = JSON.stringify(trace);
      expect(text).not.toContain(GITLAB_TOKEN);
      expect(text).not.toContain('glwht');
      expect(trace.items).toEqual(['…']);
    }
  });

  it('a Secret Key that does not decode (an empty one) never verifies', async () => {
    expect(await verifySignature(gitlab, signedRequest(GITLAB_PUSH, gitlabHeaders('')), '', NOW_MS)).toBe(false);
  });
});

describe('the token algorithm at registration', () => {
  const base: SignatureInput = { secretName: 'gitlab_token', header: 'X-Gitlab-Token', algorithm: 'token', encoding: 'raw' };
  const refusal = (input: SignatureInput) => {
    try {
      normalizeSignature(input, 'condition.signature', []);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('a token signature takes no signed template, timestamp or body digest (nothing is signed), nor a body field', () => {
    expect(refusal({ ...base, timestamp: '${header:X-Time}' })).toMatch(/condition\.signature\.timestamp.*does not apply to algorithm token/);
    expect(refusal({ ...base, signed: '${header:X-Gitlab-Event}' })).toMatch(/condition\.signature\.signed.*does not apply to algorithm token/);
    expect(refusal({ ...base, body_sha256: '${query:h}' })).toMatch(/condition\.signature\.body_sha256/);
    // A token in the body would be kept in the log with it.
    expect(refusal({ secretName: 'k', field: 'token', algorithm: 'token', encoding: 'raw' })).toMatch(
      /condition\.signature\.field.*does not apply to algorithm token/,
    );
  });

  it('the raw encoding is refused on an HMAC signature (a signature is hex or base64, as the spec says)', () => {
    expect(refusal({ secretName: 'k', header: 'X-Hub-Signature-256', encoding: 'raw' })).toMatch(
      /condition\.signature\.encoding.*raw applies only to algorithm token/,
    );
  });

  it('each token preset registers as a ticket condition unchanged (its stored form)', () => {
    for (const id of ['gitlab', 'postmark']) expect(normalizeSignature(presetSignature(id, 'k')!, 'condition.signature', [])).toEqual(presetSignature(id, 'k'));
  });
});

describe('token presets through the Worker', () => {
  let project: TestProject;
  const consume = (ticketId: string, body: string, headers: Record<string, string>) =>
    call('POST', `/tp/${project.service_id}/${ticketId}`, { raw: body, headers });
  const listed = async (ticketId: string) =>
    (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticketId}`, { token: project.owner_key })).text;
  const logText = async (ticketId: string) => {
    await flushLogs(project.service_id, ticketId);
    return (await getTickets(project, { ticket_id: `#${ticketId}#` })).text;
  };

  beforeAll(async () => {
    project = await createProject();
    await putSecret(project, 'gitlab_token', GITLAB_TOKEN);
    await putSecret(project, 'postmark_auth', POSTMARK_CREDENTIALS);
    await registerTicket(project, 'gitlab-hook', { count: 10, condition: { preset: { id: 'gitlab', secretName: 'gitlab_token' } }, actions: [] });
    await registerTicket(project, 'postmark-hook', { count: 10, condition: { preset: { id: 'postmark', secretName: 'postmark_auth' } }, actions: [] });
  });

  it('gitlab: the ticket registered from the preset names the Secret Key; its listing never holds the token', async () => {
    const ticket = JSON.parse(await listed('gitlab-hook')).list[0];
    expect(ticket.condition.signature).toEqual(presetSignature('gitlab', 'gitlab_token'));
    expect(ticket.condition).not.toHaveProperty('headers');
    expect(await listed('gitlab-hook')).not.toContain(GITLAB_TOKEN);
  });

  it('gitlab: a push with the real X-Gitlab-Token is consumed', async () => {
    const res = await consume('gitlab-hook', GITLAB_PUSH, gitlabHeaders(GITLAB_TOKEN));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
  });

  it('gitlab: a wrong or missing token is CONDITION_FAILED { field: signature }, and the answer holds no token', async () => {
    const wrong = await consume('gitlab-hook', GITLAB_PUSH, gitlabHeaders('glwht-guess'));
    const missing = await consume('gitlab-hook', GITLAB_PUSH, { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook' });
    for (const res of [wrong, missing]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
      expect(res.text).not.toContain(GITLAB_TOKEN);
    }
  });

  it('gitlab: the log keeps the request with X-Gitlab-Token redacted, and the diagnosis of a failed one shows no token', async () => {
    const text = await logText('gitlab-hook');
    expect(text).toContain('object_kind');
    expect(text).not.toContain(GITLAB_TOKEN);
    expect(text).not.toContain('glwht-guess');
    const rows = JSON.parse(text).list as Record<string, any>[];
    // The delivery with the wrong token: its header is kept, as [redacted].
    const failed = rows.find((row) => row.failed && row.request?.headers?.['x-gitlab-token'] !== undefined);
    expect(failed!.request.headers['x-gitlab-token']).toBe('[redacted]');
    expect(rows.find((row) => !row.failed)!.request.headers['x-gitlab-token']).toBe('[redacted]');
    const diagnosis = await call('POST', `/v1/projects/${project.service_id}/tickets/gitlab-hook/log/${failed!.consume_id}/signature`, {
      token: project.owner_key,
    });
    expect(diagnosis.status).toBe(200);
    expect(diagnosis.json.signature).toMatchObject({ verified: false, trace: { source: { header: 'X-Gitlab-Token', found: true } } });
    expect(diagnosis.text).not.toContain(GITLAB_TOKEN);
    expect(diagnosis.text).not.toContain('glwht-guess');
  });

  it('postmark: the basic-auth credentials of the webhook URL verify; other credentials are CONDITION_FAILED { field: signature }', async () => {
    const ok = await consume('postmark-hook', POSTMARK_DELIVERY, { 'content-type': 'application/json', authorization: basic(POSTMARK_CREDENTIALS) });
    expect(ok.status).toBe(200);
    const wrong = await consume('postmark-hook', POSTMARK_DELIVERY, { 'content-type': 'application/json', authorization: basic('postmark-hook:wrong') });
    expect(wrong.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    expect(await listed('postmark-hook')).not.toContain(POSTMARK_CREDENTIALS);
    expect(await logText('postmark-hook')).not.toContain(btoa(POSTMARK_CREDENTIALS));
  });

  it('postmark with a custom header instead: written by hand, the header compared raw with the Secret Key', async () => {
    await putSecret(project, 'postmark_header', 'pm-custom-header-value');
    await registerTicket(project, 'postmark-custom', {
      condition: { signature: { secretName: 'postmark_header', header: 'X-Postmark-Hook', algorithm: 'token', encoding: 'raw' } },
      actions: [],
    });
    expect(
      (await consume('postmark-custom', POSTMARK_DELIVERY, { 'content-type': 'application/json', 'x-postmark-hook': 'pm-custom-header-value' })).status,
    ).toBe(200);
    expect((await consume('postmark-custom', POSTMARK_DELIVERY, { 'content-type': 'application/json', 'x-postmark-hook': 'pm-custom' })).json).toMatchObject({
      code: 'CONDITION_FAILED',
      detail: { field: 'signature' },
    });
    expect(await logText('postmark-custom')).not.toContain('pm-custom-header-value');
  });

  it('a token given in condition.preset is refused, naming the field, without repeating it', async () => {
    const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/gitlab-old-form`, {
      token: project.owner_key,
      body: { condition: { preset: { id: 'gitlab', token: 'glwht-inline-token' } }, actions: [] },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('condition.preset.token') });
    expect(res.json.message).toContain('secretName');
    expect(res.text).not.toContain('glwht-inline-token');
    const noKey = await call('PUT', `/v1/projects/${project.service_id}/tickets/gitlab-no-key`, {
      token: project.owner_key,
      body: { condition: { preset: { id: 'gitlab' } }, actions: [] },
    });
    expect(noKey.json).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('condition.preset.secretName') });
  });

  it('an older ticket with the token in a headers row works as before (plain condition data: CONDITION_FAILED { field: headers })', async () => {
    await registerTicket(project, 'gitlab-row', { condition: { headers: [{ key: 'X-Gitlab-Token', operator: '=', value: 'glwht-row-token' }] }, actions: [] });
    expect((await consume('gitlab-row', GITLAB_PUSH, gitlabHeaders('glwht-row-token'))).status).toBe(200);
    expect((await consume('gitlab-row', GITLAB_PUSH, gitlabHeaders('glwht-guess'))).json).toMatchObject({
      code: 'CONDITION_FAILED',
      detail: { field: 'headers' },
    });
  });
});
