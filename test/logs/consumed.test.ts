import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, flushLogs } from './log-helpers';

let project: TestProject;
let alice: { user_id: string; id_token: string };
let bob: { user_id: string; id_token: string };

const consumed = (token: string | undefined, query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return call('GET', `/v1/projects/${project.service_id}/consumed?${search}`, { token });
};
const tpa = (user: { id_token: string }, ticket: string) => call('POST', `/tpa/${project.service_id}/${ticket}`, { token: user.id_token, body: {} });

beforeAll(async () => {
  project = await createProject();
  alice = await mintUser(project, { email: 'alice@example.com' });
  bob = await mintUser(project, { email: 'bob@example.com' });
  await registerTicket(project, 'coffee', { limit_per_user: 2, actions: [] });
  await registerTicket(project, 'tea', { actions: [] });
  for (const [user, ticket] of [
    [alice, 'coffee'],
    [alice, 'coffee'],
    [alice, 'coffee'], // USER_LIMIT_REACHED: a failed signed-in consumption is still the caller's
    [alice, 'tea'],
    [bob, 'tea'],
  ] as const) {
    await tpa(user, ticket);
  }
  await call('POST', `/tp/${project.service_id}/tea`, { body: {}, headers: anonymousHeaders });
  await call('POST', `/publ/check/${project.service_id}/${project.owner_id}/tea`, { body: {} });
  await flushLogs(project.service_id, 'coffee');
  await flushLogs(project.service_id, 'tea');
});

describe('getConsumedTickets', () => {
  it("lists the caller's own signed-in consumptions only, as rows of spec 2.6", async () => {
    const res = await consumed(alice.id_token);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ startKey: null, endOfList: true });
    expect(res.json.list).toHaveLength(4);
    for (const row of res.json.list) {
      expect(Object.keys(row).sort()).toEqual(['consume_id', 'description', 'is_test', 'ticket_id', 'timestamp', 'user_id']);
      expect(row).toMatchObject({ user_id: alice.user_id, is_test: false });
    }
    expect(res.json.list.map((r: any) => r.ticket_id).sort()).toEqual(['coffee', 'coffee', 'coffee', 'tea']);
  });

  it('anonymous consumptions and dry runs never appear, and other users see only their own', async () => {
    const res = await consumed(bob.id_token);
    expect(res.json.list).toHaveLength(1);
    expect(res.json.list[0]).toMatchObject({ ticket_id: 'tea', user_id: bob.user_id });
  });

  it('the description is the log as a JSON string whose outcome.ok says whether it succeeded', async () => {
    const rows = (await consumed(alice.id_token, { ticket_id: 'coffee' })).json.list;
    const outcomes = rows.map((r: any) => JSON.parse(r.description).outcome);
    expect(outcomes.filter((o: any) => o.ok)).toHaveLength(2);
    expect(outcomes.filter((o: any) => !o.ok)).toEqual([expect.objectContaining({ ok: false, code: 'USER_LIMIT_REACHED' })]);
  });

  it('ticket_id narrows the listing to one ticket', async () => {
    const rows = (await consumed(alice.id_token, { ticket_id: 'tea' })).json.list;
    expect(rows.map((r: any) => r.ticket_id)).toEqual(['tea']);
    expect((await consumed(alice.id_token, { ticket_id: 'nothing-here' })).json.list).toEqual([]);
  });

  it('rows come newest first and page by startKey', async () => {
    const all = (await consumed(alice.id_token)).json.list;
    const timestamps = all.map((r: any) => r.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => b - a));
    const seen: string[] = [];
    let startKey: string | null = null;
    do {
      const res = await consumed(alice.id_token, startKey ? { limit: 1, startKey } : { limit: 1 });
      expect(res.json.list.length).toBeLessThanOrEqual(1);
      seen.push(...res.json.list.map((r: any) => r.consume_id));
      startKey = res.json.startKey;
    } while (startKey);
    expect(seen).toEqual(all.map((r: any) => r.consume_id));
  });

  it('an anonymous caller gets 401', async () => {
    const res = await consumed(undefined);
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
  });

  it('the owner key lists nothing: the owner cannot consume on the signed-in endpoint', async () => {
    const res = await consumed(project.owner_key);
    expect(res.json).toEqual({ list: [], startKey: null, endOfList: true });
  });

  it('bad page sizes, a tampered startKey and an invalid ticket_id are INVALID_PARAMETER', async () => {
    for (const limit of ['0', '-3', '101', 'many']) {
      const res = await consumed(alice.id_token, { limit });
      expect(res.json, limit).toMatchObject({ code: 'INVALID_PARAMETER' });
      expect(res.json.message).toContain('limit');
    }
    for (const startKey of ['%%%', btoa('{"v":"log","t":1,"k":"x"}'), btoa('[1,2]')]) {
      const res = await consumed(alice.id_token, { startKey });
      expect(res.json, startKey).toMatchObject({ code: 'INVALID_PARAMETER' });
      expect(res.json.message).toContain('startKey');
    }
    const res = await consumed(alice.id_token, { ticket_id: '#coffee#' });
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'ticket_id' } });
  });
});
