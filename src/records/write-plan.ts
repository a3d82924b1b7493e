import { ActionError } from '../wire/errors';
import type { RecordInput } from './input';
import { type Actor, type SourceSettings, type StoredRecord, type SubscriptionSettings, actorId } from './types';

export interface WriteContext {
  actor: Actor;
  ownerId: string;
  now: number;
  writer: { ticket_id: string; consume_id: string };
}

/** Drops keys set to null or undefined: null means "no setting" for every source and subscription key. */
function withoutEmpty<T extends object>(settings: T): T | undefined {
  const kept = Object.entries(settings).filter(([, value]) => value !== null && value !== undefined);
  return kept.length > 0 ? (Object.fromEntries(kept) as T) : undefined;
}

/** null clears every setting; an object changes the keys it names; absent keeps what is stored. */
function mergeSubscription(stored: SubscriptionSettings | undefined, given: SubscriptionSettings | null | undefined) {
  if (given === undefined) return stored;
  if (given === null) return undefined;
  return withoutEmpty({ ...stored, ...given });
}

/** Keys given replace stored ones; referencing_index_restrictions or referencing_limit null removes it. */
function mergeSource(stored: SourceSettings | undefined, given: SourceSettings | undefined) {
  if (given === undefined) return stored;
  return withoutEmpty({ ...stored, ...given });
}

/**
 * The project owner cannot hold a private, read-only or subscription record (spec 2.4): such a
 * record needs user_id. Checked on the record a write produces, so an owner-run update may still
 * change a record that belongs to a user.
 */
function checkHolder(record: StoredRecord, ownerId: string): void {
  if (record.user_id !== ownerId) return;
  const held =
    record.table.access_group === 'private'
      ? "a 'private' record"
      : record.readonly
        ? 'a read-only record'
        : record.table.subscription
          ? 'a subscription record'
          : null;
  if (held) {
    throw new ActionError('ACTION_FAILED', `The project owner cannot hold ${held}: give user_id.`, { field: 'user_id' });
  }
}

function checkNotSelf(record: StoredRecord): void {
  if (record.reference === record.record_id) {
    throw new ActionError('ACTION_FAILED', 'A record cannot reference itself.', { field: 'reference' });
  }
}

/**
 * The record a create writes. `reference` is the resolved record_id of the referenced record.
 * Absent fields take their defaults: access group public (0), no tags, not read-only.
 */
export function planCreate(input: RecordInput, ctx: WriteContext, recordId: string, reference: string | undefined): StoredRecord {
  const subscription = mergeSubscription(undefined, input.table.subscription);
  const source = mergeSource(undefined, input.source);
  const record: StoredRecord = {
    record_id: recordId,
    table: { name: input.table.name, access_group: input.table.access_group ?? 0, ...(subscription ? { subscription } : {}) },
    user_id: actorId(ctx.actor),
    ...(input.data ? { data: input.data.value } : {}),
    ...(input.index ? { index: input.index } : {}),
    tags: input.tags ?? [],
    ...(input.unique_id !== undefined ? { unique_id: input.unique_id } : {}),
    ...(reference !== undefined ? { reference } : {}),
    readonly: input.readonly ?? false,
    ...(source ? { source } : {}),
    created: ctx.now,
    updated: ctx.now,
    version: 0,
    written_by: ctx.writer,
  };
  checkHolder(record, ctx.ownerId);
  return record;
}

/**
 * The record an update writes: fields left out keep their stored value. A user may update only
 * their own record, and not a read-only one; the project owner may update any record.
 * `reference`: undefined keeps the stored reference, null removes it, text is the new record_id.
 */
export function planUpdate(existing: StoredRecord, input: RecordInput, ctx: WriteContext, reference: string | null | undefined): StoredRecord {
  const { actor } = ctx;
  if (actor.kind === 'user' && existing.user_id !== actor.user_id) {
    throw new ActionError('ACTION_FORBIDDEN', `Record ${existing.record_id} belongs to another user.`, {
      record_id: existing.record_id,
      reason: 'not_owner',
    });
  }
  if (actor.kind === 'user' && existing.readonly) {
    throw new ActionError('ACTION_FORBIDDEN', `Record ${existing.record_id} is read-only.`, { record_id: existing.record_id, reason: 'readonly' });
  }
  const subscription = mergeSubscription(existing.table.subscription, input.table.subscription);
  const source = mergeSource(existing.source, input.source);
  const { data: _data, index: _index, unique_id: _unique, reference: _reference, source: _source, ...kept } = existing;
  const nextReference = reference === undefined ? existing.reference : (reference ?? undefined);
  const uniqueId = input.unique_id ?? existing.unique_id;
  const index = input.index ?? existing.index;
  const data = input.data ? { data: input.data.value } : 'data' in existing ? { data: existing.data } : {};
  const record: StoredRecord = {
    ...kept,
    table: {
      name: input.table.name,
      access_group: input.table.access_group ?? existing.table.access_group,
      ...(subscription ? { subscription } : {}),
    },
    ...data,
    ...(index ? { index } : {}),
    tags: input.tags ?? existing.tags,
    ...(uniqueId !== undefined ? { unique_id: uniqueId } : {}),
    ...(nextReference !== undefined ? { reference: nextReference } : {}),
    readonly: input.readonly ?? existing.readonly,
    ...(source ? { source } : {}),
    updated: ctx.now,
    version: existing.version + 1,
    written_by: ctx.writer,
  };
  checkHolder(record, ctx.ownerId);
  checkNotSelf(record);
  return record;
}
