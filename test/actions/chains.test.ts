import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredTicket } from '../../schemas/ticket-types';
import { saveDirectoryEntry } from '../../src/platform/ticket-directory';
import type { TicketAction } from '../../schemas/ticket-types';
import { createProject, mintUser, registerTicket, type TestProject } from '../helpers/api';
import { accessGroupOf, consumePost, loggedConsumptions, remainingOf, settle } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const GRANTED = 'SUCCESS: The user has been granted the access group.';
const acsg = (group: number | string, userId: string, extra: Record<string, unknown> = {}) => ({ act: 'acsg', exe: { group, user_id: userId }, ...extra });

describe('Then chains and err chains through the Worker', () => {
  it('actions run in order and each writes an action row; a cond in the Then chain checks the answer', async () => {
    const [a, b] = [await mintUser(project, { access_group: 1 }), await mintUser(project, { access_group: 1 })];
    const then = [{ act: 'cond', exe: { response: [{ key: '', operator: '=', value: GRANTED }] } }, acsg(31, b.user_id)];
    await registerTicket(project, 'chain-order', { actions: [{ act: 'acsg', exe: { group: 30, user_id: a.user_id, actions: then } }] });
    const res = await consumePost(project, 'chain-order');
    expect(res.status).toBe(200);
    expect(res.json.tkid).toBeDefined();
    expect([await accessGroupOf(project, a.user_id), await accessGroupOf(project, b.user_id)]).toEqual([30, 31]);
    await settle(project, 'chain-order');
    const [logged] = await loggedConsumptions(project, 'chain-order');
    expect(logged.failed).toBe(0);
    expect(logged.actions.map((r) => [r.seq, r.path, r.act])).toEqual([
      [0, 'actions[0]', 'acsg'],
      [1, 'actions[0].exe.actions[0]', 'cond'],
      [2, 'actions[0].exe.actions[1]', 'acsg'],
    ]);
    expect(logged.actions[0].detail).toEqual({ sent: { user_id: a.user_id, group: 30 }, received: GRANTED, attempts: 1 });
  });

  it('a cond row that does not pass fails the chain there with CONDITION_FAILED and detail { field: response, keys }', async () => {
    const [a, b] = [await mintUser(project, { access_group: 1 }), await mintUser(project, { access_group: 1 })];
    const then = [{ act: 'cond', exe: { response: [{ key: '', operator: '>=', value: 'FAILURE' }] } }, acsg(41, b.user_id)];
    await registerTicket(project, 'chain-cond', {
      count: 2,
      actions: [{ act: 'acsg', exe: { group: 40, user_id: a.user_id, actions: then } }, acsg(42, b.user_id)],
    });
    const res = await consumePost(project, 'chain-cond');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: 'CONDITION_FAILED',
      message: expect.any(String),
      stage: 'action',
      action: { act: 'cond', path: 'actions[0].exe.actions[0]' },
      detail: { field: 'response', keys: [''] },
      ticket_id: 'chain-cond',
    });
    // No rollback: the first acsg stays applied; nothing after the failed cond ran.
    expect([await accessGroupOf(project, a.user_id), await accessGroupOf(project, b.user_id)]).toEqual([40, 1]);
    expect(await remainingOf(project, 'chain-cond')).toBe(2);
  });

  it('an err chain runs on failure; when it completes the consumption fails with the original error and the chain stops', async () => {
    const helper = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'chain-err', {
      count: 1,
      actions: [acsg('${body[group]}', helper.user_id, { err: [acsg(8, helper.user_id)] }), acsg(99, helper.user_id)],
    });
    const res = await consumePost(project, 'chain-err', { group: 150 });
    expect(res.json).toMatchObject({ code: 'ACTION_FAILED', stage: 'action', action: { act: 'acsg', path: 'actions[0]' }, detail: { group: 150 } });
    expect(await accessGroupOf(project, helper.user_id)).toBe(8);
    expect(await remainingOf(project, 'chain-err')).toBe(1);
    await settle(project, 'chain-err');
    const [logged] = await loggedConsumptions(project, 'chain-err');
    expect(logged).toMatchObject({ failed: 1, code: 'ACTION_FAILED' });
    expect(logged.actions.map((r) => r.path)).toEqual(['actions[0]', 'actions[0].err[0]']);
  });

  it('an err chain that fails itself is reported at its own place, such as actions[1].err[0]', async () => {
    const user = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'chain-err-fails', {
      actions: [acsg(5, user.user_id), acsg(6, 'nobody', { err: [acsg(7, '${error[detail][user_id]}')] })],
    });
    const res = await consumePost(project, 'chain-err-fails');
    expect(res.json).toMatchObject({
      code: 'ACTION_FAILED',
      stage: 'action',
      action: { act: 'acsg', path: 'actions[1].err[0]' },
      detail: { user_id: 'nobody' },
    });
    expect(await accessGroupOf(project, user.user_id)).toBe(5);
  });

  it('a resp in the err chain answers the caller with ${error}, and the consumption is logged as failed', async () => {
    await registerTicket(project, 'chain-handled', {
      count: 1,
      actions: [
        acsg(3, 'nobody', { err: [{ act: 'resp', exe: { status: 200, body: { handled: '${error[code]}', at: '${error[path]}', act: '${error[action]}' } } }] }),
      ],
    });
    const res = await consumePost(project, 'chain-handled');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ handled: 'ACTION_FAILED', at: 'actions[0]', act: 'acsg' });
    expect(await remainingOf(project, 'chain-handled')).toBe(1);
    await settle(project, 'chain-handled');
    const [logged] = await loggedConsumptions(project, 'chain-handled');
    expect(logged).toMatchObject({ failed: 1, code: 'ACTION_FAILED', description: { responded: { status: 200 } } });
  });

  it('a reference that does not resolve fails the action before it does anything (PATH_NOT_FOUND, PLACEHOLDER_MISSING)', async () => {
    const user = await mintUser(project, { access_group: 1 });
    await registerTicket(project, 'chain-refs', {
      condition: { body: [{ key: 'g', placeholder: 'G' }] },
      actions: [acsg('${placeholder[G]}', '${body[who]}')],
    });
    expect((await consumePost(project, 'chain-refs', { g: 9 })).json).toMatchObject({
      code: 'PATH_NOT_FOUND',
      stage: 'action',
      action: { act: 'acsg', path: 'actions[0]' },
    });
    expect((await consumePost(project, 'chain-refs', { who: user.user_id })).json).toMatchObject({ code: 'PLACEHOLDER_MISSING', stage: 'action' });
    expect(await accessGroupOf(project, user.user_id)).toBe(1);
  });

  it('a retried action is tried again and its row carries attempts and retried', async () => {
    // The user appears between tries: the first try fails (no such user), a later one succeeds.
    const userId = crypto.randomUUID();
    await registerTicket(project, 'chain-retry', { actions: [acsg(11, userId, { retry: true })] });
    const consumed = consumePost(project, 'chain-retry');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await mintUser(project, { user_id: userId, access_group: 1 });
    expect((await consumed).status).toBe(200);
    expect(await accessGroupOf(project, userId)).toBe(11);
    await settle(project, 'chain-retry');
    const [logged] = await loggedConsumptions(project, 'chain-retry');
    expect(logged.actions[0].detail).toMatchObject({ attempts: 2, retried: true, received: GRANTED });
  });

  it('a kind with no registered module fails with INTERNAL_ERROR at stage action', async () => {
    const now = Date.now();
    const bogus = { act: 'bogus', exe: {} } as unknown as TicketAction;
    // Stored as registration stores it (the object's copy, then the directory's), with a definition registration would refuse.
    const stored: StoredTicket = { ticket_id: 'chain-bogus', condition: {}, actions: [bogus], timestamp: now, updated: now, rules_version: 2 };
    await ticketStub(env, project.service_id, 'chain-bogus').store(stored, null);
    await saveDirectoryEntry(env, project.service_id, stored);
    const res = await consumePost(project, 'chain-bogus');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INTERNAL_ERROR', stage: 'action', action: { act: 'bogus', path: 'actions[0]' } });
  });
});
