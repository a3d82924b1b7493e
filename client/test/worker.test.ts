import { beforeAll, describe, expect, it } from 'vitest';
import { Svc, type SvcError, type TicketError, type TicketReceipt } from '../src/index.js';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';
import { rejection } from './helpers/rejection.js';

// The client against the real Worker (`wrangler dev` with local D1 and Durable Objects).
let worker: ProjectOnWorker;
let svc: Svc;

beforeAll(async () => {
  worker = await createTestProject();
  svc = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url });
  await worker.registerTicket('open', { actions: [] });
  await worker.registerTicket('big-order', { condition: { method: 'POST', body: [{ key: 'amount', operator: '>', value: 10 }] }, actions: [] });
  await worker.registerTicket('typed-query', {
    condition: {
      method: 'GET',
      params: [
        { key: 'qty', operator: '=', value: 2 },
        { key: 'code', operator: '=', value: '2' },
        { key: 'name', operator: '=', value: 'bob smith' },
        { key: 'gift', operator: '=', value: true },
        { key: 'note', operator: '=', value: null },
      ],
    },
    actions: [],
  });
  await worker.registerTicket('verified-only', { condition: { user: [{ key: 'email_verified', operator: '=', value: true }] }, actions: [] });
  await worker.registerTicket('quiet-refusal', { condition: { return200: true, body: [{ key: 'ok', operator: '=', value: true }] }, actions: [] });
  await worker.registerTicket('one-left', { count: 1, actions: [] });
  await worker.registerTicket('greeter', { actions: [{ act: 'resp', exe: { status: 201, body: { greeting: 'hi ${body[name]}' } } }] });
  await worker.registerTicket('paywall', { actions: [{ act: 'resp', exe: { status: 402, body: { code: 'PAY_FIRST', message: 'Payment required.' } } }] });
  await worker.registerTicket('resp-receipt', { actions: [{ act: 'resp', exe: { status: 202 } }] });
  await worker.importLegacyTicket('legacy-order', { condition: { data: [{ key: 'amount', operator: '>', value: 10 }] }, actions: [] });
});

const ticketErrorOf = (err: SvcError): TicketError => {
  if (!err.cause || !('stage' in err.cause)) throw new Error(`no TicketError cause: ${err.message}`);
  return err.cause;
};

describe('a legacy ticket through the client', () => {
  it("its plain-text failure '<CODE>: <message>' rejects with INVALID_REQUEST and no cause", async () => {
    const err = await rejection(svc.consumeTicket({ ticket_id: 'legacy-order', method: 'POST', data: { amount: 5 } }));
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', status: 400, message: 'CONDITION_FAILED: The request does not meet the condition on body: amount.' });
    expect(err.cause).toBeUndefined();
    const missing = await rejection(svc.consumeTicket({ ticket_id: 'legacy-order', method: 'POST', data: {} }));
    expect(missing).toMatchObject({ code: 'INVALID_REQUEST', message: "PATH_NOT_FOUND: The request has no body field 'amount'." });
  });

  it('its success resolves with the receipt as a current ticket does', async () => {
    await expect(svc.consumeTicket({ ticket_id: 'legacy-order', method: 'POST', data: { amount: 20 } })).resolves.toMatchObject({
      ticket_id: 'legacy-order',
      is_test: false,
    });
  });
});

describe('consumeTicket against the Worker', () => {
  it('a POST consumption resolves with a TicketReceipt whose timestamp is decoded from consume_id', async () => {
    const before = Date.now();
    const receipt = await svc.consumeTicket({ ticket_id: 'open', method: 'POST', data: { a: 1 } });
    const after = Date.now();
    expect(receipt).toMatchObject({ ticket_id: 'open', is_test: false });
    expect(Object.keys(receipt).sort()).toEqual(['consume_id', 'hash', 'is_test', 'ticket_id', 'timestamp', 'user_id']);
    expect(receipt.consume_id).toMatch(/^[0-9A-Za-z]{5,}$/);
    expect(receipt.timestamp).toBeGreaterThanOrEqual(before - 1000);
    expect(receipt.timestamp).toBeLessThanOrEqual(after + 1000);
    expect(receipt.user_id).toMatch(/^.+\(.*\)$/); // '<ip>(<user agent>)' on the anonymous endpoint
    expect(receipt.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('POST data is the JSON body the body rows read', async () => {
    await expect(svc.consumeTicket({ ticket_id: 'big-order', method: 'POST', data: { amount: 20 } })).resolves.toMatchObject({ ticket_id: 'big-order' });
    const err = await rejection(svc.consumeTicket({ ticket_id: 'big-order', method: 'POST', data: { amount: 5 } }));
    expect(err.code).toBe('CONDITION_FAILED');
    expect(err.status).toBe(400);
    expect(ticketErrorOf(err)).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition', detail: { field: 'body', keys: ['amount'] } });
  });

  it('GET data is the query string the params rows read, each value with its own type', async () => {
    const data = { qty: 2, code: '2', name: 'bob smith', gift: true, note: null };
    await expect(svc.consumeTicket({ ticket_id: 'typed-query', method: 'GET', data })).resolves.toMatchObject({ ticket_id: 'typed-query' });
    const err = await rejection(svc.consumeTicket({ ticket_id: 'typed-query', method: 'GET', data: { ...data, qty: '2' } }));
    expect(ticketErrorOf(err)).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'params', keys: ['qty'] } });
  });

  it('condition.method refuses the other method with METHOD_NOT_ALLOWED', async () => {
    const err = await rejection(svc.consumeTicket({ ticket_id: 'big-order', method: 'GET', data: { amount: 20 } }));
    expect(err.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('auth consumes on the signed-in endpoint as the user of setIdToken', async () => {
    const user = await worker.mintUser({ email_verified: true });
    const signedIn = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url });
    signedIn.setIdToken(user.id_token);
    const receipt = await signedIn.consumeTicket({ ticket_id: 'verified-only', method: 'POST', auth: true });
    expect(receipt.user_id).toBe(user.user_id);
  });

  it('a user condition fails with AUTH_REQUIRED without auth, and auth without a token is refused', async () => {
    const anonymous = await rejection(svc.consumeTicket({ ticket_id: 'verified-only', method: 'POST' }));
    expect(anonymous.code).toBe('AUTH_REQUIRED');
    const noToken = await rejection(svc.consumeTicket({ ticket_id: 'verified-only', method: 'POST', auth: true }));
    expect(noToken.code).toBe('AUTH_REQUIRED');
    expect(ticketErrorOf(noToken).stage).toBe('ticket');
  });

  it('a verified token failing the user row is CONDITION_FAILED; a token that does not verify is AUTH_REQUIRED', async () => {
    const unverified = await worker.mintUser({ email_verified: false });
    const client = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: unverified.id_token });
    expect((await rejection(client.consumeTicket({ ticket_id: 'verified-only', method: 'POST', auth: true }))).code).toBe('CONDITION_FAILED');
    client.setIdToken(`${unverified.id_token.slice(0, -4)}AAAA`);
    expect((await rejection(client.consumeTicket({ ticket_id: 'verified-only', method: 'POST', auth: true }))).code).toBe('AUTH_REQUIRED');
  });

  it('a return200 ticket answers its failure with 200 and the client still rejects', async () => {
    const raw = await fetch(`${worker.url}/tp/${worker.project.service_id}/quiet-refusal`, { method: 'POST', body: '{"ok":false}' });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition' });
    const err = await rejection(svc.consumeTicket({ ticket_id: 'quiet-refusal', method: 'POST', data: { ok: false } }));
    expect(err).toMatchObject({ code: 'CONDITION_FAILED', status: 200 });
    expect(ticketErrorOf(err).detail).toEqual({ field: 'body', keys: ['ok'] });
    await expect(svc.consumeTicket({ ticket_id: 'quiet-refusal', method: 'POST', data: { ok: true } })).resolves.toMatchObject({ ticket_id: 'quiet-refusal' });
  });

  it('an unknown ticket rejects with TICKET_NOT_FOUND and count 0 with TICKET_EXHAUSTED', async () => {
    const missing = await rejection(svc.consumeTicket({ ticket_id: 'no-such-ticket', method: 'POST' }));
    expect(ticketErrorOf(missing)).toMatchObject({ code: 'TICKET_NOT_FOUND', stage: 'ticket', ticket_id: 'no-such-ticket' });
    await svc.consumeTicket({ ticket_id: 'one-left', method: 'POST' });
    expect((await rejection(svc.consumeTicket({ ticket_id: 'one-left', method: 'POST' }))).code).toBe('TICKET_EXHAUSTED');
  });

  it('concurrent consumptions beyond the batch size all complete and each takes one count', async () => {
    await worker.registerTicket('sixty', { count: 60, actions: [] });
    const batched = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, batchSize: 8 });
    const receipts: TicketReceipt[] = await Promise.all(Array.from({ length: 60 }, () => batched.consumeTicket({ ticket_id: 'sixty', method: 'POST' })));
    expect(new Set(receipts.map((r) => r.consume_id)).size).toBe(60);
    expect((await rejection(batched.consumeTicket({ ticket_id: 'sixty', method: 'POST' }))).code).toBe('TICKET_EXHAUSTED');
  });
});

describe('resp answers against the Worker', () => {
  it('a body a resp action composed resolves as sent, whatever its status', async () => {
    expect(await svc.consumeTicket({ ticket_id: 'greeter', method: 'POST', data: { name: 'Ada' } })).toEqual({ greeting: 'hi Ada' });
    expect(await svc.consumeTicket({ ticket_id: 'paywall', method: 'POST' })).toEqual({ code: 'PAY_FIRST', message: 'Payment required.' });
  });

  it('a resp with no body answers the receipt, which resolves as a TicketReceipt', async () => {
    const receipt = await svc.consumeTicket({ ticket_id: 'resp-receipt', method: 'POST' });
    expect(receipt).toMatchObject({ ticket_id: 'resp-receipt', is_test: false });
    expect(receipt.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('bodiless resp answers against the Worker', () => {
  const owner = () => new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
  const remaining = async (ticketId: string) => (await owner().getTickets({ ticket_id: ticketId })).list.find((t) => t.ticket_id === ticketId)?.count;

  // 304 goes through GET /tg, 204 and 205 through POST /tp: both consume paths meet the bodiless answer.
  for (const [status, method] of [
    [204, 'POST'],
    [205, 'POST'],
    [304, 'GET'],
  ] as const) {
    it(`a resp with status ${status} answers no body: consumeTicket resolves undefined and the count is taken`, async () => {
      const ticketId = `bodiless-${status}`;
      await worker.registerTicket(ticketId, { count: 3, actions: [{ act: 'resp', exe: { status } }] });
      const raw = await fetch(`${worker.url}/${method === 'GET' ? 'tg' : 'tp'}/${worker.project.service_id}/${ticketId}`, {
        method,
        headers: { origin: 'https://shop.example' },
      });
      expect(raw.status).toBe(status);
      expect(await raw.text()).toBe('');
      expect(raw.headers.get('access-control-allow-origin')).toBe('*'); // else a browser could not read the success
      expect(await remaining(ticketId)).toBe(2);
      const answer: undefined = await svc.consumeTicket<undefined>({ ticket_id: ticketId, method });
      expect(answer).toBeUndefined();
      expect(await remaining(ticketId)).toBe(1);
    });
  }

  it('a resp body of JSON null resolves null, not undefined', async () => {
    await worker.registerTicket('resp-null', { actions: [{ act: 'resp', exe: { status: 200, body: null } }] });
    expect(await svc.consumeTicket<null>({ ticket_id: 'resp-null', method: 'POST' })).toBeNull();
  });
});

describe('getConsumedTickets and clearTicketLog against the Worker', () => {
  it("getConsumedTickets lists the caller's own signed-in consumptions", async () => {
    await worker.registerTicket('members', { actions: [] });
    const user = await worker.mintUser();
    const client = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token });
    const receipt = await client.consumeTicket({ ticket_id: 'members', method: 'POST', auth: true });
    await svc.consumeTicket({ ticket_id: 'members', method: 'POST' }); // anonymous: never listed
    await expect
      .poll(async () => (await client.getConsumedTickets({ ticket_id: 'members' })).list.map((row) => row.consume_id), { timeout: 15_000, interval: 300 })
      .toEqual([receipt.consume_id]);
    const [row] = (await client.getConsumedTickets({ ticket_id: 'members' })).list;
    expect(row).toMatchObject({ ticket_id: 'members', consume_id: receipt.consume_id, user_id: user.user_id, is_test: false, timestamp: receipt.timestamp });
    expect(JSON.parse(row.description).outcome.ok).toBe(true);
  });

  it('clearTicketLog answers the time applied, clipped to now, for the owner only', async () => {
    const owner = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
    const before = Date.now();
    const result = await owner.clearTicketLog({ ticket_id: 'open', before: Date.now() + 3_600_000 });
    expect(result).toMatchObject({ message: 'SUCCESS: Clearing the log.', ticket_id: 'open' });
    expect(result.before).toBeGreaterThanOrEqual(before);
    expect(result.before).toBeLessThanOrEqual(Date.now());
    const user = await worker.mintUser();
    const err = await rejection(
      new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token }).clearTicketLog({ ticket_id: 'open' }),
    );
    expect(err.status).toBe(403);
  });
});

describe('CORS', () => {
  it("a preflight from another origin is allowed with the asked headers; Retry-After and a forwarded answer's status and id are exposed", async () => {
    const res = await fetch(`${worker.url}/tpa/${worker.project.service_id}/open`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    const answer = await fetch(`${worker.url}/tp/${worker.project.service_id}/no-such-ticket`, { method: 'POST', headers: { origin: 'https://shop.example' } });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toBe('Retry-After,x-svc-status-code,x-svc-request-id');
  });
});

describe('getTickets against the Worker', () => {
  it('a signed-in user lists the public fields; the owner also sees the owner-only fields', async () => {
    const user = await worker.mintUser();
    const client = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: user.id_token });
    const asUser = await client.getTickets({ ticket_id: 'big-order' });
    expect(asUser.list).toHaveLength(1);
    expect(Object.keys(asUser.list[0]).sort()).toEqual(['description', 'ticket_id', 'timestamp']);
    client.setIdToken(worker.project.owner_key);
    const asOwner = await client.getTickets({ ticket_id: 'big-order' });
    expect(asOwner.list[0]).toMatchObject({ ticket_id: 'big-order', condition: { method: 'POST' }, actions: [], rules_version: 2 });
  });

  it('pages with fetchOptions limit and startKey', async () => {
    const client = new Svc({ serviceId: worker.project.service_id, baseUrl: worker.url, idToken: worker.project.owner_key });
    const first = await client.getTickets({}, { limit: 2 });
    expect(first.list).toHaveLength(2);
    expect(first.endOfList).toBe(false);
    const second = await client.getTickets({}, { limit: 2, startKey: first.startKey });
    expect(second.list.map((t) => t.ticket_id)).not.toContain(first.list[0].ticket_id);
  });

  it('signed out, the listing is refused with the server code', async () => {
    const err = await rejection(svc.getTickets());
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
