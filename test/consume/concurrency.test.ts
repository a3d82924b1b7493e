import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { logStatements } from '../../src/ticket-log/log-export';
import { logRow } from '../logs/log-helpers';
import { call, createProject, mintUser, registerTicket } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

const codes = (results: { status: number; json: any }[]) => {
  const tally: Record<string, number> = {};
  for (const r of results) {
    const key = r.json?.tkid ? 'receipt' : r.json?.code;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return tally;
};

async function drainLogs(serviceId: string, ticketId: string) {
  const stub = ticketStub(env, serviceId, ticketId);
  while ((await stub.pendingLogCount()) > 0) await runDurableObjectAlarm(stub);
}

describe('concurrent consumptions never overspend', () => {
  it('200 concurrent consumptions of a ticket with count 50 yield exactly 50 receipts and 150 TICKET_EXHAUSTED', async () => {
    const project = await createProject();
    await registerTicket(project, 'fifty', { count: 50, actions: [] });
    const results = await Promise.all(Array.from({ length: 200 }, () => call('POST', `/tp/${project.service_id}/fifty`, { body: {} })));
    expect(codes(results)).toEqual({ receipt: 50, TICKET_EXHAUSTED: 150 });
    expect((await ticketStub(env, project.service_id, 'fifty').status()).remaining).toBe(0);

    await drainLogs(project.service_id, 'fifty');
    const rows = await ticketStub(env, project.service_id, 'fifty').logEntries();
    expect({ n: rows.length, d: new Set(rows.map((r) => r.consume_id)).size, f: rows.filter((r) => r.failed).length }).toEqual({ n: 200, d: 200, f: 150 });
  });

  it('200 concurrent consumptions by one user with limit_per_user 50 yield exactly 50 receipts and 150 USER_LIMIT_REACHED', async () => {
    const project = await createProject();
    await registerTicket(project, 'peruser', { limit_per_user: 50, actions: [] });
    const user = await mintUser(project);
    const results = await Promise.all(
      Array.from({ length: 200 }, () => call('POST', `/tpa/${project.service_id}/peruser`, { token: user.id_token, body: {} })),
    );
    expect(codes(results)).toEqual({ receipt: 50, USER_LIMIT_REACHED: 150 });
  });

  it('a repeated log export writes each row once', async () => {
    const row = logRow('svc-repeat', 't', 'abc123WXYZ', 1);
    const actions = [{ seq: 0, path: 'actions[0]', act: 'req', detail: { sent: {} } }];
    await env.DB.batch(logStatements(env.DB, row, actions));
    await env.DB.batch(logStatements(env.DB, row, actions));
    const logs = await env.DB.prepare("SELECT COUNT(*) AS n FROM ticket_logs WHERE service_id = 'svc-repeat'").first<{ n: number }>();
    const acts = await env.DB.prepare("SELECT COUNT(*) AS n FROM ticket_action_rows WHERE service_id = 'svc-repeat'").first<{ n: number }>();
    expect([logs?.n, acts?.n]).toEqual([1, 1]);
  });
});
