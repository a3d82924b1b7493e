/**
 * What the forwarding path needs of the store of a caller's queues; ForwardQueueDO (durable-objects/)
 * implements it, so src/forward/ never imports the object.
 */
import type { FinalizeAnswer, ForwardStatusEnvelope, RemovalAnswer, RequestAddress, StreamedEnvelope } from '../../schemas/forward-rules';
import type { ForwardHistoryQuery } from '../../schemas/forward';
import type { OwnerForwardQuery } from '../../schemas/forward-owner';
import type { ForwardCaller } from './caller';
import type { SecretKey } from '../platform/secrets';
import type { ForwardOutcome } from './send';
import type { HistoryOwner } from './history';
import type { PreparedRequest } from './prepare';
import type { ForwardRecord } from './record';

/** What a queued request keeps besides its record: how to send it and whom for. */
export interface QueuedPlan {
  owner: HistoryOwner;
  caller: Pick<ForwardCaller, 'signedIn' | 'accessGroup'>;
  prepared: PreparedRequest;
  /** The key of the request's large texts beside its row (ForwardQueueDO); absent on requests stored before. */
  texts?: string;
  /** prepared.data was left out of the stored plan: it is the record's request_body, parsed. */
  dataFromRecord?: true;
  /** Extension (issue 36): a 429 or 503 is waited out and sent again until this many seconds after the request was made. */
  retryWithin?: number;
}

/** A request of the history and whose it is. */
export interface HistoryPlace {
  owner: HistoryOwner;
  record: ForwardRecord;
}

/** The owner's one request: its public id, narrowed by method and url when the full id gave them. */
export type OwnerAddress = { id: string; method?: string; url?: string };

/** A direct request as the dispatch hands it to the caller's object: checked, counted, ready to go. */
export interface DirectDispatch {
  owner: HistoryOwner;
  prepared: PreparedRequest;
  key: SecretKey | null;
  record: ForwardRecord;
}

export interface QueuedDispatch extends QueuedPlan {
  record: ForwardRecord & { queue_name: string };
  /** The key's limit of this caller's unresolved requests using it (queued_per_caller). */
  queuedLimit?: number;
}

/**
 * A poll's answer: the status envelope (with the pieces after the cursor when one was sent), or, for a
 * finalized streamed request read with a cursor, the kept version as JSON text.
 */
export type PollAnswer = { kind: 'envelope'; envelope: ForwardStatusEnvelope | StreamedEnvelope } | { kind: 'finalized'; json: string };

export type EnqueueAnswer = { ok: true; envelope: ForwardStatusEnvelope } | { ok: false; message: string };

/** A streamed request's stored pieces joined (the owner's view); complete is false when the text was cut. */
export interface StreamText {
  text: string;
  pieces: number;
  complete: boolean;
}

/** A held request as it is now, without what the caller sent (that never changes; the history has it). */
export type LiveState = Omit<ForwardRecord, 'request_body' | 'request_headers'>;

/**
 * A request a listing asks about; `finalized_at`: the `updated` of the finalized version the listing read
 * from D1 (each finalize moves `updated`), so a store still holding that version answers 'unchanged'
 * instead of the kept version again (up to 1 MiB per request).
 */
export type LiveAddress = RequestAddress & { finalized_at?: number };

export interface ForwardQueueStore {
  /** Stores a request at the end of its queue; refused when the caller's queued limit is full. */
  enqueue(dispatch: QueuedDispatch): Promise<EnqueueAnswer>;
  /** null when the store does not hold the request (it may be in the history). */
  status(address: RequestAddress): Promise<ForwardStatusEnvelope | null>;
  /** A poll with a cursor (see PollAnswer); null when the store does not hold the request. */
  read(address: RequestAddress, since: number): Promise<PollAnswer | null>;
  /** Stores a streamed, settled request's kept version (JSON text) and drops its pieces; null when not held. */
  finalize(address: RequestAddress, json: string): Promise<FinalizeAnswer | null>;
  cancel(address: RequestAddress): Promise<RemovalAnswer | null>;
  withdraw(address: RequestAddress): Promise<RemovalAnswer | null>;
  queueCount(queue: string): Promise<number>;
  /** Sends a direct request, recorded before it goes and settled before this answers (the caller's history). */
  sendDirect(dispatch: DirectDispatch): Promise<ForwardOutcome>;
  /** The caller's history (history.ts historyRows): up to `count` after the id `after`, newest first. */
  historyRows(owner: HistoryOwner, query: ForwardHistoryQuery, after: string | null, count: number): Promise<ForwardRecord[]>;
  /** One request of the caller's history, with its bodies; null when it is not there (or expired). */
  historyFind(owner: HistoryOwner, address: RequestAddress): Promise<ForwardRecord | null>;
  /** The owner's view of this caller's history (owner-history.ts ownerRows). */
  ownerRows(owner: HistoryOwner, query: OwnerForwardQuery, after: string | null, count: number): Promise<HistoryPlace[]>;
  ownerFind(owner: HistoryOwner, address: OwnerAddress): Promise<HistoryPlace | null>;
  /** Read-only: each request's current state, null for one the store does not hold (a listing's fresh view). */
  current(addresses: readonly LiveAddress[]): Promise<Array<LiveState | 'unchanged' | null>>;
  /** Read-only: a streamed request's stored pieces joined; null when the store holds none of it. */
  streamText(address: RequestAddress): Promise<StreamText | null>;
}
