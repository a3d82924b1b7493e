import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { accessGroupOf, consumePost, loggedConsumptions, remainingOf, settle } from './run-support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const GRANTED = 'SUCCESS: The user has been granted the access group.';
/** A resp in the Then chain answers with what the action answered. */
const answerThen = [{ act: 'resp', exe: { body: { answer: '${response}' } } }];

describe('acsg sets a user access group', () => {
  it('without user_id sets the signed-in consumer and answers the SUCCESS text of the grant', async () => {
    const user = await mintUser(project);
    await registerTicket(project, 'acsg-self', { actions: [{ act: 'acsg', exe: { group: 7, actions: answerThen } }] });
    const res = await consumePost(project, 'acsg-self', {}, user.id_token);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ answer: GRANTED });
    expect(await accessGroupOf(project, user.user_id)).toBe(7);
  });

  it("'admin' is stored and applied as group 99", async () => {
    const user = await mintUser(project);
    await registerTicket(project, 'acsg-admin', { actions: [{ act: 'acsg', exe: { group: 'admin', user_id: user.user_id } }] });
    expect((await consumePost(project, 'acsg-admin')).status).toBe(200);
    expect(await accessGroupOf(project, user.user_id)).toBe(99);
  });

  it('group and user_id may be references resolving to an integer 1..99 and a user id', async () => {
    const user = await mintUser(project);
    await registerTicket(project, 'acsg-ref', {
      condition: { body: [{ key: 'group', placeholder: 'GROUP' }] },
      actions: [{ act: 'acsg', exe: { group: '${placeholder[GROUP]}', user_id: '${body[user]}' } }],
    });
    expect((await consumePost(project, 'acsg-ref', { group: 12, user: user.user_id })).status).toBe(200);
    expect(await accessGroupOf(project, user.user_id)).toBe(12);
  });

  it('a group reference resolving outside 1..99 fails with ACTION_FAILED and changes nothing', async () => {
    const user = await mintUser(project, { access_group: 4 });
    await registerTicket(project, 'acsg-range', { actions: [{ act: 'acsg', exe: { group: '${body[group]}', user_id: user.user_id } }] });
    for (const group of [0, 100, 2.5, 'x', true]) {
      const res = await consumePost(project, 'acsg-range', { group });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action', action: { act: 'acsg', path: 'actions[0]' }, ticket_id: 'acsg-range' });
    }
    expect(await accessGroupOf(project, user.user_id)).toBe(4);
  });

  it('without user_id on a request that is not signed in fails with AUTH_REQUIRED at stage action', async () => {
    await registerTicket(project, 'acsg-anon', { actions: [{ act: 'acsg', exe: { group: 3 } }] });
    const res = await consumePost(project, 'acsg-anon');
    expect(res.json).toMatchObject({ code: 'AUTH_REQUIRED', stage: 'action', action: { act: 'acsg', path: 'actions[0]' } });
  });

  it('a user id that is not a user of this project fails with ACTION_FAILED', async () => {
    const other = await createProject();
    const stranger = await mintUser(other, { access_group: 2 });
    await registerTicket(project, 'acsg-unknown', { actions: [{ act: 'acsg', exe: { group: 3, user_id: '${body[user]}' } }] });
    for (const user of ['00000000-0000-4000-8000-000000000000', stranger.user_id]) {
      const res = await consumePost(project, 'acsg-unknown', { user });
      expect(res.json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action', detail: { user_id: user } });
    }
    expect(await accessGroupOf(other, stranger.user_id)).toBe(2);
  });

  it("changing the project owner's group fails with ACTION_FORBIDDEN", async () => {
    await registerTicket(project, 'acsg-owner', { actions: [{ act: 'acsg', exe: { group: 1, user_id: '${ticket[owner]}' } }] });
    const res = await consumePost(project, 'acsg-owner');
    expect(res.json).toMatchObject({ code: 'ACTION_FORBIDDEN', stage: 'action', action: { act: 'acsg', path: 'actions[0]' } });
  });

  it('a failed acsg gives the count back and is logged with its action row', async () => {
    await registerTicket(project, 'acsg-log', { count: 1, actions: [{ act: 'acsg', exe: { group: 3, user_id: 'nobody' } }] });
    await consumePost(project, 'acsg-log');
    expect(await remainingOf(project, 'acsg-log')).toBe(1);
    await settle(project, 'acsg-log');
    const [logged] = await loggedConsumptions(project, 'acsg-log');
    expect(logged).toMatchObject({
      failed: 1,
      code: 'ACTION_FAILED',
      description: { outcome: { ok: false, code: 'ACTION_FAILED', stage: 'action', action: { act: 'acsg', path: 'actions[0]' } } },
    });
    expect(logged.actions).toEqual([
      {
        seq: 0,
        path: 'actions[0]',
        act: 'acsg',
        detail: {
          sent: { user_id: 'nobody', group: 3 },
          error: { code: 'ACTION_FAILED', message: 'The user does not exist in this project.', detail: { user_id: 'nobody' } },
          attempts: 1,
        },
      },
    ]);
  });
});
