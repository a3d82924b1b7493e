import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { pstrAction } from '../../src/actions/pstr';
import type { ActionResult } from '../../src/actions/types';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { handBuiltRun } from '../actions/hand-built-run';

let project: TestProject;
let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  project = await createProject();
  alice = (await mintUser(project)).user_id;
  bob = (await mintUser(project)).user_id;
  carol = (await mintUser(project, { access_group: 3 })).user_id;
});

const pstr = (exe: Record<string, unknown>): Promise<ActionResult> => pstrAction.run(handBuiltRun(project, { act: 'pstr', exe } as TicketAction));

async function written(exe: Record<string, unknown>): Promise<any> {
  const result = await pstr(exe);
  if (!result.ok) throw new Error(`pstr failed: ${JSON.stringify(result.failure)}`);
  return result.answer;
}

async function refused(exe: Record<string, unknown>) {
  const result = await pstr(exe);
  if (result.ok) throw new Error(`pstr passed: ${JSON.stringify(result.answer)}`);
  return result.failure;
}

const referencingCount = async (recordId: string) =>
  (await env.DB.prepare('SELECT COUNT(*) AS n FROM records WHERE service_id = ? AND reference = ?').bind(project.service_id, recordId).first<{ n: number }>())!
    .n;

const poll = (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  written({ table: { name: 'polls', access_group: 'authorized' }, user_id: alice, source, ...extra });
const vote = (reference: string, userId: string, extra: Record<string, unknown> = {}) => ({
  table: { name: 'votes', access_group: 'authorized' },
  user_id: userId,
  reference,
  ...extra,
});

describe('reference', () => {
  it('a reference by record id or by unique id is stored as the record id', async () => {
    const target = await poll({}, { unique_id: 'poll-by-unique' });
    expect((await written(vote(target.record_id, bob))).reference).toBe(target.record_id);
    expect((await written(vote('poll-by-unique', bob))).reference).toBe(target.record_id);
  });

  it('a reference to a record that does not exist fails with ACTION_FAILED and writes nothing', async () => {
    const failure = await refused(vote('no-such-record', bob, { unique_id: 'dangling' }));
    expect(failure).toMatchObject({ code: 'ACTION_FAILED', detail: { field: 'reference', reference: 'no-such-record' } });
    const row = await env.DB.prepare("SELECT 1 FROM records WHERE service_id = ? AND unique_id = 'dangling'").bind(project.service_id).first();
    expect(row).toBeNull();
  });

  it('reference null on update removes the reference', async () => {
    const target = await poll({});
    const referencing = await written(vote(target.record_id, bob));
    const cleared = await written({ table: 'votes', record_id: referencing.record_id, reference: null });
    expect(cleared).not.toHaveProperty('reference');
  });

  it('a refused reference fails with ACTION_FORBIDDEN whose detail names the rule and the referenced record', async () => {
    const target = await poll({ referencing_limit: 0 });
    expect(await refused(vote(target.record_id, bob))).toEqual({
      code: 'ACTION_FORBIDDEN',
      message: `Record ${target.record_id} takes at most 0 referencing records.`,
      detail: { reason: 'referencing_limit', reference: target.record_id },
    });
  });
});

describe('source restrictions, enforced when a later record references this one', () => {
  it('referencing_limit holds under concurrent writes: exactly that many of them are written', async () => {
    const target = await poll({ referencing_limit: 2 });
    const users = [alice, bob, carol, alice, bob, carol];
    const results = await Promise.all(users.map((user) => pstr(vote(target.record_id, user))));
    expect(results.filter((result) => result.ok)).toHaveLength(2);
    expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.failure.detail?.reason)).toEqual(Array(4).fill('referencing_limit'));
    expect(await referencingCount(target.record_id)).toBe(2);
  });

  it('prevent_multiple_referencing: one referencing record per user, also under concurrent writes', async () => {
    const target = await poll({ prevent_multiple_referencing: true });
    const results = await Promise.all([1, 2, 3].map(() => pstr(vote(target.record_id, bob))));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'prevent_multiple_referencing' } });
    await written(vote(target.record_id, carol));
    expect(await referencingCount(target.record_id)).toBe(2);
  });

  it('a record updated in place keeps its own place under referencing_limit', async () => {
    const target = await poll({ referencing_limit: 1 });
    const only = await written(vote(target.record_id, bob, { unique_id: `ballot-${target.record_id}` }));
    const again = await written(vote(target.record_id, bob, { unique_id: `ballot-${target.record_id}`, data: 'changed' }));
    expect([again.record_id, again.data]).toEqual([only.record_id, 'changed']);
  });

  it('only_granted_can_reference: refused until the user holds a grant on the record', async () => {
    const target = await poll({ only_granted_can_reference: true });
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'only_granted_can_reference' } });
    await env.DB.prepare('INSERT INTO record_grants (service_id, record_id, user_id, created) VALUES (?, ?, ?, ?)')
      .bind(project.service_id, target.record_id, bob, Date.now())
      .run();
    await written(vote(target.record_id, bob));
    await written(vote(target.record_id, alice));
    await written({ table: { name: 'votes', access_group: 0 }, reference: target.record_id });
  });

  it('a private record can be referenced only by its holder, granted users and the owner', async () => {
    const target = await written({ table: { name: 'secret', access_group: 'private' }, user_id: alice });
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'no_access' } });
    await written(vote(target.record_id, alice));
    await written({ table: { name: 'notes', access_group: 0 }, reference: target.record_id });
  });

  it("a record above the user's access group cannot be referenced by them", async () => {
    const target = await written({ table: { name: 'staff', access_group: 3 }, user_id: carol });
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ code: 'ACTION_FORBIDDEN', detail: { reason: 'no_access' } });
  });

  it('referencing_index_restrictions: checked on reference, and again when a referencing record changes its index', async () => {
    const target = await poll({ referencing_index_restrictions: [{ name: 'stars', value: 1, range: 5 }] });
    expect(await refused(vote(target.record_id, bob, { index: { name: 'stars', value: 9 } }))).toMatchObject({
      code: 'ACTION_FORBIDDEN',
      detail: { reason: 'referencing_index_restrictions' },
    });
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ detail: { reason: 'referencing_index_restrictions' } });
    const ok = await written(vote(target.record_id, bob, { index: { name: 'stars', value: 4 } }));
    expect(await refused({ table: 'votes', record_id: ok.record_id, user_id: bob, index: { name: 'stars', value: 6 } })).toMatchObject({
      detail: { reason: 'referencing_index_restrictions' },
    });
  });

  it("string index values: '>=' is starts-with, '<=' is plain lesser-or-equal", async () => {
    const startsWith = await poll({ referencing_index_restrictions: [{ name: 'code', value: 'EU-', condition: '>=' }] });
    await written(vote(startsWith.record_id, bob, { index: { name: 'code', value: 'EU-42' } }));
    expect(await refused(vote(startsWith.record_id, bob, { index: { name: 'code', value: 'US-1' } }))).toMatchObject({ code: 'ACTION_FORBIDDEN' });
    const atMost = await poll({ referencing_index_restrictions: [{ name: 'code', value: 'm', condition: '<=' }] });
    await written(vote(atMost.record_id, bob, { index: { name: 'code', value: 'apple' } }));
    expect(await refused(vote(atMost.record_id, bob, { index: { name: 'code', value: 'zebra' } }))).toMatchObject({ code: 'ACTION_FORBIDDEN' });
  });

  it('referencing_index_restrictions null on update removes every restriction', async () => {
    const target = await poll({ referencing_index_restrictions: [{ name: 'stars' }] });
    expect(await refused(vote(target.record_id, bob))).toMatchObject({ code: 'ACTION_FORBIDDEN' });
    await written({ table: 'polls', record_id: target.record_id, source: { referencing_index_restrictions: null } });
    await written(vote(target.record_id, bob));
  });
});
