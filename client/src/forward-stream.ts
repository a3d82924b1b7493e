/**
 * Reading a streamed request back and keeping a version of it (spec 4.3): forwardRequestStream for any
 * reader of the caller's request (after a reload, in a second tab, from history), and
 * forwardRequestFinalize, which stores what to keep and releases the pieces.
 */
import type { FinalizeAnswer } from '../../schemas/forward-rules.js';
import { callProjectRoute } from './connection.js';
import { addressOf, type ForwardContext } from './forward.js';
import type { ForwardRequestStreamOptions, PollPromise, RequestLocation, StreamEnd } from './forward-types.js';
import { StreamRead } from './stream-read.js';
import { checkFinalizeData, checkLocation, checkStreamReadOptions } from './stream-options.js';

/**
 * Reads request `requestId` whatever its state: running, pieces until it settles, then its status
 * envelope; finished and not finalized, every stored piece (paged), then the envelope; finalized, the
 * kept body and no piece. stop() ends the read only (the request is never withdrawn).
 */
export function forwardRequestStream<T = StreamEnd>(context: ForwardContext, requestId: string, options?: ForwardRequestStreamOptions): PollPromise<T> {
  let read: StreamRead;
  try {
    const checked = checkStreamReadOptions(options);
    const address = addressOf({ id: requestId, ...checked.location });
    const spec = {
      address,
      queue: null,
      latency: checked.poll,
      since: checked.since,
      mode: 'reader' as const,
      onStream: checked.onStream,
      realtimeGroup: checked.realtimeGroup,
      onResponse: checked.onResponse,
      onError: checked.onError,
    };
    read = new StreamRead(spec, context.server, context.realtime);
  } catch (err) {
    return Object.assign(Promise.reject(err) as Promise<T>, { stop: () => undefined });
  }
  return context.polls.track<T>(read);
}

/** Stores `data` (null when not given) as the kept version of a finished streamed request and releases its pieces. */
export async function forwardRequestFinalize(context: ForwardContext, requestId: string, data?: unknown, options?: RequestLocation): Promise<FinalizeAnswer> {
  const location = checkLocation(options);
  const address = addressOf({ id: requestId, ...location });
  const body = { id: address.id, url: address.url, method: address.method, data: checkFinalizeData(data) };
  return (await callProjectRoute(context.connection, 'POST', '/forward/request/finalize', body)) as FinalizeAnswer;
}
