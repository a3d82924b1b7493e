import { canRead } from './access-group';
import { indexMeetsRestrictions } from './index-restrictions';
import type { Actor, IndexValue, RecordData } from './types';

/** What the store knows about a reference about to be written. */
export interface ReferenceFacts {
  actor: Actor;
  /** User id the referencing record belongs to (after the write). */
  holder: string;
  /** The actor holds a grant (acsr) on the referenced record. */
  granted: boolean;
  /** Records referencing the target now, the one being written left out. */
  referencingCount: number;
  /** The holder already has another record referencing the target. */
  holderAlreadyReferences: boolean;
  /** Index of the referencing record after the write. */
  index?: { name: string; value: IndexValue };
}

type ReferenceRefusalReason =
  | 'no_access'
  | 'only_granted_can_reference'
  | 'referencing_limit'
  | 'prevent_multiple_referencing'
  | 'referencing_index_restrictions';

export interface ReferenceRefusal {
  reason: ReferenceRefusalReason;
  message: string;
}

/**
 * The rules a referenced record (its access group and its `source`) sets for a record that
 * references it, in this order: read access, only_granted_can_reference, referencing_limit,
 * prevent_multiple_referencing, referencing_index_restrictions. The project owner passes the two
 * permission rules (it may read and grant everything); the counting and index rules hold for everyone.
 */
export function checkReference(target: RecordData, facts: ReferenceFacts): ReferenceRefusal | null {
  const { actor } = facts;
  const source = target.source ?? {};
  const own = actor.kind === 'owner' || actor.user_id === target.user_id;
  if (!canRead(target, actor, facts.granted)) {
    return { reason: 'no_access', message: `The referenced record ${target.record_id} is not readable by this user.` };
  }
  if (source.only_granted_can_reference && !own && !facts.granted) {
    return {
      reason: 'only_granted_can_reference',
      message: `Only users granted access to record ${target.record_id} can reference it.`,
    };
  }
  const limit = source.referencing_limit;
  if (limit !== undefined && limit !== null && facts.referencingCount >= limit) {
    return { reason: 'referencing_limit', message: `Record ${target.record_id} takes at most ${limit} referencing records.` };
  }
  if (source.prevent_multiple_referencing && facts.holderAlreadyReferences) {
    return {
      reason: 'prevent_multiple_referencing',
      message: `Record ${target.record_id} takes one referencing record per user, and this user already has one.`,
    };
  }
  if (!indexMeetsRestrictions(facts.index, source.referencing_index_restrictions)) {
    return {
      reason: 'referencing_index_restrictions',
      message: `The index of this record does not meet the referencing_index_restrictions of record ${target.record_id}.`,
    };
  }
  return null;
}

/**
 * Whether a user may pass on access to a record (for the grant action): its holder and the project
 * owner always; a granted user only when the record's source allows granted users to grant others.
 */
export function mayGrantOthers(record: RecordData, grantor: Actor, grantorIsGranted: boolean): boolean {
  if (grantor.kind === 'owner' || grantor.user_id === record.user_id) return true;
  return grantorIsGranted && record.source?.allow_granted_to_grant_others === true;
}
