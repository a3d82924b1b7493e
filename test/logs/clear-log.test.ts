import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Env, WorkMessage } from '../../src/env';
import { CLEAR_LOG_KIND, SWEEP_DELAY_SECONDS, clearLogChunks, clearLogJob } from '../../src/ticket-log/clear-log';
import { DELETE_CHUNK } from '../../src/ticket-log/delete-rows';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, countRows, eventually, flushLogs, getTickets, writeLogRow } from './log-helpers';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const clearLog = (ticketId: string, body?: unknown, token = project.owner_key) =>
  call('POST', `/v1/projects/${project.service_id}/tickets/${ticketId}/clear-log`, { token, ...(body === undefined ? {} : { body }) });

const action = (seq: number) => ({ seq, path: `actions[${seq}]`, act: 'req', detail: { sent: {} } });

describe('clearTicketLog', () => {
  it('answers SUCCESS with the time applied, then deletes the consumption and action rows before it in the background', async () => {
    await writeLogRow(project.service_id, 'history', 'HISTold00001', 1_000, {}, [action(0), action(1)]);
    await writeLogRow(project.service_id, 'history', 'HISTmid00002', 2_000, {}, [action(0)]);
    await writeLogRow(project.service_id, 'history', 'HISTnew00003', 3_000, {}, [action(0)]);
    await writeLogRow(project.service_id, 'neighbour', 'NEIGHold0001', 1_000, {}, [action(0)]);

    const res = await clearLog('history', { before: 2_000 });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: 'SUCCESS: Clearing the log.', ticket_id: 'history', before: 2_000 });

    await eventually(async () => (await countRows(project.service_id, 'history')).logs === 2);
    const left = (await getTickets(project, { ticket_id: '#history#' })).json.list.map((r: any) => r.consume_id);
    expect(left).toEqual(['HISTnew00003', 'HISTmid00002']);
    expect(await countRows(project.service_id, 'history')).toEqual({ logs: 2, actions: 2 });
    expect(await countRows(project.service_id, 'neighbour')).toEqual({ logs: 1, actions: 1 });
  });

  it('before defaults to now; the ticket, its remaining count and per-user limits are unchanged', async () => {
    await registerTicket(project, 'counted', { count: 5, limit_per_user: 1, actions: [] });
    const user = await mintUser(project);
    expect((await call('POST', `/tpa/${project.service_id}/counted`, { token: user.id_token, body: {} })).json.tkid).toBeDefined();
    expect((await call('POST', `/tp/${project.service_id}/counted`, { body: {}, headers: anonymousHeaders })).json.tkid).toBeDefined();
    await flushLogs(project.service_id, 'counted');
    expect((await countRows(project.service_id, 'counted')).logs).toBe(2);

    const before = Date.now();
    const res = await clearLog('counted');
    expect(res.json.before).toBeGreaterThanOrEqual(before);
    expect(res.json.before).toBeLessThanOrEqual(Date.now());
    await eventually(async () => (await countRows(project.service_id, 'counted')).logs === 0);

    expect((await ticketStub(env, project.service_id, 'counted').status()).remaining).toBe(3);
    expect((await getTickets(project, { ticket_id: 'counted' })).json.list[0]).toMatchObject({ ticket_id: 'counted', count: 3 });
    const again = await call('POST', `/tpa/${project.service_id}/counted`, { token: user.id_token, body: {} });
    expect(again.json.code).toBe('USER_LIMIT_REACHED');
  });

  it('a before later than now is clipped to now', async () => {
    const future = Date.now() + 86_400_000;
    const res = await clearLog('anything', { before: future });
    expect(res.status).toBe(200);
    expect(res.json.before).toBeLessThan(future);
    expect(res.json.before).toBeLessThanOrEqual(Date.now());
  });

  it('a before that is not a time in ms since the epoch is INVALID_PARAMETER naming before', async () => {
    for (const before of ['yesterday', '1700000000000', -1, 1.5, true, {}]) {
      const res = await clearLog('history', { before });
      expect(res.json, JSON.stringify(before)).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'before' } });
    }
  });

  it('only the project owner can clear a log (a signed-in user gets 403, nobody 401)', async () => {
    const user = await mintUser(project);
    expect((await clearLog('history', {}, user.id_token)).status).toBe(403);
    const anonymous = await call('POST', `/v1/projects/${project.service_id}/tickets/history/clear-log`, { body: {} });
    expect(anonymous.status).toBe(401);
  });

  it('an id that is not a ticket id is INVALID_PARAMETER', async () => {
    const res = await clearLog('%23history%23', {});
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'ticket_id' } });
  });
});

describe('the clear-log job', () => {
  it(`deletes in chunks of ${DELETE_CHUNK} and reports whether rows may remain`, async () => {
    const stmts = Array.from({ length: DELETE_CHUNK + 100 }, (_, i) =>
      env.DB.prepare(
        `INSERT INTO ticket_logs (service_id, ticket_id, log_key, consume_id, user_id, signed, is_check, failed, code, timestamp, description)
         VALUES (?1, 'bulk', ?2, ?2, 'x', 0, 0, 0, NULL, ?3, '{}')`,
      ).bind(project.service_id, `BULK${i}`, 100 + i),
    );
    await env.DB.batch(stmts);
    const scope = { service_id: project.service_id, ticket_id: 'bulk', before: 1_000_000 };
    expect(await clearLogChunks(env.DB, scope, 1)).toBe(true);
    expect((await countRows(project.service_id, 'bulk')).logs).toBe(100);
    expect(await clearLogChunks(env.DB, scope, 1)).toBe(false);
    expect((await countRows(project.service_id, 'bulk')).logs).toBe(0);
  });

  it('a clear of recent rows runs once more later, so a row exported after the first run is cleared too', async () => {
    const queued: { body: WorkMessage; delaySeconds?: number }[] = [];
    const recordingEnv = {
      ...env,
      WORK_QUEUE: { send: async (body: WorkMessage, options?: { delaySeconds?: number }) => void queued.push({ body, ...options }) },
    } as unknown as Env;
    const before = Date.now();
    await writeLogRow(project.service_id, 'late', 'LATEa0000001', before - 10, {}, [action(0)]);
    await clearLogJob({ kind: CLEAR_LOG_KIND, service_id: project.service_id, ticket_id: 'late', before }, recordingEnv);
    expect(await countRows(project.service_id, 'late')).toEqual({ logs: 0, actions: 0 });
    expect(queued).toEqual([
      { body: { kind: CLEAR_LOG_KIND, service_id: project.service_id, ticket_id: 'late', before, sweep: true }, delaySeconds: SWEEP_DELAY_SECONDS },
    ]);

    // The row of a consumption made just before the clear lands after it; the sweep removes it, and stops there.
    await writeLogRow(project.service_id, 'late', 'LATEb0000002', before - 5, {}, [action(0)]);
    await writeLogRow(project.service_id, 'late', 'LATEc0000003', before + 5, {}, []);
    await clearLogJob(queued[0].body, recordingEnv);
    expect(await countRows(project.service_id, 'late')).toEqual({ logs: 1, actions: 0 });
    expect(queued).toHaveLength(1);
  });

  it('a clear of old rows only is not run again', async () => {
    const queued: WorkMessage[] = [];
    const recordingEnv = { ...env, WORK_QUEUE: { send: async (body: WorkMessage) => void queued.push(body) } } as unknown as Env;
    await clearLogJob({ kind: CLEAR_LOG_KIND, service_id: project.service_id, ticket_id: 'old-only', before: 5_000 }, recordingEnv);
    expect(queued).toEqual([]);
  });

  it('is idempotent: the same message delivered twice deletes once and then finds nothing', async () => {
    await writeLogRow(project.service_id, 'twice', 'TWICEa000001', 1_000, {}, [action(0)]);
    await writeLogRow(project.service_id, 'twice', 'TWICEb000002', 9_000, {}, [action(0)]);
    const message = { kind: CLEAR_LOG_KIND, service_id: project.service_id, ticket_id: 'twice', before: 5_000 };
    await clearLogJob(message, env);
    await clearLogJob(message, env);
    expect(await countRows(project.service_id, 'twice')).toEqual({ logs: 1, actions: 1 });
  });
});
