import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { pstrAction } from '../../src/actions/pstr';
import type { ActionResult } from '../../src/actions/types';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { type HandBuiltOptions, handBuiltRun } from './hand-built-run';

let project: TestProject;
let alice: string;
let bob: string;

beforeAll(async () => {
  project = await createProject();
  alice = (await mintUser(project, { email: 'alice@example.com' })).user_id;
  bob = (await mintUser(project, { email: 'bob@example.com' })).user_id;
});

const pstr = (exe: Record<string, unknown>, options?: HandBuiltOptions): Promise<ActionResult> =>
  pstrAction.run(handBuiltRun(project, { act: 'pstr', exe } as TicketAction, options));

async function answer(exe: Record<string, unknown>, options?: HandBuiltOptions): Promise<any> {
  const result = await pstr(exe, options);
  if (!result.ok) throw new Error(`pstr failed: ${JSON.stringify(result.failure)}`);
  return result.answer;
}

async function failure(exe: Record<string, unknown>, options?: HandBuiltOptions) {
  const result = await pstr(exe, options);
  if (result.ok) throw new Error(`pstr passed: ${JSON.stringify(result.answer)}`);
  return result.failure;
}

const storedRow = (recordId: string) =>
  env.DB.prepare('SELECT * FROM records WHERE service_id = ? AND record_id = ?').bind(project.service_id, recordId).first<Record<string, unknown>>();

describe('pstr writes a record and answers it', () => {
  it('creates a record, answers RecordData and stores it in D1 with the ticket that wrote it', async () => {
    const record = await answer(
      { table: { name: 'orders', access_group: 'authorized' }, data: { total: 12 }, index: { name: 'total', value: 12 }, tags: ['paid'] },
      { ticketId: 'orders-hook' },
    );
    expect(record).toMatchObject({
      table: { name: 'orders', access_group: 1 },
      user_id: project.owner_id,
      data: { total: 12 },
      index: { name: 'total', value: 12 },
      tags: ['paid'],
      readonly: false,
    });
    expect(record.created).toBe(record.updated);
    expect(Object.keys(record)).not.toContain('version');
    const row = await storedRow(record.record_id);
    expect(row).toMatchObject({ table_name: 'orders', access_group: '1', ticket_id: 'orders-hook', index_value: '12' });
  });

  it('templates every field from the request: ${body[...]} keeps its type when it is the whole string', async () => {
    const record = await answer(
      { table: { name: 'events', access_group: 'public' }, data: '${body}', index: { name: 'n', value: '${body[n]}' }, unique_id: 'evt-${body[id]}' },
      { body: { id: 'x1', n: 7 } },
    );
    expect(record).toMatchObject({ data: { id: 'x1', n: 7 }, index: { name: 'n', value: 7 }, unique_id: 'evt-x1' });
  });

  it('a reference that fills a field with the wrong type fails with ACTION_FAILED naming the field', async () => {
    const failed = await failure({ table: { name: 'events', access_group: 0 }, unique_id: '${body[id]}' }, { body: { id: 5 } });
    expect(failed).toMatchObject({ code: 'ACTION_FAILED', detail: { field: 'unique_id' } });
  });

  it('unique_id: a retried webhook updates the same record instead of creating another', async () => {
    const first = await answer({ table: { name: 'payments', access_group: 0 }, unique_id: 'pay-1', data: { status: 'pending' } });
    const second = await answer({ table: { name: 'payments', access_group: 0 }, unique_id: 'pay-1', data: { status: 'paid' } });
    expect(second.record_id).toBe(first.record_id);
    expect(second).toMatchObject({ data: { status: 'paid' }, created: first.created });
    const { count } = (await env.DB.prepare("SELECT COUNT(*) AS count FROM records WHERE service_id = ? AND unique_id = 'pay-1'")
      .bind(project.service_id)
      .first<{ count: number }>())!;
    expect(count).toBe(1);
  });

  it('concurrent writes with one unique_id leave one record', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => answer({ table: { name: 'race', access_group: 0 }, unique_id: 'same', data: n })));
    expect(new Set(results.map((record) => record.record_id)).size).toBe(1);
  });

  it('record_id updates that record: fields left out keep their value; access group absent is unchanged', async () => {
    const created = await answer({ table: { name: 'notes', access_group: 5 }, data: 'v1', tags: ['a'] });
    const updated = await answer({ table: 'notes', record_id: created.record_id, tags: ['b'] });
    expect(updated).toMatchObject({ record_id: created.record_id, table: { access_group: 5 }, data: 'v1', tags: ['b'] });
  });

  it('record_id of a record that does not exist fails with ACTION_FAILED and writes nothing', async () => {
    const failed = await failure({ table: { name: 'notes', access_group: 0 }, record_id: 'nope' });
    expect(failed).toMatchObject({ code: 'ACTION_FAILED', detail: { field: 'record_id' } });
    expect(await storedRow('nope')).toBeNull();
  });

  it('record_id with a unique_id another record holds fails with ACTION_FAILED', async () => {
    await answer({ table: { name: 'u', access_group: 0 }, unique_id: 'taken' });
    const other = await answer({ table: { name: 'u', access_group: 0 } });
    const failed = await failure({ table: 'u', record_id: other.record_id, unique_id: 'taken' });
    expect(failed).toMatchObject({ code: 'ACTION_FAILED', detail: { field: 'unique_id' } });
  });
});

describe('pstr user_id', () => {
  it('a UUID of a project user makes the record theirs', async () => {
    const record = await answer({ table: { name: 'profiles', access_group: 'private' }, user_id: alice, readonly: true });
    expect(record).toMatchObject({ user_id: alice, table: { access_group: 'private' }, readonly: true });
  });

  it('user_id filled in from ${user[user_id]} is the signed-in consumer', async () => {
    const record = await answer({ table: { name: 'profiles', access_group: 0 }, user_id: '${user[user_id]}' }, { user: { user_id: bob } });
    expect(record.user_id).toBe(bob);
  });

  it('anything but the UUID of a project user fails with ACTION_FAILED', async () => {
    for (const userId of ['not-a-uuid', crypto.randomUUID(), project.owner_id]) {
      const failed = await failure({ table: { name: 'profiles', access_group: 0 }, user_id: userId });
      expect([userId, failed.code, failed.detail]).toEqual([userId, 'ACTION_FAILED', { field: 'user_id' }]);
    }
  });

  it('without user_id the owner cannot create a private, read-only or subscription record (ACTION_FAILED)', async () => {
    for (const exe of [
      { table: { name: 'p', access_group: 'private' } },
      { table: { name: 'p', access_group: 0 }, readonly: true },
      { table: { name: 'p', access_group: 0, subscription: { upload_to_feed: true } } },
    ]) {
      expect(await failure(exe)).toMatchObject({ code: 'ACTION_FAILED', detail: { field: 'user_id' } });
    }
  });

  it("a user cannot update another user's record, nor their own read-only one (ACTION_FORBIDDEN)", async () => {
    const mine = await answer({ table: { name: 'diary', access_group: 0 }, user_id: alice });
    expect(await failure({ table: 'diary', record_id: mine.record_id, user_id: bob, data: 'x' })).toMatchObject({
      code: 'ACTION_FORBIDDEN',
      detail: { reason: 'not_owner' },
    });
    const locked = await answer({ table: { name: 'diary', access_group: 0 }, user_id: alice, readonly: true });
    expect(await failure({ table: 'diary', record_id: locked.record_id, user_id: alice, data: 'x' })).toMatchObject({
      code: 'ACTION_FORBIDDEN',
      detail: { reason: 'readonly' },
    });
    const byOwner = await answer({ table: 'diary', record_id: locked.record_id, data: 'set by the owner' });
    expect([byOwner.user_id, byOwner.data]).toEqual([alice, 'set by the owner']);
  });
});
