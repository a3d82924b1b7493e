import { SIGNATURE_PRESETS } from '../../schemas/signature-presets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { eventually, flushLogs } from '../logs/log-helpers';
import { callTool, connectClient, ownerSession, textOf } from './mcp-helpers';
import { consumePost, runJobs, settle } from '../actions/run-support';
import { forward, origin, settledEnvelope } from '../forward/support';

const PAID_ONLY = { description: 'paid only', count: 5, condition: { body: [{ key: 'kind', operator: '=', value: 'paid' }] }, actions: [] };
const NOTES = {
  description: 'notes',
  count: 10,
  actions: [{ act: 'pstr', exe: { table: { name: 'notes', access_group: 'admin' }, data: { text: '${body[text]}' } } }],
};

describe('the MCP tools, driven by the SDK client in workerd', () => {
  const session = ownerSession();

  it('lists every tool, each with an object input schema and a description an agent can act on', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'check_ticket',
        'clear_log',
        'delete_ticket',
        'diagnose_signature',
        'match_signature_preset',
        'get_ticket',
        'list_dead_letters',
        'list_ticket_dead_letters',
        'replay_dead_letter',
        'bulk_replay',
        'bulk_replay_status',
        'cancel_bulk_replay',
        'get_metrics',
        'get_forward_metrics',
        'list_paused_destinations',
        'list_secret_keys',
        'list_signature_presets',
        'list_tickets',
        'read_consumption',
        'read_log',
        'register_ticket',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
    }
    const check = tools.find((t) => t.name === 'check_ticket')!;
    expect(check.inputSchema.required).toEqual(['ticket_id']);
    expect(Object.keys(check.inputSchema.properties ?? {}).sort()).toEqual(['body', 'headers', 'ip', 'method', 'query', 'ticket_id', 'user_id']);
  });

  it('register_ticket stores a good ticket and answers it as the owner lists it', async () => {
    const result = await callTool(session.client, 'register_ticket', { ticket_id: 'paid-only', ticket: PAID_ONLY });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticket_id: 'paid-only', description: 'paid only', count: 5, rules_version: 2 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('register_ticket and get_ticket carry the retry schedule (extension) with its defaults filled in', async () => {
    const ticket = { ...PAID_ONLY, retry_schedule: { delays: ['10s', '1h'] } };
    const result = await callTool(session.client, 'register_ticket', { ticket_id: 'scheduled', ticket });
    expect(result.isError, textOf(result)).toBeFalsy();
    const stored = { delays: ['10s', '1h'], within: '3d', attempts: 3, on: { statuses: [408, 429, '5xx'], network: true, timeout: true } };
    expect(result.structuredContent).toMatchObject({ ticket_id: 'scheduled', retry_schedule: stored });
    expect((await callTool(session.client, 'get_ticket', { ticket_id: 'scheduled' })).structuredContent).toMatchObject({ retry_schedule: stored });
  });

  it('register_ticket refuses a bad ticket with the registry INVALID_PARAMETER message naming the field path', async () => {
    const bad = {
      actions: [
        { act: 'pstr', exe: { table: { name: 'notes', access_group: 'admin' }, data: { text: 'x' } } },
        { act: 'nope', exe: {} },
      ],
    };
    const result = await callTool(session.client, 'register_ticket', { ticket_id: 'bad', ticket: bad });
    const direct = await call('PUT', `/v1/projects/${session.project.service_id}/tickets/bad`, { token: session.project.owner_key, body: bad });
    expect(result.isError).toBe(true);
    expect(direct.status).toBe(400);
    expect(result.structuredContent).toEqual(direct.json);
    expect(result.structuredContent).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('actions[1]') });
    expect(textOf(result)).toBe(`INVALID_PARAMETER: ${direct.json.message}`);
    const listed = await callTool(session.client, 'get_ticket', { ticket_id: 'bad' });
    expect(listed.structuredContent).toMatchObject({ code: 'TICKET_NOT_FOUND' });
  });

  it('get_ticket and list_tickets answer the stored ticket; a missing one is TICKET_NOT_FOUND', async () => {
    const one = await callTool(session.client, 'get_ticket', { ticket_id: 'paid-only' });
    expect(one.isError, textOf(one)).toBeFalsy();
    expect(one.structuredContent).toMatchObject({ ticket_id: 'paid-only', count: 5, registered_count: 5, condition: PAID_ONLY.condition });
    const page = await callTool(session.client, 'list_tickets', { limit: 100 });
    expect((page.structuredContent as any).list.map((t: any) => t.ticket_id)).toContain('paid-only');
    const missing = await callTool(session.client, 'get_ticket', { ticket_id: 'never-registered' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'TICKET_NOT_FOUND', message: 'The ticket does not exist.' } });
  });

  it('check_ticket dry-runs a sample request: a passing one and a failing one, using no count', async () => {
    const passing = await callTool(session.client, 'check_ticket', { ticket_id: 'paid-only', body: { kind: 'paid' } });
    expect(passing.isError, textOf(passing)).toBeFalsy();
    expect(passing.structuredContent).toMatchObject({ ticket_id: 'paid-only', passed: true });
    const failing = await callTool(session.client, 'check_ticket', {
      ticket_id: 'paid-only',
      body: { kind: 'refund' },
      headers: { 'x-test': '1' },
      query: { a: ['1', '2'] },
    });
    expect(failing.isError, textOf(failing)).toBeFalsy();
    expect(failing.structuredContent).toMatchObject({
      ticket_id: 'paid-only',
      passed: false,
      status: 400,
      error: { code: 'CONDITION_FAILED', stage: 'condition' },
    });
    const after = await callTool(session.client, 'get_ticket', { ticket_id: 'paid-only' });
    expect(after.structuredContent).toMatchObject({ count: 5 });
    const unknownUser = await callTool(session.client, 'check_ticket', { ticket_id: 'paid-only', user_id: 'no-such-user' });
    expect(unknownUser).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER', message: expect.stringContaining('user_id') } });
  });

  it('read_log lists a consumption made over HTTP; read_consumption its action rows; clear_log empties the log', async () => {
    expect((await callTool(session.client, 'register_ticket', { ticket_id: 'notes', ticket: NOTES })).isError).toBeFalsy();
    const consumed = await call('POST', `/tp/${session.project.service_id}/notes`, { body: { text: 'hello' } });
    expect(consumed.status).toBe(200);
    await flushLogs(session.project.service_id, 'notes');

    const log = await callTool(session.client, 'read_log', { ticket_id: 'notes', limit: 10 });
    expect(log.isError, textOf(log)).toBeFalsy();
    const rows = (log.structuredContent as any).list;
    expect(rows).toEqual([expect.objectContaining({ ticket_id: 'notes', user_id: expect.any(String), consume_id: expect.any(String) })]);

    const actions = await callTool(session.client, 'read_consumption', { ticket_id: 'notes', consume_id: rows[0].consume_id });
    expect(actions.isError, textOf(actions)).toBeFalsy();
    expect((actions.structuredContent as any).list).toEqual([expect.objectContaining({ act: 'pstr' })]);

    const cleared = await callTool(session.client, 'clear_log', { ticket_id: 'notes' });
    expect(cleared.structuredContent).toMatchObject({ message: 'SUCCESS: Clearing the log.', ticket_id: 'notes' });
    await eventually(async () => ((await callTool(session.client, 'read_log', { ticket_id: 'notes' })).structuredContent as any).list.length === 0);
  });

  it('delete_ticket deletes; a second delete is TICKET_NOT_FOUND', async () => {
    await callTool(session.client, 'register_ticket', { ticket_id: 'short-lived', ticket: { actions: [] } });
    expect((await callTool(session.client, 'delete_ticket', { ticket_id: 'short-lived' })).structuredContent).toEqual({
      deleted: true,
      ticket_id: 'short-lived',
    });
    expect(await callTool(session.client, 'delete_ticket', { ticket_id: 'short-lived' })).toMatchObject({
      isError: true,
      structuredContent: { code: 'TICKET_NOT_FOUND' },
    });
  });

  it('list_secret_keys answers the names and settings, never a value', async () => {
    await putSecret(session.project, 'mcp-listed', 'value-that-must-not-show-4f1c');
    const result = await callTool(session.client, 'list_secret_keys');
    expect((result.structuredContent as any).list).toEqual([expect.objectContaining({ name: 'mcp-listed', locked: false })]);
    expect(JSON.stringify(result)).not.toContain('value-that-must-not-show-4f1c');
  });

  it('list_paused_destinations answers what the owner route answers: the origin whose circuit five failures opened', async () => {
    const url = `${origin}/fail/${crypto.randomUUID()}/1000/500`;
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await forward(session.project, { url, method: 'GET', queue: 'mcp-circuit', retry: true }));
    for (const one of sent) await settledEnvelope(session.project, { id: one.json.id, url, method: 'GET' });
    const direct = () => call('GET', `/v1/projects/${session.project.service_id}/destinations`, { token: session.project.owner_key });
    await eventually(async () => (await direct()).json.list.length === 1);
    const result = await callTool(session.client, 'list_paused_destinations');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual((await direct()).json);
    expect(result.structuredContent).toMatchObject({ list: [{ origin: new URL(origin).origin, state: 'open', failures: 5 }] });
  });

  it('list_dead_letters answers what the owner route answers: a request sent with retry that settled 500, with why', async () => {
    const url = `${origin}/fail/${crypto.randomUUID()}/5/500`;
    const sent = await forward(session.project, { url, method: 'GET', queue: 'mcp-dead-letter', retry: true });
    await settledEnvelope(session.project, { id: sent.json.id, url, method: 'GET' });
    const direct = () =>
      call('GET', `/v1/projects/${session.project.service_id}/forward/dead-letters?reason=error_status`, { token: session.project.owner_key });
    await eventually(async () => (await direct()).json.list.some((item: { id: string }) => item.id === sent.json.id));
    const result = await callTool(session.client, 'list_dead_letters', { reason: 'error_status' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual((await direct()).json);
    expect((result.structuredContent as any).list).toContainEqual(
      expect.objectContaining({ id: sent.json.id, reason: 'error_status', status_code: 500, attempts: 1, what: `GET ${url}` }),
    );
    const refused = await callTool(session.client, 'list_dead_letters', { caller: '' });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER', detail: { field: 'caller' } } });
  });

  it('list_signature_presets answers the presets of schemas/signature-presets.ts', async () => {
    const result = await callTool(session.client, 'list_signature_presets');
    const presets = (result.structuredContent as any).presets;
    expect(presets.map((p: any) => p.id)).toEqual(SIGNATURE_PRESETS.map((p) => p.id));
    expect(presets.map((p: any) => p.id)).toEqual(expect.arrayContaining(['stripe', 'svix', 'zoom', 'twitch', 'calendly', 'gitlab', 'postmark']));
    expect(presets[0].signature).toMatchObject({ header: 'Stripe-Signature', algorithm: 'sha256' });
    const zoom = presets.find((p: any) => p.id === 'zoom');
    expect(zoom).toMatchObject({ name: 'Zoom', handshake: 'zoom', docs: expect.stringMatching(/^https:\/\/developers\.zoom\.us\//) });
    expect((result.structuredContent as any).handshakes.zoom).toContain('encryptedToken');
  });

  it('list_signature_presets with an id that does not exist: a refusal naming it, never a 500', async () => {
    const result = await callTool(session.client, 'list_signature_presets', { id: 'stripe-v9' });
    expect(result).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER' } });
    expect(JSON.stringify(result)).toContain('no signature preset \\"stripe-v9\\"');
    const one = await callTool(session.client, 'list_signature_presets', { id: 'svix' });
    expect((one.structuredContent as any).presets).toEqual([
      expect.objectContaining({ id: 'svix', signature: expect.objectContaining({ header: 'svix-signature' }) }),
    ]);
  });

  it('registers a ticket through condition.preset; an unknown preset id is refused naming it', async () => {
    await putSecret(session.project, 'mcp-svix', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const ok = await callTool(session.client, 'register_ticket', {
      ticket_id: 'clerk-users',
      ticket: { condition: { preset: { id: 'svix', secretName: 'mcp-svix' } }, actions: [] },
    });
    expect(ok.isError).toBeFalsy();
    const bad = await callTool(session.client, 'register_ticket', {
      ticket_id: 'clerk-bad',
      ticket: { condition: { preset: { id: 'clerk', secretName: 'mcp-svix' } }, actions: [] },
    });
    expect(bad).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER' } });
    expect(JSON.stringify(bad)).toContain('no signature preset');
    expect(JSON.stringify(bad)).not.toContain('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  });
});

describe("the MCP tools over a ticket's dead letters and bulk replays (extension), against the real Worker", () => {
  let project: TestProject;
  let client: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    project = await createProject({ plan: 'standard' });
    client = await connectClient(project.owner_key);
  });
  afterAll(async () => {
    await client?.close();
  });
  const owner = (method: string, path: string, body?: unknown) =>
    call(method, `/v1/projects/${project.service_id}/tickets/mcp-dl${path}`, { token: project.owner_key, ...(body ? { body } : {}) });

  it('list_ticket_dead_letters, bulk_replay, replay_dead_letter, bulk_replay_status and cancel_bulk_replay answer what the owner routes answer', async () => {
    // The destination fails the run's two attempts with 500, then recovers: a dead letter the replay clears.
    const key = crypto.randomUUID();
    await registerTicket(project, 'mcp-dl', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/2/500` } },
      ],
      retry_schedule: { delays: ['1s'], attempts: 2 },
    });
    await consumePost(project, 'mcp-dl', { n: 1 });
    await runJobs(project, 'mcp-dl');

    const listed = await callTool(client, 'list_ticket_dead_letters', { ticket_id: 'mcp-dl', reason: 'error_status' });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expect(listed.structuredContent).toEqual((await owner('GET', '/dead-letters?reason=error_status')).json);
    const [letter] = (listed.structuredContent as any).list;
    expect(letter).toMatchObject({ kind: 'ticket', reason: 'error_status', status_code: 500, ticket: { ticket_id: 'mcp-dl', path: 'actions[1]' } });

    const counted = await callTool(client, 'bulk_replay', { ticket_id: 'mcp-dl', filter: { dead_letters: true }, dry_run: true });
    expect(counted.structuredContent).toMatchObject({ dry_run: true, matched: 1 });
    const badFilter = await callTool(client, 'bulk_replay', { ticket_id: 'mcp-dl', filter: { dead_letters: true, outcome: 'ok' }, dry_run: true });
    expect(badFilter).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER' } });

    const replayed = await callTool(client, 'replay_dead_letter', { ticket_id: 'mcp-dl', consume_id: letter.id });
    expect(replayed.structuredContent).toMatchObject({ ticket_id: 'mcp-dl', replay_of: letter.id, partial: true, ok: true, status: 200 });
    expect((await owner('GET', '/dead-letters')).json.list).toEqual([]);
    const again = await callTool(client, 'replay_dead_letter', { ticket_id: 'mcp-dl', consume_id: letter.id });
    expect(again).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });
    await settle(project, 'mcp-dl');

    // Two entries at one a minute: the replay is still running when it is cancelled.
    const started = await callTool(client, 'bulk_replay', { ticket_id: 'mcp-dl', filter: { outcome: 'any' }, per_minute: 1 });
    expect(started.structuredContent).toMatchObject({ dry_run: false, replay: { state: 'running', total: 2, per_minute: 1, full: false } });
    const id = (started.structuredContent as any).replay.id;
    const cancelled = await callTool(client, 'cancel_bulk_replay', { ticket_id: 'mcp-dl', replay_id: id });
    expect(cancelled.structuredContent).toMatchObject({ id, state: 'cancelled' });
    const one = await callTool(client, 'bulk_replay_status', { ticket_id: 'mcp-dl', replay_id: id });
    expect(one.structuredContent).toEqual((await owner('GET', `/replays/${id}`)).json);
    const all = await callTool(client, 'bulk_replay_status', { ticket_id: 'mcp-dl' });
    expect(all.structuredContent).toEqual({ list: [expect.objectContaining({ id, state: 'cancelled' })] });
    const ended = await callTool(client, 'cancel_bulk_replay', { ticket_id: 'mcp-dl', replay_id: id });
    expect(ended).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_REQUEST' } });
  });

  it('get_metrics and get_forward_metrics answer what the metrics routes answer; a bad range is refused by the tool schema', async () => {
    await registerTicket(project, 'mcp-metrics', { actions: [] });
    await consumePost(project, 'mcp-metrics', { n: 1 });
    await runJobs(project, 'mcp-metrics', 'flush-metrics');
    await runJobs(project, 'mcp-metrics', 'report-metrics');
    const ticket = await callTool(client, 'get_metrics', { ticket_id: 'mcp-metrics', range: '1h' });
    expect(ticket.isError, textOf(ticket)).toBeFalsy();
    expect((ticket.structuredContent as any).totals).toMatchObject({ consumptions: 1, succeeded: 1 });
    expect((ticket.structuredContent as any).bucket_ms).toBe(60_000);
    const whole = await callTool(client, 'get_metrics', {});
    expect((whole.structuredContent as any).totals.consumptions).toBeGreaterThanOrEqual(1);
    const forwarded = await callTool(client, 'get_forward_metrics', { by: 'destination', range: '7d' });
    expect(forwarded.structuredContent).toMatchObject({ by: 'destination', bucket_ms: 21_600_000 });
    const bad = await callTool(client, 'get_metrics', { range: '2w' });
    expect(bad.isError).toBe(true);
  });
});
