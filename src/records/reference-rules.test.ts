import { describe, expect, it } from 'vitest';
import { canRead } from './access-group';
import { type ReferenceFacts, checkReference, mayGrantOthers } from './reference-rules';
import type { Actor, RecordData } from './types';

const OWNER: Actor = { kind: 'owner', owner_id: 'owner-1' };
const alice: Actor = { kind: 'user', user_id: 'alice', access_group: 1 };
const bob: Actor = { kind: 'user', user_id: 'bob', access_group: 1 };

const target = (overrides: Partial<RecordData> = {}): RecordData => ({
  record_id: 'T1',
  table: { name: 'polls', access_group: 0 },
  user_id: 'alice',
  tags: [],
  readonly: false,
  created: 1,
  updated: 1,
  ...overrides,
});

const facts = (overrides: Partial<ReferenceFacts> = {}): ReferenceFacts => ({
  actor: bob,
  holder: 'bob',
  granted: false,
  referencingCount: 0,
  holderAlreadyReferences: false,
  ...overrides,
});

describe('record read access (who may reference)', () => {
  it('a user reads records up to their access group, their own records, and private ones only when granted', () => {
    expect(canRead(target({ table: { name: 't', access_group: 1 } }), bob, false)).toBe(true);
    expect(canRead(target({ table: { name: 't', access_group: 5 } }), bob, false)).toBe(false);
    expect(canRead(target({ table: { name: 't', access_group: 5 } }), alice, false)).toBe(true);
    expect(canRead(target({ table: { name: 't', access_group: 'private' } }), bob, false)).toBe(false);
    expect(canRead(target({ table: { name: 't', access_group: 'private' } }), bob, true)).toBe(true);
  });

  it('the project owner reads every record', () => {
    expect(canRead(target({ table: { name: 't', access_group: 'private' } }), OWNER, false)).toBe(true);
    expect(canRead(target({ table: { name: 't', access_group: 99 } }), OWNER, false)).toBe(true);
  });
});

describe('reference restrictions of the referenced record', () => {
  it('a record without source settings takes any reference', () => {
    expect(checkReference(target(), facts({ referencingCount: 1000, holderAlreadyReferences: true }))).toBeNull();
  });

  it('a private record the user was not granted is refused with no_access', () => {
    expect(checkReference(target({ table: { name: 't', access_group: 'private' } }), facts())?.reason).toBe('no_access');
  });

  it('only_granted_can_reference: refused for an ungranted user, passed by a granted user, the holder and the owner', () => {
    const onlyGranted = target({ source: { only_granted_can_reference: true } });
    expect(checkReference(onlyGranted, facts())?.reason).toBe('only_granted_can_reference');
    expect(checkReference(onlyGranted, facts({ granted: true }))).toBeNull();
    expect(checkReference(onlyGranted, facts({ actor: alice, holder: 'alice' }))).toBeNull();
    expect(checkReference(onlyGranted, facts({ actor: OWNER, holder: 'owner-1' }))).toBeNull();
  });

  it('referencing_limit: refused once that many records reference it; null is no limit; 0 refuses all', () => {
    const limited = target({ source: { referencing_limit: 2 } });
    expect(checkReference(limited, facts({ referencingCount: 1 }))).toBeNull();
    expect(checkReference(limited, facts({ referencingCount: 2 }))?.reason).toBe('referencing_limit');
    expect(checkReference(target({ source: { referencing_limit: null } }), facts({ referencingCount: 99 }))).toBeNull();
    expect(checkReference(target({ source: { referencing_limit: 0 } }), facts())?.reason).toBe('referencing_limit');
  });

  it('the counting rules hold for the project owner too', () => {
    const limited = target({ source: { referencing_limit: 1, prevent_multiple_referencing: true } });
    expect(checkReference(limited, facts({ actor: OWNER, holder: 'owner-1', referencingCount: 1 }))?.reason).toBe('referencing_limit');
  });

  it('prevent_multiple_referencing: refused when the holder already references it', () => {
    const once = target({ source: { prevent_multiple_referencing: true } });
    expect(checkReference(once, facts())).toBeNull();
    expect(checkReference(once, facts({ holderAlreadyReferences: true }))?.reason).toBe('prevent_multiple_referencing');
  });

  it('referencing_index_restrictions: refused when the referencing index does not meet them', () => {
    const restricted = target({ source: { referencing_index_restrictions: [{ name: 'stars', value: 1, range: 5 }] } });
    expect(checkReference(restricted, facts({ index: { name: 'stars', value: 4 } }))).toBeNull();
    expect(checkReference(restricted, facts({ index: { name: 'stars', value: 9 } }))?.reason).toBe('referencing_index_restrictions');
    expect(checkReference(restricted, facts())?.reason).toBe('referencing_index_restrictions');
  });
});

describe('allow_granted_to_grant_others', () => {
  it('a granted user may pass access on only when the record allows it; the holder and the owner always may', () => {
    expect(mayGrantOthers(target(), bob, true)).toBe(false);
    expect(mayGrantOthers(target({ source: { allow_granted_to_grant_others: true } }), bob, true)).toBe(true);
    expect(mayGrantOthers(target({ source: { allow_granted_to_grant_others: true } }), bob, false)).toBe(false);
    expect(mayGrantOthers(target(), alice, false)).toBe(true);
    expect(mayGrantOthers(target(), OWNER, false)).toBe(true);
  });
});
