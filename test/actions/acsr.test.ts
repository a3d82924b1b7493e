import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { consumePost } from './run-support';

let project: TestProject;
let owner: { user_id: string; id_token: string };

beforeAll(async () => {
  project = await createProject();
  owner = await mintUser(project);
});

async function storeRecord(recordId: string, userId = owner.user_id) {
  await env.DB.prepare(
    `INSERT INTO records (service_id, record_id, table_name, access_group, user_id, created, updated) VALUES (?, ?, 'private_docs', 'private', ?, 1, 1)`,
  )
    .bind(project.service_id, recordId, userId)
    .run();
}

const grantees = async (recordId: string) =>
  (
    await env.DB.prepare('SELECT user_id FROM record_grants WHERE service_id = ? AND record_id = ? ORDER BY user_id')
      .bind(project.service_id, recordId)
      .all<{ user_id: string }>()
  ).results.map((row) => row.user_id);

describe('acsr grants private access to a record', () => {
  it('without user_id grants the signed-in consumer and answers the SUCCESS text of the grant', async () => {
    await storeRecord('rec-self');
    const user = await mintUser(project);
    await registerTicket(project, 'acsr-self', {
      actions: [{ act: 'acsr', exe: { record_id: 'rec-self', actions: [{ act: 'resp', exe: { body: '${response}' } }] } }],
    });
    const res = await consumePost(project, 'acsr-self', {}, user.id_token);
    expect(res.json).toBe('SUCCESS: Access to the record has been granted.');
    expect(await grantees('rec-self')).toEqual([user.user_id]);
  });

  it('grants one user or a list of users named by references', async () => {
    await storeRecord('rec-list');
    const [a, b, c] = [await mintUser(project), await mintUser(project), await mintUser(project)];
    await registerTicket(project, 'acsr-list', { actions: [{ act: 'acsr', exe: { record_id: '${body[record]}', user_id: '${body[users]}' } }] });
    expect((await consumePost(project, 'acsr-list', { record: 'rec-list', users: [a.user_id, b.user_id, a.user_id] })).status).toBe(200);
    expect((await consumePost(project, 'acsr-list', { record: 'rec-list', users: c.user_id })).status).toBe(200);
    expect(await grantees('rec-list')).toEqual([a.user_id, b.user_id, c.user_id].sort());
  });

  it('a granted user passes the record_access condition', async () => {
    await storeRecord('rec-gate');
    const user = await mintUser(project);
    await registerTicket(project, 'gate', { condition: { record_access: 'rec-gate' }, actions: [] });
    await registerTicket(project, 'acsr-gate', { actions: [{ act: 'acsr', exe: { record_id: 'rec-gate', user_id: user.user_id } }] });
    expect((await consumePost(project, 'gate', {}, user.id_token)).json).toMatchObject({ code: 'CONDITION_FAILED' });
    expect((await consumePost(project, 'acsr-gate')).status).toBe(200);
    expect((await consumePost(project, 'gate', {}, user.id_token)).status).toBe(200);
  });

  it('a record that does not exist fails with ACTION_FAILED', async () => {
    const user = await mintUser(project);
    await registerTicket(project, 'acsr-norecord', { actions: [{ act: 'acsr', exe: { record_id: 'rec-missing', user_id: user.user_id } }] });
    const res = await consumePost(project, 'acsr-norecord');
    expect(res.json).toMatchObject({
      code: 'ACTION_FAILED',
      stage: 'action',
      action: { act: 'acsr', path: 'actions[0]' },
      detail: { record_id: 'rec-missing' },
    });
  });

  it('a user who is not a user of this project fails the whole grant with ACTION_FAILED', async () => {
    await storeRecord('rec-partial');
    const user = await mintUser(project);
    await registerTicket(project, 'acsr-stranger', { actions: [{ act: 'acsr', exe: { record_id: 'rec-partial', user_id: [user.user_id, 'stranger'] } }] });
    const res = await consumePost(project, 'acsr-stranger');
    expect(res.json).toMatchObject({ code: 'ACTION_FAILED', detail: { user_ids: ['stranger'] } });
    expect(await grantees('rec-partial')).toEqual([]);
  });

  it('without user_id on a request that is not signed in fails with AUTH_REQUIRED at stage action', async () => {
    await registerTicket(project, 'acsr-anon', { actions: [{ act: 'acsr', exe: { record_id: 'rec-self' } }] });
    expect((await consumePost(project, 'acsr-anon')).json).toMatchObject({ code: 'AUTH_REQUIRED', stage: 'action', action: { act: 'acsr' } });
  });

  it('a user_id that resolves to something other than text or a list of text fails with ACTION_FAILED', async () => {
    await registerTicket(project, 'acsr-shape', { actions: [{ act: 'acsr', exe: { record_id: 'rec-self', user_id: '${body[users]}' } }] });
    for (const users of [{ id: 'x' }, [], [1], 5]) {
      expect((await consumePost(project, 'acsr-shape', { users })).json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action' });
    }
  });
});
