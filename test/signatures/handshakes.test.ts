/**
 * Handshakes (extension, docs/signatures.md "Handshakes"): a ticket registered from a provider's preset
 * answers that provider's handshake, with the handshake body its documentation shows, after the
 * signature verifies; spends no count and runs no action. A handshake body on a ticket without the
 * handshake takes the normal path. Signatures are made with @octokit/webhooks-methods' HMAC over the
 * string each provider documents as signed; Discord's PING with Ed25519 by the key pair of
 * test/signatures/extension-signers.ts, whose PING discord-interactions' verifyKey accepted.
 */
import { sign } from '@octokit/webhooks-methods';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { presetSignature } from '../../schemas/signature-presets';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { ticketLog } from '../logs/log-helpers';
import { ZOOM_URL_VALIDATION } from './provider-bodies';

const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const ZOOM_SECRET = 'NbSl-uPgSEqW_eHMFUdewA';
const TWITCH_SECRET = 'this-is-a-twitch-secret-10-100';

// Slack Events API docs, "url_verification event".
const SLACK_CHALLENGE = JSON.stringify({
  token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
  challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
  type: 'url_verification',
});
// Zoom docs, "Validate your webhook endpoint"; Zoom's own receiver (@zoom/rivet) answered it in Node (provider-signers.ts).
const ZOOM_VALIDATION = ZOOM_URL_VALIDATION;
const { zoomValidation } = inject('providerDeliveries');
// Twitch EventSub docs, "Responding to a challenge request".
const TWITCH_CHALLENGE = JSON.stringify({
  challenge: 'pogchamp-kappa-360noscope-vohiyo',
  subscription: {
    id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4',
    status: 'webhook_callback_verification_pending',
    type: 'channel.follow',
    version: '1',
    cost: 1,
    condition: { broadcaster_user_id: '12826' },
    transport: { method: 'webhook', callback: 'https://example.com/webhooks/callback' },
    created_at: '2019-11-16T10:11:12.634234626Z',
  },
});
// Discord interactions docs, "Receiving an interaction" (PING), signed in Node and checked by discord-interactions' verifyKey.
const DISCORD = inject('extensionDeliveries')['discord-ping'];
const DISCORD_PING = DISCORD.body;
// Microsoft Graph docs, "Notification endpoint validation".
const GRAPH_TOKEN = 'Validation: Testing client application reachability for subscription Request-Id: 2e3b6a5f-7d0f-4d8a-9c2b-4f6c1b2a3d4e';

const hexOf = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
let discordKey: CryptoKey;
/** Signs as Discord does: Ed25519 over timestamp + body, hex, in X-Signature-Ed25519 (with the key whose PING verifyKey accepted). */
const discordHeaders = async (body: string, ts = nowSeconds()) => ({
  'x-signature-ed25519': hexOf(await crypto.subtle.sign('Ed25519', discordKey, new TextEncoder().encode(`${ts}${body}`))),
  'x-signature-timestamp': String(ts),
});

const bare = async (secret: string, text: string) => (await sign(secret, text)).slice('sha256='.length);
const nowSeconds = () => Math.floor(Date.now() / 1000);

let project: TestProject;
const post = (ticket: string, body: string, headers: Record<string, string> = {}, query = '') =>
  call('POST', `/tp/${project.service_id}/${ticket}${query}`, { raw: body, headers: { 'content-type': 'application/json', ...headers } });
const remaining = async (ticket: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticket}`, { token: project.owner_key })).json.list[0].count;

const slackHeaders = async (body: string, ts = nowSeconds()) => ({
  'x-slack-request-timestamp': String(ts),
  'x-slack-signature': `v0=${await bare(SLACK_SECRET, `v0:${ts}:${body}`)}`,
});
const zoomHeaders = async (body: string, ts = nowSeconds()) => ({
  'x-zm-request-timestamp': String(ts),
  'x-zm-signature': `v0=${await bare(ZOOM_SECRET, `v0:${ts}:${body}`)}`,
});
const twitchHeaders = async (body: string, type = 'webhook_callback_verification') => {
  const id = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
  const stamp = new Date().toISOString();
  return {
    'twitch-eventsub-message-id': id,
    'twitch-eventsub-message-timestamp': stamp,
    'twitch-eventsub-message-type': type,
    'twitch-eventsub-message-signature': await sign(TWITCH_SECRET, `${id}${stamp}${body}`),
  };
};

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'slack', SLACK_SECRET);
  await putSecret(project, 'zoom', ZOOM_SECRET);
  await putSecret(project, 'twitch', TWITCH_SECRET);
  await putSecret(project, 'discord_public_key', DISCORD.secret);
  discordKey = await crypto.subtle.importKey(
    'pkcs8',
    Uint8Array.from(atob(DISCORD.signingKey!), (c) => c.charCodeAt(0)),
    { name: 'Ed25519' },
    false,
    ['sign'],
  );
  const posted = [{ act: 'pstr', exe: { table: { name: 'events', access_group: 'public' }, data: '${body}' } }];
  await registerTicket(project, 'slack-events', { count: 5, condition: { preset: { id: 'slack', secretName: 'slack' } }, actions: posted });
  await registerTicket(project, 'zoom-events', { count: 5, condition: { preset: { id: 'zoom', secretName: 'zoom' } }, actions: posted });
  await registerTicket(project, 'twitch-events', { count: 5, condition: { preset: { id: 'twitch', secretName: 'twitch' } }, actions: posted });
  await registerTicket(project, 'discord-interactions', { count: 5, condition: { handshake: 'discord' }, actions: [] });
  // From the preset alone: the Ed25519 signature and the discord handshake.
  await registerTicket(project, 'discord-app', { count: 5, condition: { preset: { id: 'discord', secretName: 'discord_public_key' } }, actions: posted });
  await registerTicket(project, 'graph-notifications', { count: 5, condition: { preset: { id: 'msgraph' } }, actions: [] });
  // The Slack signature without the handshake.
  await registerTicket(project, 'slack-plain', { count: 5, condition: { signature: presetSignature('slack', 'slack') }, actions: [] });
});

describe('handshakes answered from the preset alone', () => {
  it('slack: a signed url_verification is answered { challenge }, runs no action and spends no count', async () => {
    const res = await post('slack-events', SLACK_CHALLENGE, await slackHeaders(SLACK_CHALLENGE));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    expect(await remaining('slack-events')).toBe(5);
  });

  it('slack: an unsigned or tampered url_verification fails with CONDITION_FAILED { field: signature }', async () => {
    const unsigned = await post('slack-events', SLACK_CHALLENGE);
    const tampered = await post('slack-events', SLACK_CHALLENGE.replace('3eZb', '4eZb'), await slackHeaders(SLACK_CHALLENGE));
    for (const res of [unsigned, tampered]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
      expect(res.text).not.toContain('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    }
  });

  it('slack: an ordinary signed event still runs the actions and spends a count', async () => {
    const event = JSON.stringify({ type: 'event_callback', event: { type: 'app_mention', text: 'hi' } });
    const res = await post('slack-events', event, await slackHeaders(event));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
    expect(await remaining('slack-events')).toBe(4);
  });

  it('zoom: a signed endpoint.url_validation is answered { plainToken, encryptedToken = hex HMAC-SHA256 of plainToken }', async () => {
    const res = await post('zoom-events', ZOOM_VALIDATION, await zoomHeaders(ZOOM_VALIDATION));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: await bare(ZOOM_SECRET, 'qgg8vlvZRS6UYooatFL8Aw') });
    // The answer Zoom's own receiver gives to the same handshake with the same secret.
    expect(zoomValidation.status).toBe(200);
    expect(res.json).toEqual(zoomValidation.answer);
    expect(await remaining('zoom-events')).toBe(5);
  });

  it('zoom: the answered handshake is logged as a success with handshake, its hsk and resp rows, never the key', async () => {
    const log = await ticketLog(project.service_id, 'zoom-events');
    const entry = log.find((row) => JSON.parse(row.description).handshake === 'zoom' && !row.failed);
    expect(entry).toBeDefined();
    expect(entry!.actions.map((row) => row.act)).toEqual(['hsk', 'resp']);
    expect(JSON.stringify(log)).not.toContain(ZOOM_SECRET);
  });

  it('zoom: an unsigned endpoint.url_validation gets no encryptedToken (the answer is no signing oracle)', async () => {
    const res = await post('zoom-events', ZOOM_VALIDATION, { 'x-zm-request-timestamp': String(nowSeconds()) });
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
    expect(res.text).not.toContain('encryptedToken');
  });

  it('zoom: a plainToken that could be a signed message is not hashed; the delivery takes the normal path', async () => {
    const crafted = JSON.stringify({ event: 'endpoint.url_validation', payload: { plainToken: 'v0:1:{"event":"x"}' } });
    const res = await post('zoom-events', crafted, await zoomHeaders(crafted));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
    expect(res.text).not.toContain('encryptedToken');
  });

  it('twitch: a signed webhook_callback_verification is answered with the raw challenge as text/plain', async () => {
    const res = await post('twitch-events', TWITCH_CHALLENGE, await twitchHeaders(TWITCH_CHALLENGE));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('pogchamp-kappa-360noscope-vohiyo');
    expect(await remaining('twitch-events')).toBe(5);
  });

  it('twitch: the same body with a bad signature fails with CONDITION_FAILED { field: signature }', async () => {
    const headers = { ...(await twitchHeaders(TWITCH_CHALLENGE)), 'twitch-eventsub-message-signature': `sha256=${'0'.repeat(64)}` };
    const res = await post('twitch-events', TWITCH_CHALLENGE, headers);
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
  });

  it('discord: the PING is signed here exactly as in Node, where discord-interactions accepted it (Ed25519 is deterministic)', async () => {
    const again = await discordHeaders(DISCORD_PING, Number(DISCORD.headers['X-Signature-Timestamp']));
    expect(again['x-signature-ed25519']).toBe(DISCORD.headers['X-Signature-Ed25519']);
  });

  it('discord: a signed PING to the ticket registered from the preset alone is answered { "type": 1 }, runs no action and spends no count', async () => {
    const res = await post('discord-app', DISCORD_PING, await discordHeaders(DISCORD_PING));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ type: 1 });
    expect(await remaining('discord-app')).toBe(5);
  });

  it('discord: a PING with a bad signature, an old one, or none is CONDITION_FAILED { field: signature }, never answered PONG', async () => {
    const good = await discordHeaders(DISCORD_PING);
    const flipped = `${good['x-signature-ed25519'][0] === '0' ? '1' : '0'}${good['x-signature-ed25519'].slice(1)}`;
    const badSignature = await post('discord-app', DISCORD_PING, { ...good, 'x-signature-ed25519': flipped });
    const otherBody = await post('discord-app', DISCORD_PING.replace('"version":1', '"version":2'), good);
    const stale = await post('discord-app', DISCORD_PING, await discordHeaders(DISCORD_PING, nowSeconds() - 3600));
    const unsigned = await post('discord-app', DISCORD_PING);
    for (const res of [badSignature, otherBody, stale, unsigned]) {
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
      expect(res.json).not.toEqual({ type: 1 });
    }
    expect(await remaining('discord-app')).toBe(5);
  });

  it('discord: a signed interaction that is not a PING takes the normal path (the actions, a count)', async () => {
    const command = JSON.stringify({
      type: 2,
      id: '1170826040441561119',
      application_id: '1170824891374231552',
      data: { name: 'hello' },
      token: 'interaction-token',
      version: 1,
    });
    const res = await post('discord-app', command, await discordHeaders(command));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
    expect(await remaining('discord-app')).toBe(4);
  });

  it('discord: a PING (type 1) to a ticket with the handshake but no signature is answered { "type": 1 }', async () => {
    const res = await post('discord-interactions', DISCORD_PING);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ type: 1 });
    expect(await remaining('discord-interactions')).toBe(5);
  });

  it('microsoft graph: POST ?validationToken= is answered 200 text/plain with the decoded token', async () => {
    const res = await post('graph-notifications', '', { 'content-type': 'text/plain' }, `?validationToken=${encodeURIComponent(GRAPH_TOKEN)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe(GRAPH_TOKEN);
  });
});

describe('a handshake body on a ticket without the handshake', () => {
  it('a signed Slack url_verification takes the normal path (a receipt), never a 500', async () => {
    const res = await post('slack-plain', SLACK_CHALLENGE, await slackHeaders(SLACK_CHALLENGE));
    expect(res.status).toBe(200);
    expect(res.json).toHaveProperty('tkid');
    expect(res.json).not.toHaveProperty('challenge');
  });

  it('an unsigned one fails with CONDITION_FAILED { field: signature }', async () => {
    const res = await post('slack-plain', SLACK_CHALLENGE);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'signature' } });
  });
});
