import type { AccessGroup, Actor } from './types';

export type AccessGroupInput = number | 'public' | 'authorized' | 'admin' | 'private';

const NAMED: Record<string, AccessGroup> = { public: 0, authorized: 1, admin: 99, private: 'private' };

/** 'public' = 0, 'authorized' = 1, 'admin' = 99; numbers and 'private' as given. */
export const accessGroupOf = (input: AccessGroupInput): AccessGroup => (typeof input === 'number' ? input : NAMED[input]);

export const storedAccessGroup = (group: AccessGroup): string => String(group);

export const parseStoredAccessGroup = (text: string): AccessGroup => (text === 'private' ? 'private' : Number(text));

/**
 * Whether the actor may read a record, and so reference it. The project owner reads everything; a
 * user reads their own records, private records they were granted, and records whose access group
 * is at most their own.
 */
export function canRead(record: { table: { access_group: AccessGroup }; user_id: string }, actor: Actor, granted: boolean): boolean {
  if (actor.kind === 'owner' || record.user_id === actor.user_id) return true;
  const group = record.table.access_group;
  if (group === 'private') return granted;
  return group <= actor.access_group;
}
