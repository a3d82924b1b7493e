/**
 * Poll, cancel and withdraw one of the caller's requests: its queue's store holds it while it is live, the
 * history once it settled (or when it never had a queue). Another caller's id finds nothing.
 */
import { FINALIZE_MESSAGES, type FinalizeAnswer, type ForwardStatusEnvelope, type RemovalAnswer, type RequestAddress } from '../../schemas/forward-rules';
import { SvcHttpError } from '../wire/errors';
import type { HistoryOwner } from './history';
import type { ForwardQueueStore, PollAnswer } from './queue-store';
import { envelopeOf } from './record';

const REQUEST_NOT_FOUND = FINALIZE_MESSAGES.notFound;

export interface RequestPlaces {
  /** The caller's object: its live requests and its history. */
  queues: ForwardQueueStore;
  owner: HistoryOwner;
}

/**
 * The settled request the history keeps. An unresolved row there belongs to a request its queue no longer
 * holds (cancelled, withdrawn or expired; the row's deletion is still on its way from the outbox): it is gone.
 */
async function settledInHistory(places: RequestPlaces, address: RequestAddress) {
  const kept = await places.queues.historyFind(places.owner, address);
  return kept && (kept.status === 'resolved' || kept.status === 'failed') ? kept : null;
}

export async function pollRequest(places: RequestPlaces, address: RequestAddress): Promise<ForwardStatusEnvelope> {
  const live = await places.queues.status(address);
  if (live) return live;
  const kept = await settledInHistory(places, address);
  if (!kept) throw new SvcHttpError('NOT_FOUND', REQUEST_NOT_FOUND, { status: 404 });
  return envelopeOf(kept, 0);
}

/** A poll with a cursor (`since`): the pieces of a streamed request after it, or its kept version once finalized. */
export async function readRequest(places: RequestPlaces, address: RequestAddress, since: number): Promise<PollAnswer> {
  const live = await places.queues.read(address, since);
  if (live) return live;
  // Only requests sent without stream leave their queue's store.
  const envelope = await pollRequest(places, address);
  return { kind: 'envelope', envelope: { ...envelope, stream: false, chunks: [], last_seq: since, more: false } };
}

/** forwardRequestFinalize: only the caller's own streamed, settled requests. */
export async function finalizeRequest(places: RequestPlaces, address: RequestAddress, json: string): Promise<FinalizeAnswer> {
  const held = await places.queues.finalize(address, json);
  if (held) return held;
  const kept = await settledInHistory(places, address);
  return { finalized: false, message: kept ? FINALIZE_MESSAGES.notStreamed : FINALIZE_MESSAGES.notFound };
}

async function settledOrUnknown(places: RequestPlaces, address: RequestAddress): Promise<RemovalAnswer> {
  const kept = await settledInHistory(places, address);
  return { removed: false, message: kept ? 'The request already settled.' : REQUEST_NOT_FOUND };
}

/** cancelForwardRequest: a pending request is removed, a running one ended and removed. */
export async function cancelRequest(places: RequestPlaces, address: RequestAddress): Promise<RemovalAnswer> {
  return (await places.queues.cancel(address)) ?? settledOrUnknown(places, address);
}

/** A client stopped polling: a request still waiting in its queue is removed; any other is left alone. */
export async function withdrawRequest(places: RequestPlaces, address: RequestAddress): Promise<RemovalAnswer> {
  return (await places.queues.withdraw(address)) ?? settledOrUnknown(places, address);
}
