/**
 * The legacy import route (PUT /v1/projects/{service_id}/tickets/{ticket_id}/legacy): the renames of
 * spec 9.3 on import, getTickets showing legacy: true in the current format, saving again applying
 * the current rules, and the refusals (nothing stored half).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ownerTicketAnswer } from '../../schemas/answers';
import { call, createProject, mintUser, putSecret, type TestProject } from '../helpers/api';

let project: TestProject;
const loopback = () => inject('loopbackOrigin');

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'hook-secret', 'whsec-value');
});

const importPath = (ticketId: string) => `/v1/projects/${project.service_id}/tickets/${ticketId}/legacy`;
const importLegacy = (ticketId: string, body: unknown, token = project.owner_key) => call('PUT', importPath(ticketId), { token, body });
const listed = async (ticketId: string) => {
  const res = await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticketId}`, { token: project.owner_key });
  return res.json.list[0];
};
const tp = (ticket: string, body: unknown) =>
  call('POST', `/tp/${project.service_id}/${ticket}`, { body, headers: { 'cf-connecting-ip': '203.0.113.41', 'user-agent': 'import-test' } });

/** A definition as the older system exported it: older names throughout. */
const exported = () => ({
  description: 'paid orders',
  condition: {
    data: [{ key: 'amount', operator: '=', value: 10 }],
    signature: { secret: 'hook-secret', header: 'X-Sig' },
  },
  actions: [
    {
      act: 'req',
      exe: {
        url: `${loopback()}/echo`,
        method: 'POST',
        data: { order: '${data[id]}' },
        actions: [{ act: 'resp', exe: { body: { path: '${response[path]}' } } }],
      },
      condition: [{ key: 'method', operator: '=', value: 'POST' }],
    },
  ],
});

describe('renames of spec 9.3 on import', () => {
  it('data rows, ${data} and signature.secret are stored under the current names, and the ticket lists as legacy', async () => {
    const res = await importLegacy('renamed', exported());
    expect(res.status).toBe(201);
    const ticket = await listed('renamed');
    expect(ticket.legacy).toBe(true);
    expect(ticket).not.toHaveProperty('rules_version');
    expect(ticket.condition.body).toEqual([{ key: 'amount', operator: '=', value: 10 }]);
    expect(ticket.condition).not.toHaveProperty('data');
    expect(ticket.condition.signature).toMatchObject({ secretName: 'hook-secret', header: 'X-Sig' });
    expect(ticket.actions[0].exe.data).toEqual({ order: '${body[id]}' });
    // The listing's answer schema (the stored form) names every member of a legacy ticket too.
    expect(ownerTicketAnswer.parse(ticket)).toEqual(ticket);
  });

  it("a req action's condition becomes a cond action at the head of its Then chain", async () => {
    await importLegacy('req-check', exported());
    const [req] = (await listed('req-check')).actions;
    expect(req).not.toHaveProperty('condition');
    expect(req.exe.actions).toEqual([
      { act: 'cond', exe: { response: [{ key: 'method', operator: '=', value: 'POST' }] } },
      { act: 'resp', exe: { status: 200, body: { path: '${response[path]}' }, resume: 'stop' } },
    ]);
  });

  it('the older match (on the action or in exe) converts the same way', async () => {
    const res = await importLegacy('req-match', {
      actions: [{ act: 'req', exe: { url: `${loopback()}/echo`, match: [{ key: 'path', operator: '=', value: '/echo' }] } }],
    });
    expect(res.status).toBe(201);
    expect((await listed('req-match')).actions[0].exe.actions).toEqual([{ act: 'cond', exe: { response: [{ key: 'path', operator: '=', value: '/echo' }] } }]);
  });

  it('the converted check judges the answer: a mismatch fails the run with CONDITION_FAILED', async () => {
    await importLegacy('req-judged', {
      actions: [{ act: 'req', exe: { url: `${loopback()}/echo` }, condition: [{ key: 'path', operator: '=', value: '/elsewhere' }] }],
    });
    const res = await tp('req-judged', {});
    expect(res.status).toBe(400);
    expect(res.text).toBe("CONDITION_FAILED: The answer does not meet the cond rows on 'path'.");
  });

  it('the check-time request condition lists as a req action at the head of the chain with a cond on its answer', async () => {
    await importLegacy('request-listed', {
      condition: { request: { url: `${loopback()}/echo`, condition: [{ key: 'query', operator: '=', value: 'literal ${text}' }] } },
      actions: [{ act: 'resp', exe: { body: { ok: true } } }],
    });
    const ticket = await listed('request-listed');
    expect(ticket.condition).toEqual({});
    expect(ticket.actions).toEqual([
      {
        act: 'req',
        exe: {
          url: `${loopback()}/echo`,
          method: 'GET',
          actions: [{ act: 'cond', exe: { response: [{ key: 'query', operator: '=', value: 'literal $${text}' }] } }],
        },
      },
      { act: 'resp', exe: { status: 200, body: { ok: true }, resume: 'stop' } },
    ]);
  });
});

describe('saving a listed legacy ticket through the normal registration', () => {
  it('applies the current rules: legacy false, rules_version 2, strict =', async () => {
    await importLegacy('resaved', { condition: { data: [{ key: 'amount', operator: '=', value: 10 }] }, actions: [] });
    expect((await tp('resaved', { amount: '10' })).status).toBe(200);
    const { legacy, ...definition } = await listed('resaved');
    expect(legacy).toBe(true);
    const saved = await call('PUT', `/v1/projects/${project.service_id}/tickets/resaved`, { token: project.owner_key, body: definition });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ legacy: false, rules_version: 2 });
    const strict = await tp('resaved', { amount: '10' });
    expect(strict.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'condition' });
  });
});

describe('a listed request condition saved again', () => {
  it('is accepted by the normal registration and judges the same answer, now as a req action with a cond', async () => {
    await importLegacy('request-resaved', {
      rules_version: 2,
      condition: {
        request: { url: `${loopback()}/echo`, params: { step: '${body[step]}' }, condition: [{ key: 'body[query]', operator: '=', value: '?step=go' }] },
      },
      actions: [{ act: 'resp', exe: { body: { ran: true } } }],
    });
    expect((await tp('request-resaved', { step: 'go' })).json).toEqual({ ran: true });
    const { legacy: _legacy, ...definition } = await listed('request-resaved');
    const saved = await call('PUT', `/v1/projects/${project.service_id}/tickets/request-resaved`, { token: project.owner_key, body: definition });
    expect(saved.status).toBe(200);
    expect((await tp('request-resaved', { step: 'go' })).json).toEqual({ ran: true });
    const stopped = await tp('request-resaved', { step: 'stop' });
    expect(stopped.json).toMatchObject({ code: 'CONDITION_FAILED', stage: 'action', action: { act: 'cond', path: 'actions[0].exe.actions[0]' } });
  });
});

describe('refusals of the import (nothing stored)', () => {
  const refused = async (ticketId: string, body: unknown) => {
    const res = await importLegacy(ticketId, body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_PARAMETER');
    expect(await listed(ticketId)).toBeUndefined();
    return res.json.message as string;
  };

  it('${result} is refused with a message pointing to ${response}', async () => {
    const message = await refused('uses-result', {
      actions: [{ act: 'req', exe: { url: `${loopback()}/echo`, actions: [{ act: 'resp', exe: { body: '${result}' } }] } }],
    });
    expect(message).toContain('actions[0].exe.actions[0].exe.body: ${result} was removed: use ${response}');
  });

  it('a req check whose row reads the request cannot become a cond row: refused with the fix', async () => {
    const message = await refused('unconvertible', {
      actions: [{ act: 'req', exe: { url: `${loopback()}/echo` }, condition: [{ key: 'path', operator: '=', value: '${body[path]}' }] }],
    });
    expect(message).toBe(
      'actions[0].condition[0].value: cannot become a cond row: a cond action in the Then chain may read only ${response...} and ${placeholder[NAME]}; capture the value with a condition row (placeholder: NAME) and compare with ${placeholder[NAME]}',
    );
  });

  it('both condition and match on one req are refused', async () => {
    const message = await refused('both-checks', { actions: [{ act: 'req', exe: { url: `${loopback()}/echo`, match: [] }, condition: [] }] });
    expect(message).toContain('actions[0].exe.match: give the answer check once');
  });

  it('both data and body rows are refused', async () => {
    const message = await refused('both-rows', {
      condition: { data: [{ key: 'a', operator: '=', value: 1 }], body: [{ key: 'a', operator: '=', value: 1 }] },
      actions: [],
    });
    expect(message).toContain('condition.data: data is the older name of body');
  });

  it('both signature.secret and secretName are refused', async () => {
    const message = await refused('both-secret', {
      condition: { signature: { secret: 'hook-secret', secretName: 'hook-secret', header: 'X-Sig' } },
      actions: [],
    });
    expect(message).toMatch(/^condition\.signature\.secret/);
  });

  it('an unknown old field is refused naming it and the accepted keys', async () => {
    const message = await refused('unknown-field', { actions: [], notify: true });
    expect(message).toMatch(/^notify: unknown key; accepted keys: /);
  });

  it('a condition on an action other than req names the fix', async () => {
    const message = await refused('pstr-check', { actions: [{ act: 'resp', exe: {}, condition: [] }] });
    expect(message).toContain('actions[0].condition: an action carries no condition');
  });

  it('a request condition naming a Secret Key that does not exist is refused at its path', async () => {
    const message = await refused('request-secret', { condition: { request: { url: `${loopback()}/echo`, secretName: 'nope' } }, actions: [] });
    expect(message).toBe('condition.request.secretName: no Secret Key named "nope" in this project');
  });

  it('a request condition with both condition and match rows is refused', async () => {
    const message = await refused('request-both', { condition: { request: { url: `${loopback()}/echo`, condition: [], match: [] } }, actions: [] });
    expect(message).toContain('condition.request.match: match is the older name of condition');
  });

  it('rules_version other than 2 or absent is refused', async () => {
    for (const version of [1, 3, '2', true]) {
      expect(await refused('bad-version', { rules_version: version, actions: [] })).toMatch(/^rules_version: must be 2, or absent/);
    }
  });

  it('a body that is not a JSON object is refused', async () => {
    for (const body of [[], 'text', 5]) expect(await refused('not-object', body)).toMatch(/^the ticket must be a JSON object/);
  });

  it('only the project owner may import: a signed-in user is refused', async () => {
    const user = await mintUser(project, { email: 'importer@example.com' });
    const res = await importLegacy('by-user', { actions: [] }, user.id_token);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'INVALID_REQUEST', message: 'Only the project owner can register tickets.' });
    expect(await listed('by-user')).toBeUndefined();
  });

  it('a refused import leaves an existing ticket as it was', async () => {
    await importLegacy('kept', { description: 'first', actions: [] });
    expect((await importLegacy('kept', { description: 'second', actions: [{ act: 'resp', exe: { body: '${result}' } }] })).status).toBe(400);
    expect(await listed('kept')).toMatchObject({ description: 'first', legacy: true });
  });
});
