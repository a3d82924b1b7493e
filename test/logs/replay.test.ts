import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KeptRequest } from '../../src/ticket-log/kept-request';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { flushLogs, getTickets, writeLogRow } from './log-helpers';

// The log keeps the request each consumption received; the owner re-checks it against the current
// definition (a dry run) or replays it as a new consumption marked replay_of.
const SECRET = 'whsec_replay_7a1b2c';
const cryptoProvider = Stripe.createSubtleCryptoProvider();
const stripeHeader = (payload: string, timestampSeconds: number, secret = SECRET) =>
  Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp: timestampSeconds, cryptoProvider });
const stripeCondition = {
  method: 'POST',
  signature: {
    secretName: 'stripe',
    header: 'Stripe-Signature',
    separator: ',',
    parts: ['t=${timestamp}', 'v1=${signature}'],
    signed: '${timestamp}.${body}',
    timestamp: '${timestamp}',
  },
};

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'stripe', SECRET);
});

const logOf = async (ticketId: string) => {
  await flushLogs(project.service_id, ticketId);
  return (await getTickets(project, { ticket_id: `#${ticketId}#` })).json.list as Record<string, any>[];
};
const consumeIdOf = (tkid: string) => tkid.split('#')[2];
const logged = (ticketId: string, consumeId: string, action: 'recheck' | 'replay', token = project.owner_key) =>
  call('POST', `/v1/projects/${project.service_id}/tickets/${ticketId}/log/${consumeId}/${action}`, { token });
const remaining = async (ticketId: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key })).json.count;

describe('the log keeps the request a consumption received', () => {
  it('keeps method, query, body text and headers, with authorization and cookie redacted', async () => {
    await registerTicket(project, 'kept', { actions: [] });
    const body = '{"type":"order.paid","n":1}';
    const res = await call('POST', `/tp/${project.service_id}/kept?source=shop`, {
      raw: body,
      headers: {
        authorization: 'Bearer caller-credential-91f',
        cookie: 'session=caller-cookie-77',
        'x-source': 'shop',
        'user-agent': 'agent/1',
        'cf-connecting-ip': '203.0.113.5',
      },
    });
    expect(res.status).toBe(200);
    const [row] = await logOf('kept');
    const request = row.request as KeptRequest;
    expect(request).toMatchObject({
      method: 'POST',
      search: '?source=shop',
      body: { text: body },
      ip: '203.0.113.5',
      user_agent: 'agent/1',
      signed_route: false,
    });
    expect(request.headers).toMatchObject({ authorization: '[redacted]', cookie: '[redacted]', 'x-source': 'shop' });
    const listing = JSON.stringify(row);
    expect(listing).not.toContain('caller-credential-91f');
    expect(listing).not.toContain('caller-cookie-77');
  });

  it('keeps a body that is not UTF-8 as base64, and one over 64 KiB by its size only', async () => {
    await registerTicket(project, 'kept-bytes', { actions: [] });
    await call('POST', `/tp/${project.service_id}/kept-bytes`, { raw: new Uint8Array([0xff, 0xfe, 0x00, 0x41]) });
    await call('POST', `/tp/${project.service_id}/kept-bytes`, { raw: 'x'.repeat(64 * 1024 + 1) });
    const [big, binary] = await logOf('kept-bytes');
    expect(binary.request.body).toEqual({ base64: btoa('\xff\xfe\x00A') });
    expect(big.request.body).toEqual({ omitted_bytes: 64 * 1024 + 1 });
    const refused = await logged('kept-bytes', big.consume_id, 'replay');
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('was not kept') });
  });
});

describe('re-check and replay', () => {
  it('re-checks a logged consumption against the current definition: no action, no count, a dry-run row marked replay_of', async () => {
    await registerTicket(project, 'recheck', { count: 5, condition: { body: [{ key: 'type', operator: '=', value: 'paid' }] }, actions: [] });
    const consumed = await call('POST', `/tp/${project.service_id}/recheck`, { body: { type: 'paid' } });
    const consumeId = consumeIdOf(consumed.json.tkid);
    await flushLogs(project.service_id, 'recheck');
    expect((await logged('recheck', consumeId, 'recheck')).json).toMatchObject({ ticket_id: 'recheck', replay_of: consumeId, passed: true });
    await registerTicket(project, 'recheck', { condition: { body: [{ key: 'type', operator: '=', value: 'refunded' }] }, actions: [] });
    const failed = await logged('recheck', consumeId, 'recheck');
    expect(failed.json).toMatchObject({ passed: false, status: 400, error: { code: 'CONDITION_FAILED', stage: 'condition' } });
    expect(await remaining('recheck')).toBe(4);
    const rows = await logOf('recheck');
    expect(rows.filter((row) => row.check && row.replay_of === consumeId)).toHaveLength(2);
  });

  it('replays a consumption as a new one: its actions run, a count is used, and its row names the original', async () => {
    await registerTicket(project, 'replayed', { count: 5, actions: [{ act: 'resp', exe: { status: 202, body: { got: '${body[n]}' } } }] });
    const first = await call('POST', `/tp/${project.service_id}/replayed`, { body: { n: 7 } });
    expect(first.status).toBe(202);
    const [original] = await logOf('replayed');
    const replay = await logged('replayed', original.consume_id, 'replay');
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({ ticket_id: 'replayed', replay_of: original.consume_id, ok: true, status: 202, body: { got: 7 } });
    expect(await remaining('replayed')).toBe(3);
    const rows = await logOf('replayed');
    const again = rows.find((row) => row.replay_of === original.consume_id && !row.check);
    expect(again?.consume_id).not.toBe(original.consume_id);
    expect(again?.request).toEqual(original.request);
  });

  it('answers a replay that fails with its error as data, and gives its count back', async () => {
    await registerTicket(project, 'replay-fails', { count: 3, actions: [] });
    const first = await call('POST', `/tp/${project.service_id}/replay-fails`, { body: { type: 'a' } });
    await flushLogs(project.service_id, 'replay-fails');
    await registerTicket(project, 'replay-fails', { condition: { body: [{ key: 'type', operator: '=', value: 'b' }] }, actions: [] });
    const replay = await logged('replay-fails', consumeIdOf(first.json.tkid), 'replay');
    expect(replay.json).toMatchObject({ ok: false, status: 400, error: { code: 'CONDITION_FAILED' } });
    expect(await remaining('replay-fails')).toBe(2);
  });
});

describe('the signature part on replay is judged as at arrival', () => {
  const payload = JSON.stringify({ id: 'evt_9', type: 'invoice.paid' });
  const keptSigned = (header: string, receivedAt: number): KeptRequest => ({
    method: 'POST',
    headers: { 'stripe-signature': header, 'content-type': 'application/json' },
    search: '',
    body: { text: payload },
    ip: '203.0.113.7',
    user_agent: 'Stripe/1.0',
    signed_route: false,
    long_form: false,
    received_at: receivedAt,
  });

  it('passes a request signed when it arrived an hour ago (its timestamp judged against its arrival, not now)', async () => {
    await registerTicket(project, 'signed-replay', { condition: stripeCondition, actions: [] });
    const arrived = Date.now() - 3_600_000;
    await writeLogRow(project.service_id, 'signed-replay', 'old1aaaa', arrived, {
      request: keptSigned(await stripeHeader(payload, Math.floor(arrived / 1000)), arrived),
    });
    expect((await logged('signed-replay', 'old1aaaa', 'recheck')).json.passed).toBe(true);
    expect((await logged('signed-replay', 'old1aaaa', 'replay')).json).toMatchObject({ ok: true, status: 200 });
  });

  it('fails a request whose signature does not verify with the current secret, or whose timestamp was stale when it arrived', async () => {
    await registerTicket(project, 'signed-replay-2', { condition: stripeCondition, actions: [] });
    const arrived = Date.now() - 60_000;
    const forged = keptSigned(await stripeHeader(payload, Math.floor(arrived / 1000), 'whsec_someone_else'), arrived);
    const stale = keptSigned(await stripeHeader(payload, Math.floor(arrived / 1000) - 3_600), arrived);
    await writeLogRow(project.service_id, 'signed-replay-2', 'forged01', arrived, { request: forged });
    await writeLogRow(project.service_id, 'signed-replay-2', 'stale001', arrived, { request: stale });
    for (const consumeId of ['forged01', 'stale001']) {
      const replay = await logged('signed-replay-2', consumeId, 'replay');
      expect(replay.json).toMatchObject({ ok: false, error: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } });
    }
    const genuine = keptSigned(await stripeHeader(payload, Math.floor(arrived / 1000)), arrived);
    await writeLogRow(project.service_id, 'signed-replay-2', 'genuine1', arrived, { request: genuine });
    expect((await logged('signed-replay-2', 'genuine1', 'recheck')).json.passed).toBe(true);
  });
});

describe('refusals', () => {
  it('refuses what cannot be replayed with a clear error', async () => {
    await registerTicket(project, 'refusals', { actions: [] });
    await writeLogRow(project.service_id, 'refusals', 'nokept01', Date.now());
    expect((await logged('refusals', 'nokept01', 'replay')).json).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('before requests were kept'),
    });
    expect((await logged('refusals', 'nosuch01', 'replay')).status).toBe(404);
    expect((await logged('refusals', 'not an id', 'recheck')).json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'consume_id' } });
    expect((await logged('bad!ticket', 'nokept01', 'recheck')).json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'ticket_id' } });
    expect((await logged('refusals', 'nokept01', 'replay', 'ok_wrong')).status).toBe(401);
  });
});
