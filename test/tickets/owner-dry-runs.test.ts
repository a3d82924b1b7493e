import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, OPERATOR_TOKEN, putSecret, registerTicket, type TestProject } from '../helpers/api';

// The owner's read of one ticket, the plan of a registration (nothing stored) and the dry run
// against a sample request (no action, no count): the routes the CLI and the MCP server stand on.
const SECRET = 'whsec_dry_run_5ec12e7';
const cryptoProvider = Stripe.createSubtleCryptoProvider();
const stripeHeader = (payload: string) =>
  Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET, timestamp: Math.floor(Date.now() / 1000), cryptoProvider });

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'stripe', SECRET);
});

const path = (rest: string) => `/v1/projects/${project.service_id}${rest}`;
const owner = (method: string, rest: string, body?: unknown) => call(method, path(rest), { token: project.owner_key, body });
const plan = (ticketId: string, body: unknown) => owner('POST', `/tickets/${ticketId}/plan`, body);
const check = (ticketId: string, sample?: unknown) => owner('POST', `/tickets/${ticketId}/check`, sample);

describe('GET /v1/owner: the owner key alone names its project', () => {
  it('answers the project of the key', async () => {
    const res = await call('GET', '/v1/owner', { token: project.owner_key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      service_id: project.service_id,
      owner_id: project.owner_id,
      name: '',
      plan: 'free',
      active: true,
      identity: null,
      secure_request_key_set: false,
      secure_request_destinations: [],
      flood_limits: { per_caller_per_ticket: 500, per_project: 10_000, tickets: {} },
    });
  });

  it('refuses no key, a wrong key and an id token with 401 UNAUTHORIZED, and never echoes the credential', async () => {
    const user = await mintUser(project);
    for (const token of [undefined, 'ok_not-a-real-key', user.id_token]) {
      const res = await call('GET', '/v1/owner', { token });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('UNAUTHORIZED');
      if (token) expect(res.text).not.toContain(token);
    }
  });

  it('refuses the key of a disabled project with SERVICE_DISABLED', async () => {
    const other = await createProject();
    await call('PATCH', `/v1/projects/${other.service_id}`, { token: OPERATOR_TOKEN, body: { active: false } });
    expect((await call('GET', '/v1/owner', { token: other.owner_key })).json.code).toBe('SERVICE_DISABLED');
  });
});

describe('GET …/tickets/{ticket_id}: one ticket with the count as registered', () => {
  it('shows what is left as count and what was registered as registered_count, kept by a blank count', async () => {
    await registerTicket(project, 'one', { count: 3, description: 'd', actions: [] });
    await call('POST', `/tp/${project.service_id}/one`, { body: {} });
    await registerTicket(project, 'one', { description: 'blank count keeps it', actions: [] });
    const res = await owner('GET', '/tickets/one');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ticket_id: 'one', description: 'blank count keeps it', count: 2, registered_count: 3, legacy: false });
  });

  it('answers 404 TICKET_NOT_FOUND for a ticket that does not exist, INVALID_PARAMETER for an impossible id', async () => {
    expect((await owner('GET', '/tickets/none-here')).json).toEqual({ code: 'TICKET_NOT_FOUND', message: 'The ticket does not exist.' });
    expect((await owner('GET', '/tickets/bad!id')).json.code).toBe('INVALID_PARAMETER');
  });

  it('is for the owner only', async () => {
    const user = await mintUser(project);
    expect((await call('GET', path('/tickets/one'), { token: user.id_token })).status).toBe(403);
  });
});

describe('POST …/tickets/{ticket_id}/plan: what a registration would change, nothing stored', () => {
  const body = { description: 'plan me', count: 5, condition: { method: 'POST' }, actions: [{ act: 'resp', exe: { status: 200, body: 'ok' } }] };

  it('plans a new ticket as create and stores nothing', async () => {
    const res = await plan('planned', body);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ticket_id: 'planned', change: 'create', current: null, proposed: { description: 'plan me', count: 5, rules: 'current' } });
    expect((await owner('GET', '/tickets/planned')).status).toBe(404);
  });

  it('plans the registered body again as none, with defaults filled in on both sides', async () => {
    await registerTicket(project, 'planned-same', body);
    const res = await plan('planned-same', body);
    expect(res.json.change).toBe('none');
    expect(res.json.current).toEqual(res.json.proposed);
    expect(res.json.proposed).toMatchObject({ limit_per_user: false, time_to_live: null });
  });

  it('plans a blank count as none: it keeps the registered count', async () => {
    await registerTicket(project, 'planned-blank', body);
    const { count: _, ...blank } = body;
    expect((await plan('planned-blank', blank)).json.change).toBe('none');
  });

  it('plans a changed field as update, showing the current and proposed definitions', async () => {
    await registerTicket(project, 'planned-change', body);
    const res = await plan('planned-change', { ...body, count: 7, description: 'changed' });
    expect(res.json.change).toBe('update');
    expect(res.json.current).toMatchObject({ count: 5, description: 'plan me' });
    expect(res.json.proposed).toMatchObject({ count: 7, description: 'changed' });
  });

  it('plans a legacy ticket as update even when its definition reads the same: saving applies the current rules', async () => {
    const imported = await owner('PUT', '/tickets/planned-legacy/legacy', { actions: [] });
    expect(imported.status).toBe(201);
    const res = await plan('planned-legacy', { actions: [] });
    expect(res.json.change).toBe('update');
    expect([res.json.current.rules, res.json.proposed.rules]).toEqual(['legacy', 'current']);
  });

  it('refuses a bad body exactly as the registration does, naming the field path', async () => {
    const bad = { actions: [{ act: 'resp', exe: { status: 'two hundred' } }] };
    const planned = await plan('planned-bad', bad);
    const registered = await owner('PUT', '/tickets/planned-bad', bad);
    expect(planned.status).toBe(400);
    expect(planned.json).toEqual(registered.json);
    expect(planned.json.message).toContain('actions[0].exe.status');
  });

  it('refuses an unknown secret as the registration does', async () => {
    const res = await plan('planned-secret', { condition: { signature: { secretName: 'nope', header: 'x-sig' } }, actions: [] });
    expect(res.json.code).toBe('INVALID_PARAMETER');
    expect(res.json.message).toContain('condition.signature.secretName');
    expect(res.json.detail).toEqual({ field: 'condition.signature.secretName' });
  });
});

describe('POST …/tickets/{ticket_id}/check: the condition judged against a sample request', () => {
  beforeAll(async () => {
    await registerTicket(project, 'sample', {
      count: 2,
      condition: {
        method: 'POST',
        headers: [{ key: 'x-source', operator: '=', value: 'billing' }],
        body: [{ key: 'type', operator: '=', value: 'paid' }],
        params: [{ key: 'tries', operator: '>=', value: 2 }],
      },
      actions: [{ act: 'resp', exe: { status: 200, body: 'ran' } }],
    });
  });
  const good = { headers: { 'X-Source': 'billing' }, body: { type: 'paid' }, query: { tries: '3' } };

  it('passes a matching sample, runs no action and uses no count', async () => {
    const res = await check('sample', good);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ticket_id: 'sample', passed: true, message: 'SUCCESS: Ticket check passed. No action taken.' });
    expect((await owner('GET', '/tickets/sample')).json.count).toBe(2);
  });

  it('fails a sample that misses one part, with the error a consumption would answer', async () => {
    const cases = [
      [{ ...good, headers: { 'x-source': 'shop' } }, 'headers'],
      [{ ...good, body: { type: 'refund' } }, 'body'],
      [{ ...good, query: { tries: '1' } }, 'params'],
    ] as const;
    for (const [sample, field] of cases) {
      const res = await check('sample', sample);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ ticket_id: 'sample', passed: false, status: 400, error: { code: 'CONDITION_FAILED', stage: 'condition' } });
      expect(JSON.stringify(res.json.error)).toContain(field);
    }
  });

  it('judges the method: a GET sample fails a POST-only ticket, and a GET carries no body', async () => {
    expect((await check('sample', { method: 'GET', query: { tries: '3' } })).json.error.code).toBe('METHOD_NOT_ALLOWED');
    const withBody = await check('sample', { method: 'GET', body: 'x' });
    expect(withBody.status).toBe(400);
    expect(withBody.json).toMatchObject({ code: 'INVALID_PARAMETER', message: 'Invalid "body": a GET request has no body.' });
  });

  it('verifies a signature over the sample body exactly as sent (a string is the raw text)', async () => {
    await registerTicket(project, 'signed-sample', {
      condition: {
        signature: {
          secretName: 'stripe',
          header: 'Stripe-Signature',
          separator: ',',
          parts: ['t=${timestamp}', 'v1=${signature}'],
          signed: '${timestamp}.${body}',
          timestamp: '${timestamp}',
        },
      },
      actions: [],
    });
    const payload = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded' });
    const header = await stripeHeader(payload);
    expect((await check('signed-sample', { body: payload, headers: { 'stripe-signature': header } })).json.passed).toBe(true);
    const respaced = await check('signed-sample', { body: payload.replace(':', ' : '), headers: { 'stripe-signature': header } });
    expect(respaced.json).toMatchObject({ passed: false, error: { code: 'CONDITION_FAILED', detail: { field: 'signature' } } });
    expect(JSON.stringify(respaced.json)).not.toContain(SECRET);
  });

  it('judges a user condition as the named project user on the signed-in route', async () => {
    await registerTicket(project, 'members', { condition: { user: [{ key: 'access_group', operator: '>=', value: 5 }] }, actions: [] });
    const member = await mintUser(project, { access_group: 7 });
    const guest = await mintUser(project, { access_group: 1 });
    expect((await check('members', { user_id: member.user_id })).json.passed).toBe(true);
    expect((await check('members', { user_id: guest.user_id })).json).toMatchObject({ passed: false, error: { code: 'CONDITION_FAILED' } });
    expect((await check('members', {})).json.passed).toBe(false);
  });

  it('refuses bad samples with the field named, and a missing ticket with 404', async () => {
    const cases: [unknown, string][] = [
      [{ user_id: 'nobody-here' }, 'user_id'],
      [{ method: 'PUT' }, 'method'],
      [{ headers: { 'bad header': 'x' } }, 'headers'],
      [{ headers: { 'x-a': 'line\r\nbreak' } }, 'headers'],
      [{ headers: { 'X-Svc-Ticket': 'x' } }, 'headers.x-svc-ticket'],
      [{ query: { a: 1 } }, 'query'],
      [{ ip: '999.1.1.1' }, 'ip'],
      [{ surprise: true }, 'surprise'],
    ];
    for (const [sample, field] of cases) {
      const res = await check('sample', sample);
      expect(res.status, JSON.stringify(sample)).toBe(400);
      expect(res.json.code).toBe('INVALID_PARAMETER');
      expect(res.json.message).toContain(field);
    }
    expect((await check('not-registered', {})).status).toBe(404);
    expect((await check('not-registered', {})).json.code).toBe('TICKET_NOT_FOUND');
  });
});
