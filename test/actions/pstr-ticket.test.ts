import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

const tp = (ticket: string, body: unknown) =>
  call('POST', `/tp/${project.service_id}/${ticket}`, { body, headers: { 'cf-connecting-ip': '203.0.113.5', 'user-agent': 'hook-sender' } });
const record = (recordId: string) => call('GET', `/v1/projects/${project.service_id}/records/${recordId}`, { token: project.owner_key });

describe('pstr through a registered ticket', () => {
  it('a webhook writes a record; the Then chain reads ${response[record_id]}; a retried webhook updates the same record', async () => {
    await registerTicket(project, 'order-hook', {
      actions: [
        {
          act: 'pstr',
          exe: {
            table: { name: 'orders', access_group: 'public' },
            data: '${body}',
            unique_id: 'order-${body[id]}',
            index: { name: 'total', value: '${body[total]}' },
            actions: [{ act: 'resp', exe: { body: { saved: '${response[record_id]}', table: '${response[table][name]}' } } }],
          },
        },
      ],
    });
    const first = await tp('order-hook', { id: 'A1', total: 30 });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ saved: expect.any(String), table: 'orders' });
    const again = await tp('order-hook', { id: 'A1', total: 35 });
    expect(again.json.saved).toBe(first.json.saved);

    const stored = await record(first.json.saved);
    expect(stored.json).toMatchObject({
      unique_id: 'order-A1',
      user_id: project.owner_id,
      data: { id: 'A1', total: 35 },
      index: { name: 'total', value: 35 },
      table: { name: 'orders', access_group: 0 },
      written_by: { ticket_id: 'order-hook' },
    });
    const listed = await call('GET', `/v1/projects/${project.service_id}/records?table=orders`, { token: project.owner_key });
    expect(listed.json.list.map((r: { record_id: string }) => r.record_id)).toEqual([first.json.saved]);
  });

  it('a signed-in consumer writes their own record with user_id ${user[user_id]}', async () => {
    await registerTicket(project, 'profile', {
      actions: [{ act: 'pstr', exe: { table: { name: 'profiles', access_group: 'private' }, user_id: '${user[user_id]}', data: '${body}', readonly: true } }],
    });
    const user = await mintUser(project);
    const res = await call('POST', `/tpa/${project.service_id}/profile`, { token: user.id_token, body: { bio: 'hi' } });
    expect(res.status).toBe(200);
    const listed = await call('GET', `/v1/projects/${project.service_id}/records?table=profiles`, { token: project.owner_key });
    expect(listed.json.list[0]).toMatchObject({ user_id: user.user_id, readonly: true, data: { bio: 'hi' }, table: { access_group: 'private' } });
  });

  it('a refused reference fails the consumption with ACTION_FORBIDDEN at the pstr action, and its err chain runs', async () => {
    await registerTicket(project, 'closed-poll', {
      actions: [{ act: 'pstr', exe: { table: { name: 'polls', access_group: 'public' }, unique_id: 'poll-1', source: { referencing_limit: 0 } } }],
    });
    expect((await tp('closed-poll', {})).status).toBe(200);
    await registerTicket(project, 'vote', {
      actions: [
        {
          act: 'pstr',
          exe: { table: { name: 'votes', access_group: 'public' }, reference: 'poll-1' },
          err: [{ act: 'pstr', exe: { table: { name: 'refusals', access_group: 'public' }, data: '${error[detail][reason]}' } }],
        },
      ],
    });
    const res = await tp('vote', {});
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      code: 'ACTION_FORBIDDEN',
      stage: 'action',
      action: { act: 'pstr', path: 'actions[0]' },
      detail: { reason: 'referencing_limit' },
      ticket_id: 'vote',
    });
    const refusals = await call('GET', `/v1/projects/${project.service_id}/records?table=refusals`, { token: project.owner_key });
    expect(refusals.json.list.map((r: { data: unknown }) => r.data)).toEqual(['referencing_limit']);
    const votes = await call('GET', `/v1/projects/${project.service_id}/records?table=votes`, { token: project.owner_key });
    expect(votes.json.list).toEqual([]);
  });

  it('record_id of a missing record fails the consumption with ACTION_FAILED', async () => {
    await registerTicket(project, 'update-missing', {
      actions: [{ act: 'pstr', exe: { table: { name: 'orders', access_group: 'public' }, record_id: '${body[id]}' } }],
    });
    const res = await tp('update-missing', { id: 'nothing-here' });
    expect(res.json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action', action: { act: 'pstr', path: 'actions[0]' } });
  });
});
