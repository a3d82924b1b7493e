/**
 * The signature extensions through the Worker: registration refuses a Secret Key that is not a
 * public key of the algorithm (INVALID_PARAMETER naming the field); a consumption verifies a URL
 * signature at the URL received, or at public_url; an unexpected host, a bad key or a bad signature
 * is CONDITION_FAILED { field: 'signature' }, never a 500; and the owner's diagnosis of a failed
 * consumption says what the check found, never a secret or a signature.
 */
import { createHmac } from 'node:crypto';
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { EXTENSION_PRESETS } from '../../schemas/signature-presets-extensions';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { flushLogs, getTickets } from '../logs/log-helpers';

const TWILIO_TOKEN = 'twilio-auth-token-5f1e0c7d9a';
const preset = (id: string) => EXTENSION_PRESETS.find((p) => p.id === id)!.signature;
const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

let project: TestProject;
let ed25519: CryptoKeyPair;
beforeAll(async () => {
  project = await createProject();
  ed25519 = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  await putSecret(project, 'discord_key', hex((await crypto.subtle.exportKey('raw', ed25519.publicKey)) as ArrayBuffer));
  const p256 = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  await putSecret(project, 'p256_key', btoa(String.fromCharCode(...new Uint8Array((await crypto.subtle.exportKey('spki', p256.publicKey)) as ArrayBuffer))));
  await putSecret(project, 'twilio_token', TWILIO_TOKEN);
});

/** A consumption at any origin (the tests' default is https://svc.test). */
async function consumeAt(origin: string, path: string, body: string, headers: Record<string, string>) {
  const res = await exports.default.fetch(`${origin}${path}`, { method: 'POST', body, headers });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** Twilio's signature of a form delivery to `url` (its documented scheme, checked against the twilio library in extension-presets.test.ts). */
function twilioSigned(url: string, params: Record<string, string>) {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', TWILIO_TOKEN).update(data).digest('base64');
}

async function discordHeaders(body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = await crypto.subtle.sign('Ed25519', ed25519.privateKey, new TextEncoder().encode(`${timestamp}${body}`));
  return { 'x-signature-ed25519': hex(signature as ArrayBuffer), 'x-signature-timestamp': String(timestamp), 'content-type': 'application/json' };
}

const register = (ticketId: string, signature: Record<string, unknown>) =>
  call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key, body: { condition: { signature }, actions: [] } });

describe('registration of a public-key signature checks the Secret Key holds such a key', () => {
  it('a Secret Key that holds a key of another algorithm or curve is INVALID_PARAMETER naming condition.signature.secretName', async () => {
    const res = await register('discord-bad-key', { secretName: 'p256_key', ...preset('discord') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('Ed25519 public key') });
    expect(res.json.message).toContain('condition.signature.secretName');
    const rsa = await register('rsa-bad-key', { secretName: 'twilio_token', ...preset('rsa-sha256-body') });
    expect(rsa.json).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('RSA public key') });
  });

  it('the right key registers', async () => {
    expect((await register('discord', { secretName: 'discord_key', ...preset('discord') })).status).toBeLessThan(300);
  });
});

describe('consuming with a public-key signature', () => {
  it('a Discord interaction signed with the key verifies; a tampered one is CONDITION_FAILED { field: signature }', async () => {
    await registerTicket(project, 'discord-ok', { condition: { signature: { secretName: 'discord_key', ...preset('discord') } }, actions: [] });
    const body = JSON.stringify({ type: 2, data: { name: 'hello' } });
    const headers = await discordHeaders(body);
    expect((await consumeAt('https://svc.test', `/tp/${project.service_id}/discord-ok`, body, headers)).status).toBe(200);
    const tampered = await consumeAt('https://svc.test', `/tp/${project.service_id}/discord-ok`, body.replace('hello', 'bye'), headers);
    expect(tampered).toMatchObject({ status: 400, json: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } });
  });

  it('a key replaced after registration by one that is not a key fails the consumption cleanly, never a 500', async () => {
    await putSecret(project, 'swapped_key', hex((await crypto.subtle.exportKey('raw', ed25519.publicKey)) as ArrayBuffer));
    await registerTicket(project, 'discord-swapped', { condition: { signature: { secretName: 'swapped_key', ...preset('discord') } }, actions: [] });
    await putSecret(project, 'swapped_key', 'not-a-key');
    const body = '{"type":1}';
    const res = await consumeAt('https://svc.test', `/tp/${project.service_id}/discord-swapped`, body, await discordHeaders(body));
    expect(res).toMatchObject({ status: 400, json: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } });
  });
});

describe('consuming with a URL signature (Twilio)', () => {
  const params = { From: '+15550199', To: '+15550100', Body: 'hi there' };
  const form = new URLSearchParams(params).toString();
  const formHeaders = (signature: string) => ({ 'x-twilio-signature': signature, 'content-type': 'application/x-www-form-urlencoded' });

  it('verifies at the URL as received (scheme, host, path, query); reached through an unexpected host it is CONDITION_FAILED', async () => {
    await registerTicket(project, 'twilio', { condition: { signature: { secretName: 'twilio_token', ...preset('twilio') } }, actions: [] });
    const path = `/tp/${project.service_id}/twilio?channel=sms`;
    const signature = twilioSigned(`https://svc.test${path}`, params);
    expect((await consumeAt('https://svc.test', path, form, formHeaders(signature))).status).toBe(200);
    const elsewhere = await consumeAt('https://other.example', path, form, formHeaders(signature));
    expect(elsewhere).toMatchObject({ status: 400, json: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } });
  });

  it('with public_url, verifies the URL the provider called though the request arrives at another host (proxy, custom domain)', async () => {
    const publicUrl = `https://hooks.example.com/twilio/${project.service_id}`;
    await registerTicket(project, 'twilio-proxied', {
      condition: { signature: { secretName: 'twilio_token', ...preset('twilio'), public_url: publicUrl } },
      actions: [],
    });
    const signature = twilioSigned(`${publicUrl}?channel=sms`, params);
    const res = await consumeAt('https://svc.test', `/tp/${project.service_id}/twilio-proxied?channel=sms`, form, formHeaders(signature));
    expect(res.status).toBe(200);
  });

  it("a dry run (check) takes the sample as sent to the ticket's /tp URL at the host asked", async () => {
    const url = `https://svc.test/tp/${project.service_id}/twilio?channel=sms`;
    const check = (signature: string) =>
      call('POST', `/v1/projects/${project.service_id}/tickets/twilio/check`, {
        token: project.owner_key,
        body: { headers: formHeaders(signature), body: form, query: { channel: 'sms' } },
      });
    expect((await check(twilioSigned(url, params))).json).toMatchObject({ passed: true });
    expect((await check(twilioSigned(url.replace('svc.test', 'other.example'), params))).json).toMatchObject({
      passed: false,
      error: { code: 'CONDITION_FAILED' },
    });
  });

  it('the log keeps the URL, so a re-check verifies again', async () => {
    const path = `/tp/${project.service_id}/twilio?again=1`;
    const consumed = await consumeAt('https://svc.test', path, form, formHeaders(twilioSigned(`https://svc.test${path}`, params)));
    await flushLogs(project.service_id, 'twilio');
    const consumeId = String(consumed.json.tkid).split('#')[2];
    const rows = (await getTickets(project, { ticket_id: '#twilio#' })).json.list as Record<string, any>[];
    expect(rows.find((r) => r.consume_id === consumeId)?.request).toMatchObject({
      url: `https://svc.test/tp/${project.service_id}/twilio`,
      search: '?again=1',
    });
    const recheck = await call('POST', `/v1/projects/${project.service_id}/tickets/twilio/log/${consumeId}/recheck`, { token: project.owner_key });
    expect(recheck.json).toMatchObject({ passed: true });
  });
});

describe('scheme inference from a captured request and a Secret Key name', () => {
  const match = (body: Record<string, unknown>) =>
    call('POST', `/v1/projects/${project.service_id}/signature-presets/match`, { token: project.owner_key, body });
  const deliveries = inject('extensionDeliveries');

  it.each(['twilio', 'square', 'hubspot-v3', 'discord', 'sendgrid'])(
    'a %s delivery signed by its library is matched to its preset, judged at its delivery time',
    async (id) => {
      const delivery = deliveries[id];
      await putSecret(project, `match_${id.replace(/-/g, '_')}`, delivery.secret);
      const res = await match({
        secretName: `match_${id.replace(/-/g, '_')}`,
        headers: delivery.headers,
        body: delivery.body,
        url: delivery.url,
        received_at: delivery.signedAtMs,
      });
      expect(res.status).toBe(200);
      expect(res.json.matching.map((m: { id: string }) => m.id)).toEqual([id]);
      expect(JSON.stringify(res.json)).not.toContain(delivery.secret);
    },
  );

  it('without the URL a URL-signed delivery matches nothing; an unknown Secret Key is INVALID_PARAMETER', async () => {
    const delivery = deliveries.square;
    const res = await match({ secretName: 'match_square', headers: delivery.headers, body: delivery.body, received_at: delivery.signedAtMs });
    expect(res.json).toMatchObject({ matching: [] });
    expect((await match({ secretName: 'nope', headers: {} })).json).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('nope') });
  });
});

describe('"why did my signature fail?": the diagnosis of a logged consumption', () => {
  const diagnose = (ticketId: string, consumeId: string, body?: Record<string, unknown>, token = project.owner_key) =>
    call('POST', `/v1/projects/${project.service_id}/tickets/${ticketId}/log/${consumeId}/signature`, { token, ...(body ? { body } : {}) });
  const lastConsumeId = async (ticketId: string) => {
    await flushLogs(project.service_id, ticketId);
    return ((await getTickets(project, { ticket_id: `#${ticketId}#` })).json.list as Record<string, any>[])[0].consume_id as string;
  };

  it('a stale Discord delivery: the header read, the timestamp age, the signed bytes (length, SHA-256), and which preset verifies it; never the key or the signature', async () => {
    await registerTicket(project, 'discord-diag', { condition: { signature: { secretName: 'discord_key', ...preset('discord') } }, actions: [] });
    const body = JSON.stringify({ type: 2, data: { name: 'late' } });
    const headers = await discordHeaders(body, Math.floor(Date.now() / 1000) - 3600);
    expect((await consumeAt('https://svc.test', `/tp/${project.service_id}/discord-diag`, body, headers)).status).toBe(400);
    const res = await diagnose('discord-diag', await lastConsumeId('discord-diag'));
    expect(res.status).toBe(200);
    expect(res.json.signature).toMatchObject({
      verified: false,
      result: expect.stringContaining('timestamp'),
      trace: {
        source: { header: 'X-Signature-Ed25519', found: true },
        signature_candidates: 1,
        decoded_lengths: [64],
        timestamp: { fresh: false, tolerance: 300 },
      },
    });
    expect(res.json.signature.trace.timestamp.age_seconds).toBeGreaterThan(3500);
    // Stale by the ticket's tolerance, so no preset with a freshness check matches either.
    expect(res.json.presets).toEqual({ secretName: 'discord_key', matching: [] });
    const text = JSON.stringify(res.json);
    expect(text).not.toContain(headers['x-signature-ed25519']);
  });

  it('an item that holds a signature but matches no part, or a capture of one, is never shown', async () => {
    const signature = {
      secretName: 'twilio_token',
      header: 'X-Sig',
      separator: ',',
      parts: ['t=${timestamp}', 'v2=${signature}'],
      signed: '${timestamp}.${body}',
    };
    await registerTicket(project, 'masked', { condition: { signature }, actions: [] });
    const sent = createHmac('sha256', TWILIO_TOKEN).update('100.{}').digest('hex');
    await consumeAt('https://svc.test', `/tp/${project.service_id}/masked`, '{}', { 'x-sig': `t=100,v1=${sent}` });
    const res = await diagnose('masked', await lastConsumeId('masked'));
    expect(res.json.signature.trace).toMatchObject({ items: ['t=100', 'v1=…'], captures: { timestamp: '100' }, signature_candidates: 0 });
    expect(res.json.signature.result).toBe('no item matched a ${signature} part');
    expect(JSON.stringify(res.json)).not.toContain(sent);
  });

  it('a tampered body: the check got to the key, and the signed bytes are given by length and SHA-256 only', async () => {
    const body = JSON.stringify({ type: 2, data: { name: 'orig' } });
    const headers = await discordHeaders(body);
    const tampered = body.replace('orig', 'evil');
    await consumeAt('https://svc.test', `/tp/${project.service_id}/discord-diag`, tampered, headers);
    const res = await diagnose('discord-diag', await lastConsumeId('discord-diag'));
    const signedText = `${headers['x-signature-timestamp']}${tampered}`;
    const digest = hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(signedText)));
    expect(res.json.signature).toMatchObject({
      verified: false,
      result: 'no signature verifies with this key',
      trace: { key: 'usable', signed: { length: signedText.length, sha256: digest } },
    });
  });

  it('scheme inference: a request the ticket does not expect, checked with a Secret Key name, names the preset that verifies it', async () => {
    await registerTicket(project, 'open', { actions: [] });
    const path = `/tp/${project.service_id}/open`;
    const body = JSON.stringify({ type: 2, data: { name: 'which' } });
    await consumeAt('https://svc.test', path, body, await discordHeaders(body));
    const consumeId = await lastConsumeId('open');
    const res = await diagnose('open', consumeId, { secretName: 'discord_key' });
    expect(res.json).toMatchObject({ signature: null, presets: { secretName: 'discord_key', matching: [{ id: 'discord' }] } });
    const noName = await diagnose('open', consumeId);
    expect(noName).toMatchObject({ status: 400, json: { code: 'INVALID_PARAMETER' } });
    const missing = await diagnose('open', consumeId, { secretName: 'no_such_key' });
    expect(missing).toMatchObject({ status: 400, json: { code: 'INVALID_PARAMETER', message: expect.stringContaining('no_such_key') } });
  });

  it('an unknown consume_id is 404, a malformed one INVALID_PARAMETER, and only the owner may ask', async () => {
    expect((await diagnose('open', 'nosuchid0')).status).toBe(404);
    expect((await diagnose('open', 'bad!')).json).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await diagnose('open', 'nosuchid0', undefined, 'not-a-token')).status).toBe(401);
  });
});
