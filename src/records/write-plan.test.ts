import { describe, expect, it } from 'vitest';
import { ActionError } from '../wire/errors';
import { parseRecordInput } from './input';
import type { Actor, StoredRecord } from './types';
import { type WriteContext, planCreate, planUpdate } from './write-plan';

const OWNER_ID = 'owner-1';
const owner: Actor = { kind: 'owner', owner_id: OWNER_ID };
const alice: Actor = { kind: 'user', user_id: 'alice', access_group: 1 };
const ctx = (actor: Actor, now = 1000): WriteContext => ({ actor, ownerId: OWNER_ID, now, writer: { ticket_id: 't', consume_id: 'c' } });

function failure(fn: () => unknown): ActionError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ActionError) return err;
    throw err;
  }
  throw new Error('expected an ActionError');
}

const stored = (overrides: Partial<StoredRecord> = {}): StoredRecord => ({
  ...planCreate(
    parseRecordInput({ table: { name: 'notes', access_group: 'authorized' }, data: { a: 1 }, index: { name: 'n', value: 1 }, tags: ['x'] }),
    ctx(alice, 500),
    'R1',
    undefined,
  ),
  ...overrides,
});

describe('pstr input after templating', () => {
  it('a table given as a string is { name } with no access group (public on create)', () => {
    expect(parseRecordInput({ table: 'notes' }).table).toEqual({ name: 'notes' });
    expect(planCreate(parseRecordInput({ table: 'notes' }), ctx(owner), 'R', undefined).table).toEqual({ name: 'notes', access_group: 0 });
  });

  it("access groups by name: 'public' 0, 'authorized' 1, 'admin' 99, 'private' kept", () => {
    const group = (access_group: unknown) => parseRecordInput({ table: { name: 't', access_group } }).table.access_group;
    expect([group('public'), group('authorized'), group('admin'), group('private'), group(7)]).toEqual([0, 1, 99, 'private', 7]);
  });

  it('a reference that filled a field with the wrong type fails with ACTION_FAILED naming the field', () => {
    const err = failure(() => parseRecordInput({ table: { name: 't' }, unique_id: 42 }));
    expect([err.code, err.detail]).toEqual(['ACTION_FAILED', { field: 'unique_id' }]);
    expect(failure(() => parseRecordInput({ table: { name: { x: 1 } } })).detail).toEqual({ field: 'table' });
    expect(failure(() => parseRecordInput({ table: 't', index: { name: 'n', value: null } })).detail).toEqual({ field: 'index.value' });
  });
});

describe('creating a record', () => {
  it('the record belongs to the actor: the user, or the owner when user_id is absent', () => {
    expect(stored().user_id).toBe('alice');
    expect(planCreate(parseRecordInput({ table: 't' }), ctx(owner), 'R', undefined).user_id).toBe(OWNER_ID);
  });

  it('data null is kept as null; data left out is absent', () => {
    expect(planCreate(parseRecordInput({ table: 't', data: null }), ctx(owner), 'R', undefined)).toHaveProperty('data', null);
    expect(planCreate(parseRecordInput({ table: 't' }), ctx(owner), 'R', undefined)).not.toHaveProperty('data');
  });

  it('the project owner cannot create a private, read-only or subscription record (ACTION_FAILED)', () => {
    for (const exe of [
      { table: { name: 't', access_group: 'private' } },
      { table: 't', readonly: true },
      { table: { name: 't', subscription: { is_subscription_record: true } } },
    ]) {
      const err = failure(() => planCreate(parseRecordInput(exe), ctx(owner), 'R', undefined));
      expect([err.code, err.detail]).toEqual(['ACTION_FAILED', { field: 'user_id' }]);
    }
  });

  it('a user may create a private, read-only subscription record', () => {
    const record = planCreate(
      parseRecordInput({ table: { name: 't', access_group: 'private', subscription: { notify_subscribers: true } }, readonly: true }),
      ctx(alice),
      'R',
      undefined,
    );
    expect(record).toMatchObject({ table: { access_group: 'private', subscription: { notify_subscribers: true } }, readonly: true });
  });
});

describe('updating a record', () => {
  it('fields left out keep their stored value; access group absent is unchanged', () => {
    const updated = planUpdate(stored(), parseRecordInput({ table: 'notes', tags: ['y'] }), ctx(alice, 900), undefined);
    expect(updated).toMatchObject({ table: { name: 'notes', access_group: 1 }, data: { a: 1 }, index: { name: 'n', value: 1 }, tags: ['y'] });
    expect([updated.created, updated.updated, updated.version]).toEqual([500, 900, 1]);
  });

  it("a user cannot update another user's record (ACTION_FORBIDDEN not_owner)", () => {
    const bob: Actor = { kind: 'user', user_id: 'bob', access_group: 1 };
    const err = failure(() => planUpdate(stored(), parseRecordInput({ table: 'notes' }), ctx(bob), undefined));
    expect([err.code, err.detail?.reason]).toEqual(['ACTION_FORBIDDEN', 'not_owner']);
  });

  it('a read-only record refuses its user (ACTION_FORBIDDEN readonly) but not the project owner', () => {
    const readonly = stored({ readonly: true });
    const err = failure(() => planUpdate(readonly, parseRecordInput({ table: 'notes', data: 2 }), ctx(alice), undefined));
    expect([err.code, err.detail?.reason]).toEqual(['ACTION_FORBIDDEN', 'readonly']);
    const byOwner = planUpdate(readonly, parseRecordInput({ table: 'notes', data: 2 }), ctx(owner), undefined);
    expect([byOwner.data, byOwner.user_id]).toEqual([2, 'alice']);
  });

  it('subscription null clears every setting; an object changes only the keys it names', () => {
    const subscribed = stored({ table: { name: 'notes', access_group: 1, subscription: { upload_to_feed: true, notify_subscribers: true } } });
    const changed = planUpdate(subscribed, parseRecordInput({ table: { name: 'notes', subscription: { notify_subscribers: false } } }), ctx(alice), undefined);
    expect(changed.table.subscription).toEqual({ upload_to_feed: true, notify_subscribers: false });
    const cleared = planUpdate(subscribed, parseRecordInput({ table: { name: 'notes', subscription: null } }), ctx(alice), undefined);
    expect(cleared.table).not.toHaveProperty('subscription');
  });

  it('source keys given replace stored ones; referencing_index_restrictions null removes all restrictions', () => {
    const restricted = stored({ source: { referencing_limit: 3, referencing_index_restrictions: [{ name: 'n' }] } });
    const changed = planUpdate(restricted, parseRecordInput({ table: 'notes', source: { referencing_index_restrictions: null } }), ctx(alice), undefined);
    expect(changed.source).toEqual({ referencing_limit: 3 });
  });

  it('reference: undefined keeps it, null removes it, and a record cannot reference itself', () => {
    const referencing = stored({ reference: 'T' });
    expect(planUpdate(referencing, parseRecordInput({ table: 'notes' }), ctx(alice), undefined).reference).toBe('T');
    expect(planUpdate(referencing, parseRecordInput({ table: 'notes', reference: null }), ctx(alice), null)).not.toHaveProperty('reference');
    const err = failure(() => planUpdate(stored(), parseRecordInput({ table: 'notes', reference: 'R1' }), ctx(alice), 'R1'));
    expect([err.code, err.detail]).toEqual(['ACTION_FAILED', { field: 'reference' }]);
  });

  it("an owner-run update may make a user's record private (the user holds it)", () => {
    const updated = planUpdate(stored(), parseRecordInput({ table: { name: 'notes', access_group: 'private' } }), ctx(owner), undefined);
    expect(updated.table.access_group).toBe('private');
  });
});
