import { ActionError } from '../wire/errors';
import type { Env } from '../env';
import { loadUser } from '../platform/users';
import type { RecordInput } from './input';
import { indexMeetsRestrictions } from './index-restrictions';
import { newRecordId } from './record-id';
import { checkReference } from './reference-rules';
import { type ReferenceGuard, insertRecord, loadRecord, loadRecordByUniqueId, loadReferencedRecord, referenceCounts, updateRecord } from './store';
import type { Actor, StoredRecord } from './types';
import { type WriteContext, planCreate, planUpdate } from './write-plan';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A write that lost a race (a unique_id taken meanwhile, a concurrent update of the same record) is planned again from what is stored now, up to this many times in all. */
const WRITE_ATTEMPTS = 8;

export interface WriteRecordOptions {
  serviceId: string;
  ownerId: string;
  now: number;
  writer: { ticket_id: string; consume_id: string };
}

/** Absent user_id = the project owner; otherwise the UUID of an existing project user, else ACTION_FAILED. */
async function resolveActor(env: Env, serviceId: string, ownerId: string, userId: string | undefined): Promise<Actor> {
  if (userId === undefined) return { kind: 'owner', owner_id: ownerId };
  const user = UUID.test(userId) ? await loadUser(env, serviceId, userId) : null;
  if (!user) {
    throw new ActionError('ACTION_FAILED', 'user_id must be the id (a UUID) of a user of this project.', { field: 'user_id' });
  }
  return { kind: 'user', user_id: user.user_id, access_group: user.access_group };
}

const sameIndex = (a: StoredRecord['index'], b: StoredRecord['index']) => a?.name === b?.name && a?.value === b?.value;

/**
 * Checks the rules of the referenced record when a write makes or changes a reference, and returns
 * the guard the write repeats atomically. A write that only changes the index of a referencing
 * record is held to the index restrictions alone.
 */
async function checkReferenceOf(
  env: Env,
  serviceId: string,
  actor: Actor,
  record: StoredRecord,
  existing: StoredRecord | null,
  named: StoredRecord | null,
): Promise<ReferenceGuard | undefined> {
  // A reference the write keeps as stored is only checked again when the index changes.
  const keptReference = !named && existing && record.reference === existing.reference ? existing.reference : undefined;
  const target = keptReference !== undefined && !sameIndex(existing?.index, record.index) ? await loadRecord(env.DB, serviceId, keptReference) : named;
  if (!target) return undefined;
  const forbid = (reason: string, message: string) => new ActionError('ACTION_FORBIDDEN', message, { reason, reference: target.record_id });
  if (existing && existing.reference === target.record_id) {
    if (!sameIndex(existing.index, record.index) && !indexMeetsRestrictions(record.index, target.source?.referencing_index_restrictions)) {
      throw forbid(
        'referencing_index_restrictions',
        `The index of this record does not meet the referencing_index_restrictions of record ${target.record_id}.`,
      );
    }
    return undefined;
  }
  const counts = await referenceCounts(env.DB, serviceId, target.record_id, record.user_id, actor.kind === 'user' ? actor.user_id : null, record.record_id);
  const refusal = checkReference(target, { actor, holder: record.user_id, index: record.index, ...counts });
  if (refusal) throw forbid(refusal.reason, refusal.message);
  const limit = target.source?.referencing_limit;
  return {
    target: target.record_id,
    ...(limit !== undefined && limit !== null ? { limit } : {}),
    ...(target.source?.prevent_multiple_referencing ? { oncePerHolder: true } : {}),
  };
}

/** The record an update names: record_id (must exist), else the holder of unique_id (may not exist yet). */
async function findExisting(env: Env, serviceId: string, input: RecordInput): Promise<StoredRecord | null> {
  if (input.record_id !== undefined) {
    const record = await loadRecord(env.DB, serviceId, input.record_id);
    if (!record) throw new ActionError('ACTION_FAILED', `No record ${input.record_id} exists.`, { field: 'record_id', record_id: input.record_id });
    if (input.unique_id !== undefined && input.unique_id !== record.unique_id) {
      const holder = await loadRecordByUniqueId(env.DB, serviceId, input.unique_id);
      if (holder) throw new ActionError('ACTION_FAILED', `unique_id "${input.unique_id}" belongs to another record.`, { field: 'unique_id' });
    }
    return record;
  }
  return input.unique_id !== undefined ? loadRecordByUniqueId(env.DB, serviceId, input.unique_id) : null;
}

async function findTarget(env: Env, serviceId: string, reference: string | null | undefined): Promise<StoredRecord | null> {
  if (typeof reference !== 'string') return null;
  const target = await loadReferencedRecord(env.DB, serviceId, reference);
  if (!target) {
    throw new ActionError('ACTION_FAILED', `The referenced record ${reference} does not exist.`, { field: 'reference', reference });
  }
  return target;
}

/**
 * Creates or updates one record (pstr). record_id updates that record; unique_id updates the record
 * holding it or creates one with it, so a retried webhook updates the same record; neither creates.
 * Throws ActionError: ACTION_FAILED for what cannot be done (a missing record, an invalid user_id),
 * ACTION_FORBIDDEN for what the records' rules refuse.
 */
export async function writeRecord(env: Env, input: RecordInput, options: WriteRecordOptions): Promise<{ record: StoredRecord; created: boolean }> {
  const actor = await resolveActor(env, options.serviceId, options.ownerId, input.user_id);
  const ctx: WriteContext = { actor, ownerId: options.ownerId, now: options.now, writer: options.writer };
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const existing = await findExisting(env, options.serviceId, input);
    const target = await findTarget(env, options.serviceId, input.reference);
    const reference = input.reference === null ? null : target?.record_id;
    const record = existing ? planUpdate(existing, input, ctx, reference) : planCreate(input, ctx, newRecordId(options.now), reference ?? undefined);
    const guard = await checkReferenceOf(env, options.serviceId, actor, record, existing, target);
    const written = existing
      ? await updateRecord(env.DB, options.serviceId, record, existing.version, guard)
      : await insertRecord(env.DB, options.serviceId, record, guard);
    if (written) return { record: written, created: !existing };
  }
  throw new ActionError('ACTION_FAILED', 'The record changed while it was being written; nothing was written.', { reason: 'conflict' });
}
