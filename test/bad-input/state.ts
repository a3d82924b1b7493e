/**
 * Everything a request could have stored for a project: its D1 rows in every table, what each watched
 * TicketDO holds (the ticket and its remaining count), and how many projects exist.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { forwardCaller } from '../../src/forward/caller';
import { forwardQueueStub, ticketStub } from '../../src/platform/object-stubs';

/** Every D1 table keyed by service_id (migrations/). */
const PROJECT_TABLES = [
  'projects',
  'users',
  'secret_keys',
  'mail_templates',
  'newsletters',
  'subscribers',
  'tickets',
  'ticket_logs',
  'ticket_action_rows',
  'user_consumptions',
  'log_tickets',
  'records',
  'record_grants',
  'usage_monthly',
  'mail_outbox',
  'mail_usage',
  'newsletter_sends',
  'newsletter_batches',
  'forward_callers',
  'forward_rate',
  'alert_rules',
  'alert_incidents',
] as const;

/** Tables without a rowid, in the order of their primary key. */
const ORDER: Partial<Record<(typeof PROJECT_TABLES)[number], string>> = {
  user_consumptions: '2, 3, 4, 5',
  log_tickets: '2',
  forward_callers: '2, 3',
  alert_rules: '2',
  alert_incidents: '2',
};

/** The caller the runner sends as when a case has no credential (runner.ts: its IP address and user agent). */
const VISITOR = { ip: '203.0.113.7', userAgent: 'bad-input-suite' };

export interface LogEntry {
  ticket_id: string;
  log_key: string;
  failed: number;
  code: string | null;
  is_check: number;
  /** For a minute's summary of failures past the sampling budget (issue 26 item 2): how many it counts. */
  more?: number;
}

export interface Snapshot {
  /** The rows of each table, as JSON text. */
  tables: Record<string, string>;
  /** The consumption log rows of the watched tickets (their objects' logs), readable. */
  logs: LogEntry[];
  /** What each watched TicketDO holds. */
  tickets: Record<string, { exists: boolean; remaining: number | null }>;
  projectCount: number;
  /** What the visitor's ForwardQueueDO holds: its requests, its waiting history changes and its history. */
  visitorQueue: string;
}

async function visitorQueue(serviceId: string): Promise<string> {
  const { key } = await forwardCaller({ kind: 'anonymous' }, VISITOR.ip, VISITOR.userAgent);
  return runInDurableObject(forwardQueueStub(env, { serviceId, callerKey: key }), (_instance, state) =>
    JSON.stringify(['requests', 'outbox', 'forward_requests', 'forward_bodies'].map((table) => state.storage.sql.exec(`SELECT * FROM ${table}`).toArray())),
  );
}

/** Runs each TicketDO's pending exports to D1 now (the per-user index of signed-in consumptions). */
async function flushLogs(serviceId: string, ticketIds: readonly string[]): Promise<void> {
  await Promise.all(
    ticketIds.map(async (ticketId) => {
      const stub = ticketStub(env, serviceId, ticketId);
      while ((await stub.pendingLogCount()) > 0) {
        if (!(await runDurableObjectAlarm(stub))) throw new Error(`log rows of ${ticketId} wait with no alarm set`);
      }
    }),
  );
}

export async function snapshot(serviceId: string, watchedTickets: readonly string[]): Promise<Snapshot> {
  await flushLogs(serviceId, watchedTickets);
  const statements = PROJECT_TABLES.map((table) =>
    env.DB.prepare(`SELECT * FROM ${table} WHERE service_id = ? ORDER BY ${ORDER[table] ?? 'rowid'}`).bind(serviceId),
  );
  const [count, ...results] = await env.DB.batch<Record<string, unknown>>([env.DB.prepare('SELECT COUNT(*) AS n FROM projects'), ...statements]);
  const tables: Record<string, string> = {};
  PROJECT_TABLES.forEach((table, i) => (tables[table] = JSON.stringify(results[i].results)));
  const logs = (await Promise.all(watchedTickets.map((id) => ticketStub(env, serviceId, id).logEntries())))
    .flat()
    .map(({ ticket_id, log_key, failed, code, is_check, description }) => {
      const more = (JSON.parse(description) as { sampled?: { more: number } }).sampled?.more;
      return { ticket_id, log_key, failed, code, is_check, ...(more === undefined ? {} : { more }) };
    });
  const tickets: Snapshot['tickets'] = {};
  await Promise.all(watchedTickets.map(async (id) => (tickets[id] = await ticketStub(env, serviceId, id).status())));
  return { tables, logs, tickets, projectCount: Number(count.results[0].n), visitorQueue: await visitorQueue(serviceId) };
}

/**
 * The log rows of `after` that `before` did not have, and the summaries whose count grew: a failure past
 * the ticket's sampling budget is counted in its minute's summary instead of kept whole (issue 26 item 2).
 */
export function newLogRows(before: Snapshot, after: Snapshot): LogEntry[] {
  const seen = new Map(before.logs.map((row) => [`${row.ticket_id}/${row.log_key}`, row]));
  return after.logs.filter((row) => {
    const was = seen.get(`${row.ticket_id}/${row.log_key}`);
    return !was || (row.more ?? 0) > (was.more ?? 0);
  });
}

/** The snapshot without the consumption log, for a case whose only allowed trace is one log row. */
export function withoutLog(state: Snapshot): Omit<Snapshot, 'logs'> {
  const { logs: _logs, ...rest } = state;
  return { ...rest, tables: { ...rest.tables, user_consumptions: '(compared row by row)' } };
}
