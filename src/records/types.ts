/** Records written by the pstr action (spec 2.4, "pstr table and fields"). */

export type IndexValue = string | number | boolean;

/** Stored access group: 0..99 (0 public, 1 authorized, 99 admin) or 'private'. */
export type AccessGroup = number | 'private';

export interface SubscriptionSettings {
  is_subscription_record?: boolean;
  upload_to_feed?: boolean;
  notify_subscribers?: boolean;
  feed_referencing_records?: boolean;
  notify_referencing_records?: boolean;
}

export type RestrictionCondition = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'ne' | '>' | '>=' | '<' | '<=' | '=' | '!=';

export interface IndexRestriction {
  name: string;
  value?: IndexValue;
  range?: IndexValue;
  condition?: RestrictionCondition;
}

/** Rules a record sets for the records that reference it. */
export interface SourceSettings {
  referencing_limit?: number | null;
  prevent_multiple_referencing?: boolean;
  can_remove_referencing_records?: boolean;
  only_granted_can_reference?: boolean;
  referencing_index_restrictions?: IndexRestriction[] | null;
  allow_granted_to_grant_others?: boolean;
}

/** A record as pstr answers it (${response} of its Then chain) and the owner routes list it. */
export interface RecordData {
  record_id: string;
  table: { name: string; access_group: AccessGroup; subscription?: SubscriptionSettings };
  /** Whose record it is: a project user, or the project owner's id. */
  user_id: string;
  /** Absent when never set. */
  data?: unknown;
  index?: { name: string; value: IndexValue };
  tags: string[];
  unique_id?: string;
  /** record_id of the referenced record (a unique id given on write is resolved). */
  reference?: string;
  readonly: boolean;
  source?: SourceSettings;
  /** ms since the epoch: first written, last written. */
  created: number;
  updated: number;
}

/** A stored record with what the store needs beyond RecordData. */
export interface StoredRecord extends RecordData {
  version: number;
  written_by: { ticket_id: string | null; consume_id: string | null };
}

/** Who a pstr acts as: a project user (user_id given) or the project owner. */
export type Actor = { kind: 'user'; user_id: string; access_group: number } | { kind: 'owner'; owner_id: string };

export const actorId = (actor: Actor): string => (actor.kind === 'user' ? actor.user_id : actor.owner_id);
