/**
 * Issue 24 item 7: a deployment upgraded from the log in D1 keeps its data. Rows are written the way the
 * previous code's export wrote them (writeLogRow: ticket_logs and ticket_action_rows), then read through
 * the new code: the ticket's object takes them in on the first read and D1 keeps none of them.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import migration from '../../migrations/0012_ticket_log_in_objects.sql?raw';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { getTickets, writeLogRow } from './log-helpers';

let project: TestProject;
let user: { user_id: string; id_token: string };
const T0 = Date.now() - 60_000;
const kept = {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: '[redacted]' },
  search: '?a=1',
  body: { text: '{"event":"paid"}' },
  ip: '198.51.100.7',
  user_agent: 'old-sender',
  signed_route: false,
  long_form: false,
  received_at: T0,
};

const d1Rows = async (ticketId: string) =>
  (
    await env.DB.prepare('SELECT COUNT(*) AS n FROM ticket_logs WHERE service_id = ? AND ticket_id = ?')
      .bind(project.service_id, ticketId)
      .first<{ n: number }>()
  )?.n;

beforeAll(async () => {
  project = await createProject();
  user = await mintUser(project);
  await registerTicket(project, 'upgraded', { actions: [] });
  const action = (seq: number, detail: Record<string, unknown>) => ({ seq, path: `actions[${seq}]`, act: 'req', detail });
  await writeLogRow(project.service_id, 'upgraded', 'OLDok000001', T0, { request: kept as never }, [
    action(0, { sent: { url: 'https://x.test' }, attempts: 2, retried: true }),
    action(1, { warning: 'late' }),
  ]);
  await writeLogRow(project.service_id, 'upgraded', 'OLDfail00002', T0 + 1, {
    failed: true,
    code: 'CONDITION_FAILED',
    description: { outcome: { ok: false, code: 'CONDITION_FAILED' } },
    request: kept as never,
  });
  await writeLogRow(project.service_id, 'upgraded', 'OLDchk000003', T0 + 2, {
    log_key: 'OLDchk000003:CHK',
    is_check: true,
    description: { outcome: { ok: true }, check: true },
  });
  await writeLogRow(project.service_id, 'upgraded', 'OLDsigned004', T0 + 3, { user_id: user.user_id, signed: true });
  // The migration's backfill of the per-user index, as `wrangler d1 migrations apply` runs it on a filled database.
  const backfill = migration.slice(
    migration.indexOf('INSERT OR IGNORE INTO user_consumptions'),
    migration.indexOf(';', migration.indexOf('INSERT OR IGNORE INTO user_consumptions')) + 1,
  );
  await env.DB.prepare(backfill).run();
});

describe('a log written to D1 by the previous code', () => {
  it('is listed exactly as it was written, newest first, with retry facts, kept requests and dry runs', async () => {
    const res = await getTickets(project, { ticket_id: '#upgraded#' });
    expect(res.status).toBe(200);
    expect(res.json.endOfList).toBe(true);
    expect(res.json.list.map((r: any) => [r.log_key, r.failed ?? false, r.check ?? false, r.attempts, r.retried ?? false, r.warning ?? null])).toEqual([
      ['OLDsigned004', false, false, 1, false, null],
      ['OLDchk000003:CHK', false, true, 1, false, null],
      ['OLDfail00002', true, false, 1, false, null],
      ['OLDok000001', false, false, 2, true, 'actions[1]: late'],
    ]);
    expect(res.json.list[3]).toMatchObject({ consume_id: 'OLDok000001', user_id: '198.51.100.1(writer)', timestamp: T0, request: kept, is_test: false });
    expect(JSON.parse(res.json.list[2].description)).toEqual({ outcome: { ok: false, code: 'CONDITION_FAILED' } });
  });

  it('leaves D1 once its object has taken it in, and reads the same the second time', async () => {
    expect(await d1Rows('upgraded')).toBe(0);
    const again = await getTickets(project, { ticket_id: '#upgraded#' });
    expect(again.json.list.map((r: any) => r.log_key)).toEqual(['OLDsigned004', 'OLDchk000003:CHK', 'OLDfail00002', 'OLDok000001']);
  });

  it("keeps each consumption's action rows, in order, with what was sent", async () => {
    const res = await getTickets(project, { ticket_id: '@upgraded#OLDok000001#' });
    expect(res.json.list.map((r: any) => [r.seq, r.path, r.attempts, r.sent ?? null])).toEqual([
      [0, 'actions[0]', 2, { url: 'https://x.test' }],
      [1, 'actions[1]', 1, null],
    ]);
  });

  it('can re-check a consumption from its kept request', async () => {
    const res = await call('POST', `/v1/projects/${project.service_id}/tickets/upgraded/log/OLDok000001/recheck`, { token: project.owner_key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ticket_id: 'upgraded', replay_of: 'OLDok000001' });
  });

  it("is listed in the signed-in user's own consumptions through the migration's per-user index", async () => {
    const res = await call('GET', `/v1/projects/${project.service_id}/consumed`, { token: user.id_token });
    expect(res.json.list.map((r: any) => [r.ticket_id, r.consume_id, r.user_id])).toEqual([['upgraded', 'OLDsigned004', user.user_id]]);
  });

  it('rows the old code wrote after the object first read its log are taken in by the next read', async () => {
    await writeLogRow(project.service_id, 'upgraded', 'OLDlate00005', T0 + 10);
    const res = await getTickets(project, { ticket_id: '#upgraded#', limit: 2 });
    // The newest is the re-check above (a dry run logged now); the late row comes next.
    expect(res.json.list.map((r: any) => r.log_key)[1]).toBe('OLDlate00005');
    expect(await d1Rows('upgraded')).toBe(0);
  });
});
