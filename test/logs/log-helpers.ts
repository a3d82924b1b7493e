import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { logStatements } from '../../src/ticket-log/log-export';
import type { ActionRow } from '../../src/actions/types';
import type { LogRow } from '../../src/ticket-log/log-row';
import { call, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

/** Runs the TicketDO's pending exports to D1 now (the alarm would, 200 ms later). */
export async function flushLogs(serviceId: string, ticketId: string): Promise<void> {
  const stub = ticketStub(env, serviceId, ticketId);
  while ((await stub.pendingLogCount()) > 0) await runDurableObjectAlarm(stub);
}

export const anonymousHeaders = { 'cf-connecting-ip': '203.0.113.9', 'user-agent': 'test-agent' };

/** GET /v1/projects/{sid}/tickets with the given query, as `token` (the owner key by default). */
export function getTickets(project: TestProject, query: Record<string, string | number>, token: string | undefined = project.owner_key) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return call('GET', `/v1/projects/${project.service_id}/tickets?${search}`, { token });
}

/** A successful anonymous consumption's log row, keyed by its consume_id. */
export const logRow = (serviceId: string, ticketId: string, consumeId: string, timestamp: number, extra: Partial<LogRow> = {}): LogRow => ({
  service_id: serviceId,
  ticket_id: ticketId,
  log_key: consumeId,
  consume_id: consumeId,
  user_id: '198.51.100.1(writer)',
  signed: false,
  is_check: false,
  failed: false,
  code: null,
  timestamp,
  description: { outcome: { ok: true } },
  ...extra,
});

/** Writes a log row (and its action rows) straight to D1, as the TicketDO's export did before the log moved into it. */
export async function writeLogRow(
  serviceId: string,
  ticketId: string,
  consumeId: string,
  timestamp: number,
  extra: Partial<LogRow> = {},
  actions: ActionRow[] = [],
) {
  await env.DB.batch(logStatements(env.DB, logRow(serviceId, ticketId, consumeId, timestamp, extra), actions));
}

/** Every entry of a ticket's log as its object keeps it, oldest first, with its action rows. */
export const ticketLog = (serviceId: string, ticketId: string) => ticketStub(env, serviceId, ticketId).logEntries();

/** A ticket's log rows and action rows, wherever they are: its object's log, and D1 rows written the old way. */
export async function countRows(serviceId: string, ticketId: string): Promise<{ logs: number; actions: number }> {
  const logs = await env.DB.prepare('SELECT COUNT(*) AS n FROM ticket_logs WHERE service_id = ? AND ticket_id = ?')
    .bind(serviceId, ticketId)
    .first<{ n: number }>();
  const actions = await env.DB.prepare('SELECT COUNT(*) AS n FROM ticket_action_rows WHERE service_id = ? AND ticket_id = ?')
    .bind(serviceId, ticketId)
    .first<{ n: number }>();
  const entries = await ticketLog(serviceId, ticketId);
  return { logs: (logs?.n ?? 0) + entries.length, actions: (actions?.n ?? 0) + entries.reduce((n, e) => n + e.actions.length, 0) };
}

/** Polls until `check` holds (background work on the queue), or fails after `ms`. */
export async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
