import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { anonymousHeaders, flushLogs, getTickets, writeLogRow } from './log-helpers';

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const tp = (ticket: string, body: unknown = {}) => call('POST', `/tp/${project.service_id}/${ticket}`, { body, headers: anonymousHeaders });
const encodeKey = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

describe('getTickets log listing (owner)', () => {
  it('"#<ticket_id>#" lists the consumption log as DatabaseResponse rows of spec 2.6, newest first', async () => {
    await registerTicket(project, 'logged', { actions: [] });
    const first = await tp('logged');
    const second = await tp('logged');
    await flushLogs(project.service_id, 'logged');

    const res = await getTickets(project, { ticket_id: '#logged#' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ startKey: null, endOfList: true });
    expect(res.json.list).toHaveLength(2);
    const consumeIds = [second, first].map((r) => r.json.tkid.split('#')[2]);
    const [newest, oldest] = res.json.list;
    expect(newest.timestamp).toBeGreaterThanOrEqual(oldest.timestamp);
    expect(new Set(res.json.list.map((r: any) => r.consume_id))).toEqual(new Set(consumeIds));
    expect(newest).toEqual({
      ticket_id: 'logged',
      consume_id: expect.stringMatching(/^[0-9A-Za-z]+$/),
      log_key: newest.consume_id,
      user_id: '203.0.113.9(test-agent)',
      is_test: false,
      timestamp: expect.any(Number),
      description: expect.any(String),
      attempts: 1,
      request: expect.objectContaining({ method: 'POST', received_at: newest.timestamp }),
    });
    expect(JSON.parse(newest.description).outcome.ok).toBe(true);
  });

  it('a failed consumption is listed with failed: true and outcome.ok false', async () => {
    await registerTicket(project, 'picky', { condition: { body: [{ key: 'a', operator: '=', value: 1 }] }, actions: [] });
    expect((await tp('picky', { a: 2 })).json.code).toBe('CONDITION_FAILED');
    await flushLogs(project.service_id, 'picky');
    const [row] = (await getTickets(project, { ticket_id: '#picky#' })).json.list;
    expect(row.failed).toBe(true);
    expect(JSON.parse(row.description).outcome).toMatchObject({ ok: false, code: 'CONDITION_FAILED' });
  });

  it('a successful consumption carries no failed key', async () => {
    const [row] = (await getTickets(project, { ticket_id: '#logged#' })).json.list;
    expect('failed' in row).toBe(false);
  });

  it('a dry run is listed with its ":CHK" log key and check: true; consume_id stays the plain id', async () => {
    await registerTicket(project, 'dry', { actions: [] });
    const res = await call('POST', `/publ/check/${project.service_id}/${project.owner_id}/dry`, { body: {} });
    expect(res.json).toBe('SUCCESS: Ticket check passed. No action taken.');
    await flushLogs(project.service_id, 'dry');
    const [row] = (await getTickets(project, { ticket_id: '#dry#' })).json.list;
    expect(row.log_key).toBe(`${row.consume_id}:CHK`);
    expect(row.consume_id).toMatch(/^[0-9A-Za-z]+$/);
    expect(row.check).toBe(true);
    expect(JSON.parse(row.description)).toMatchObject({ outcome: { ok: true }, check: true });
  });

  it('"@<ticket_id>#<consume_id>#" lists one row per action that ran, in order', async () => {
    await registerTicket(project, 'acting', { actions: [{ act: 'resp', exe: { status: 200, body: { done: true } } }] });
    await tp('acting');
    await flushLogs(project.service_id, 'acting');
    const [log] = (await getTickets(project, { ticket_id: '#acting#' })).json.list;
    const res = await getTickets(project, { ticket_id: `@acting#${log.consume_id}#` });
    expect(res.status).toBe(200);
    expect(res.json.endOfList).toBe(true);
    expect(res.json.list).toHaveLength(1);
    expect(res.json.list[0]).toMatchObject({ ticket_id: 'acting', consume_id: log.consume_id, seq: 0, path: 'actions[0]', act: 'resp', is_test: false });
  });

  it('action rows show what was sent, what came back and the error; attempts, retried and warning reach both listings', async () => {
    const now = Date.now();
    await writeLogRow(
      project.service_id,
      'retrying',
      'RETRYcid0001',
      now,
      { failed: true, code: 'REQUEST_FAILED', description: { outcome: { ok: false, code: 'REQUEST_FAILED' } } },
      [
        { seq: 0, path: 'actions[0]', act: 'mail', detail: { sent: { to: 'a@example.com' }, received: 'SUCCESS', warning: 'sent but not counted' } },
        {
          seq: 1,
          path: 'actions[1]',
          act: 'req',
          detail: {
            sent: { url: 'https://example.com', headers: { authorization: '${CLIENT_SECRET}' } },
            received: { status: 503 },
            error: { code: 'REQUEST_FAILED' },
            attempts: 4,
            retried: true,
          },
        },
      ],
    );
    const [log] = (await getTickets(project, { ticket_id: '#retrying#' })).json.list;
    expect(log).toMatchObject({ consume_id: 'RETRYcid0001', failed: true, attempts: 4, retried: true, warning: 'actions[0]: sent but not counted' });

    const actions = (await getTickets(project, { ticket_id: '@retrying#RETRYcid0001#' })).json.list;
    expect(actions.map((a: any) => [a.path, a.attempts, a.retried ?? false])).toEqual([
      ['actions[0]', 1, false],
      ['actions[1]', 4, true],
    ]);
    expect(actions[0].warning).toBe('sent but not counted');
    expect(actions[1]).toMatchObject({
      sent: { url: 'https://example.com', headers: { authorization: '${CLIENT_SECRET}' } },
      received: { status: 503 },
      error: { code: 'REQUEST_FAILED' },
    });
    expect(JSON.parse(actions[1].description).attempts).toBe(4);
  });

  it('a consumption without retries has attempts 1 and no retried or warning key', async () => {
    await writeLogRow(project.service_id, 'calm', 'CALMcid00001', Date.now(), {}, [
      { seq: 0, path: 'actions[0]', act: 'req', detail: { sent: {}, received: { status: 200 } } },
    ]);
    const [log] = (await getTickets(project, { ticket_id: '#calm#' })).json.list;
    expect(log.attempts).toBe(1);
    expect('retried' in log || 'warning' in log).toBe(false);
  });

  it('from and to bound the listing, both inclusive, in ms since the epoch', async () => {
    for (const [id, t] of [
      ['FROMTOa00001', 1_000],
      ['FROMTOb00002', 2_000],
      ['FROMTOc00003', 3_000],
    ] as const) {
      await writeLogRow(project.service_id, 'ranged', id, t);
    }
    const times = async (query: Record<string, number>) =>
      (await getTickets(project, { ticket_id: '#ranged#', ...query })).json.list.map((r: any) => r.timestamp);
    expect(await times({})).toEqual([3_000, 2_000, 1_000]);
    expect(await times({ from: 2_000 })).toEqual([3_000, 2_000]);
    expect(await times({ to: 2_000 })).toEqual([2_000, 1_000]);
    expect(await times({ from: 1_500, to: 2_500 })).toEqual([2_000]);
    expect(await times({ from: 2_000, to: 2_000 })).toEqual([2_000]);
  });

  it('from and to also bound the action rows of one consumption', async () => {
    await writeLogRow(project.service_id, 'rangedacts', 'RANGEDact001', 5_000, {}, [{ seq: 0, path: 'actions[0]', act: 'req', detail: {} }]);
    expect((await getTickets(project, { ticket_id: '@rangedacts#RANGEDact001#', from: 5_000 })).json.list).toHaveLength(1);
    expect((await getTickets(project, { ticket_id: '@rangedacts#RANGEDact001#', from: 5_001 })).json.list).toHaveLength(0);
  });

  it('outcome keeps one kind of row in the SQL: ok, failed or check (dry runs), each page full and in order', async () => {
    // 3 ok, 3 failed, 3 dry runs interleaved in time: a page of 2 of one kind must skip the others.
    const kinds = [
      ['OUTok', {}],
      ['OUTfail', { failed: true, code: 'CONDITION_FAILED', description: { outcome: { ok: false, code: 'CONDITION_FAILED' } } }],
      ['OUTchk', { is_check: true, description: { outcome: { ok: true }, check: true } }],
    ] as const;
    for (let i = 0; i < 3; i++) {
      for (const [k, [prefix, extra]] of kinds.entries()) {
        const id = `${prefix}${i}x`.padEnd(12, '0');
        await writeLogRow(project.service_id, 'outcomes', id, 10_000 + i * 10 + k, { ...extra, log_key: prefix === 'OUTchk' ? `${id}:CHK` : id });
      }
    }
    const pagesOf = async (outcome: string) => {
      const ids: string[] = [];
      let startKey: string | null = null;
      let pages = 0;
      do {
        const res: any = await getTickets(project, { ticket_id: '#outcomes#', outcome, limit: 2, ...(startKey ? { startKey } : {}) });
        expect(res.status).toBe(200);
        ids.push(...res.json.list.map((r: any) => r.consume_id));
        startKey = res.json.startKey;
        pages++;
      } while (startKey && pages < 10);
      return { ids, pages };
    };
    expect(await pagesOf('ok')).toEqual({ ids: ['OUTok2x00000', 'OUTok1x00000', 'OUTok0x00000'], pages: 2 });
    expect(await pagesOf('failed')).toEqual({ ids: ['OUTfail2x000', 'OUTfail1x000', 'OUTfail0x000'], pages: 2 });
    expect(await pagesOf('check')).toEqual({ ids: ['OUTchk2x0000', 'OUTchk1x0000', 'OUTchk0x0000'], pages: 2 });
    const failed = (await getTickets(project, { ticket_id: '#outcomes#', outcome: 'failed' })).json.list;
    expect(failed.every((r: any) => r.failed === true && !r.check)).toBe(true);
    const checks = (await getTickets(project, { ticket_id: '#outcomes#', outcome: 'check' })).json.list;
    expect(checks.every((r: any) => r.check === true)).toBe(true);
  });

  it('outcome combines with from and to', async () => {
    const times = (await getTickets(project, { ticket_id: '#outcomes#', outcome: 'ok', from: 10_010, to: 10_020 })).json.list.map((r: any) => r.timestamp);
    expect(times).toEqual([10_020, 10_010]);
  });

  it('a log whose ticket was never registered (or was deleted) is still listed', async () => {
    await writeLogRow(project.service_id, 'gone', 'GONEcid00001', Date.now());
    expect((await getTickets(project, { ticket_id: '#gone#' })).json.list).toHaveLength(1);
  });
});

describe('getTickets log listing refusals', () => {
  it('a signed-in user (not the owner) asking for an id with "#" or "@" gets INVALID_REQUEST "Invalid ticket id."', async () => {
    const user = await mintUser(project);
    for (const id of ['#logged#', '@logged#abc#', 'a#b', '@x']) {
      const res = await getTickets(project, { ticket_id: id }, user.id_token);
      expect(res.json).toEqual({ code: 'INVALID_REQUEST', message: 'Invalid ticket id.' });
    }
  });

  it('an anonymous caller cannot list at all (401)', async () => {
    const res = await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=%23logged%23`);
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
  });

  it('"to" before "from" is INVALID_PARAMETER \'"to" is before "from".\'', async () => {
    const res = await getTickets(project, { ticket_id: '#logged#', from: 2_000, to: 1_999 });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', message: '"to" is before "from".' });
  });

  it('from or to that is not ms since the epoch is INVALID_PARAMETER naming the field', async () => {
    for (const [field, value] of [
      ['from', 'yesterday'],
      ['to', 'now'],
      ['from', '-5'],
      ['to', '1.5'],
      ['from', '2024-01-01'],
      ['to', '99999999999999999'],
    ]) {
      const res = await getTickets(project, { ticket_id: '#logged#', [field]: value });
      expect(res.json, `${field}=${value}`).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field } });
      expect(res.json.message).toContain(`"${field}"`);
    }
  });

  it('from/to without a log id is INVALID_PARAMETER (they apply to log listings only)', async () => {
    const res = await getTickets(project, { from: 1 });
    expect(res.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'from' } });
  });

  it('an outcome other than ok, failed or check is INVALID_PARAMETER naming outcome', async () => {
    for (const value of ['', 'OK', 'dry run', 'success', 'ok,failed']) {
      const res = await getTickets(project, { ticket_id: '#logged#', outcome: value });
      expect(res.json, value).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'outcome' } });
      expect(res.json.message).toContain('"outcome"');
    }
  });

  it('outcome on a listing of tickets or of action rows is INVALID_PARAMETER (the consumption log only)', async () => {
    for (const query of [{}, { ticket_id: 'logged' }, { ticket_id: '@logged#abc#' }] as Array<Record<string, string>>) {
      const res = await getTickets(project, { ...query, outcome: 'ok' });
      expect(res.json, JSON.stringify(query)).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'outcome' } });
    }
  });

  it('a malformed log id from the owner is INVALID_PARAMETER naming ticket_id', async () => {
    for (const id of ['#logged', 'logged#', '##', '#bad id#', '@logged#', '@logged#abc', '@logged#a-b#', '#a#b#']) {
      const res = await getTickets(project, { ticket_id: id });
      expect(res.json, id).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'ticket_id' } });
    }
  });
});

describe('log listing paging', () => {
  it('pages by startKey without gaps or repeats, and the last page has endOfList true and startKey null', async () => {
    for (let i = 0; i < 5; i++) await tp('logged');
    await flushLogs(project.service_id, 'logged');
    const all = (await getTickets(project, { ticket_id: '#logged#' })).json.list.map((r: any) => r.log_key);
    expect(all).toHaveLength(7);

    const seen: string[] = [];
    let startKey: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { ticket_id: '#logged#', limit: 3 };
      if (startKey) query.startKey = startKey;
      const res = await getTickets(project, query);
      expect(res.status).toBe(200);
      seen.push(...res.json.list.map((r: any) => r.log_key));
      startKey = res.json.startKey;
      expect(res.json.endOfList).toBe(startKey === null);
      pages++;
    } while (startKey);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
  });

  it('rows with the same timestamp are paged apart by log key', async () => {
    for (const id of ['SAMEt0000001', 'SAMEt0000002', 'SAMEt0000003']) await writeLogRow(project.service_id, 'sametime', id, 7_000);
    const first = await getTickets(project, { ticket_id: '#sametime#', limit: 2 });
    const second = await getTickets(project, { ticket_id: '#sametime#', limit: 2, startKey: first.json.startKey });
    expect([...first.json.list, ...second.json.list].map((r: any) => r.consume_id)).toEqual(['SAMEt0000003', 'SAMEt0000002', 'SAMEt0000001']);
    expect(second.json.endOfList).toBe(true);
  });

  it('the default page size is 50 and the maximum is 100', async () => {
    const rows = Array.from({ length: 101 }, (_, i) => i);
    for (const i of rows) await writeLogRow(project.service_id, 'many', `MANY${String(i).padStart(8, '0')}`, 10_000 + i);
    const byDefault = await getTickets(project, { ticket_id: '#many#' });
    expect(byDefault.json.list).toHaveLength(50);
    expect(byDefault.json.endOfList).toBe(false);
    const largest = await getTickets(project, { ticket_id: '#many#', limit: 100 });
    expect(largest.json.list).toHaveLength(100);
    const rest = await getTickets(project, { ticket_id: '#many#', limit: 100, startKey: largest.json.startKey });
    expect(rest.json).toMatchObject({ startKey: null, endOfList: true });
    expect(rest.json.list).toHaveLength(1);
  });

  it('a page size of 0, negative, above 100, fractional or not a number is INVALID_PARAMETER naming limit', async () => {
    for (const limit of ['0', '-1', '101', '1000000', 'ten', '2.5', '1e9']) {
      for (const ticket_id of ['#logged#', '@logged#abc#', 'logged']) {
        const res = await getTickets(project, { ticket_id, limit });
        expect(res.json, `${ticket_id} limit=${limit}`).toMatchObject({ code: 'INVALID_PARAMETER' });
        expect(res.json.message).toContain('limit');
      }
    }
  });

  it('a tampered or foreign startKey is INVALID_PARAMETER naming startKey', async () => {
    const ticketListingKey = encodeKey('some-ticket');
    const actionKey = encodeKey({ v: 'act', s: 1 });
    for (const startKey of [
      'not base64 !!',
      encodeKey({ v: 'log', t: 'soon', k: 'x' }),
      encodeKey({ v: 'log', t: -1, k: 'x' }),
      ticketListingKey,
      actionKey,
      'e30',
    ]) {
      const res = await getTickets(project, { ticket_id: '#logged#', startKey });
      expect(res.json, startKey).toMatchObject({ code: 'INVALID_PARAMETER' });
      expect(res.json.message).toContain('startKey');
    }
    const onActions = await getTickets(project, { ticket_id: '@logged#abc#', startKey: encodeKey({ v: 'log', t: 1, k: 'x' }) });
    expect(onActions.json).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});
