/**
 * What a poll with a cursor (`since`) answered (spec 4.3): a finalized request's stored body, a page of
 * pieces of a streamed request, or the plain status of a request that was not streamed. Pure.
 */
import type { ForwardStatusEnvelope, StreamChunk, StreamedEnvelope } from '../../schemas/forward-rules.js';
import { isPlainObject } from './forms.js';

/**
 * A status envelope carries status, id and in_queue together; any other value is a finalized body
 * (which may well hold a `status` of its own, so no single field decides).
 */
export function isStatusEnvelope(value: unknown): value is ForwardStatusEnvelope {
  return isPlainObject(value) && typeof value.status === 'string' && typeof value.id === 'string' && typeof value.in_queue === 'number';
}

export const isSettled = (envelope: Pick<ForwardStatusEnvelope, 'status'>) => envelope.status === 'resolved' || envelope.status === 'failed';

export type CursorAnswer =
  /** The request was finalized: its kept version, verbatim. */
  | { kind: 'finalized'; body: unknown }
  /** A streamed request: its pieces after the cursor. */
  | { kind: 'stream'; envelope: ForwardStatusEnvelope; chunks: StreamChunk[]; next: CursorNext }
  /** A request sent without stream. */
  | { kind: 'plain'; envelope: ForwardStatusEnvelope };

/**
 * What the read does next: `page` reads again at once (the answer was capped and more is stored);
 * `degraded` is a read that learnt nothing (the server could not read its pieces), so the read waits;
 * `caught-up` has everything stored up to now.
 */
export type CursorNext = 'page' | 'degraded' | 'caught-up';

const isChunk = (value: unknown): value is StreamChunk => isPlainObject(value) && Number.isSafeInteger(value.seq) && typeof value.txt === 'string';

/** Reads the answer of a poll sent with `since`. */
export function cursorAnswerOf(value: unknown): CursorAnswer {
  if (!isStatusEnvelope(value)) return { kind: 'finalized', body: value };
  const answer = value as Partial<StreamedEnvelope> & ForwardStatusEnvelope;
  const { chunks, last_seq: _lastSeq, more, stream, ...envelope } = answer;
  if (stream !== true) return { kind: 'plain', envelope };
  const pieces = Array.isArray(chunks) ? chunks.filter(isChunk) : [];
  // An empty capped page learnt nothing (its last_seq is the cursor sent): reading again at once would spin.
  const next: CursorNext = more !== true ? 'caught-up' : pieces.length > 0 ? 'page' : 'degraded';
  return { kind: 'stream', envelope, chunks: pieces, next };
}
