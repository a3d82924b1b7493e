/**
 * The checks of forwardRequestStream and forwardRequestFinalize (spec 4.3) before anything is sent;
 * each refusal is INVALID_PARAMETER naming the option.
 */
import { faithfulJson, MAX_FINALIZE_DATA_BYTES, REALTIME_GROUP_PATTERN } from '../../schemas/forward-rules.js';
import { invalidParameter } from './errors.js';
import { isPlainObject } from './forms.js';
import { checkCallback, checkInterval, refuseUnknown } from './forward-options.js';
import { DEFAULT_POLL_LATENCY_MS } from './forward.js';
import type { ForwardRequestStreamOptions, OnForwardError, OnStream, RequestLocation } from './forward-types.js';

export interface CheckedStreamRead {
  location: RequestLocation;
  since: number;
  poll: number;
  onStream?: OnStream;
  realtimeGroup?: string;
  onResponse?: (res: unknown) => unknown;
  onError?: OnForwardError;
}

const STREAM_READ_OPTIONS: ReadonlySet<string> = new Set(['url', 'method', 'since', 'poll', 'onStream', 'realtimeGroup', 'onResponse', 'onError']);
const LOCATION_OPTIONS: ReadonlySet<string> = new Set(['url', 'method']);

function optionsObject(options: unknown, rule: string): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (!isPlainObject(options)) throw invalidParameter(`options: ${rule}.`);
  return options;
}

/** forwardRequestStream's options; url and method are checked with the id (addressOf). */
export function checkStreamReadOptions(input: ForwardRequestStreamOptions | undefined): CheckedStreamRead {
  const options = optionsObject(input, 'must be an object of url?, method?, since?, poll?, onStream?, realtimeGroup?, onResponse?, onError?');
  refuseUnknown(options, STREAM_READ_OPTIONS, 'forwardRequestStream');
  const { since, realtimeGroup } = options;
  if (since !== undefined && !(Number.isSafeInteger(since) && (since as number) >= 0)) throw invalidParameter('since: must be a whole number, 0 or more.');
  if (realtimeGroup !== undefined && !(typeof realtimeGroup === 'string' && REALTIME_GROUP_PATTERN.test(realtimeGroup))) {
    throw invalidParameter("realtimeGroup: must be the dispatch reply's realtime_group (22 letters and digits).");
  }
  return {
    location: { url: options.url as RequestLocation['url'], method: options.method as RequestLocation['method'] },
    since: (since as number | undefined) ?? 0,
    poll: options.poll === undefined ? DEFAULT_POLL_LATENCY_MS : checkInterval(options.poll, 'poll'),
    onStream: checkCallback<OnStream>(options.onStream, 'onStream'),
    realtimeGroup: realtimeGroup as string | undefined,
    onResponse: checkCallback<(res: unknown) => unknown>(options.onResponse, 'onResponse'),
    onError: checkCallback<OnForwardError>(options.onError, 'onError'),
  };
}

/** forwardRequestFinalize's options: where the request went, beside a stamp:entropy id. */
export function checkLocation(input: RequestLocation | undefined): RequestLocation {
  const options = optionsObject(input, 'must be an object of url? and method?');
  refuseUnknown(options, LOCATION_OPTIONS, 'forwardRequestFinalize');
  return { url: options.url as RequestLocation['url'], method: options.method as RequestLocation['method'] };
}

/** The version to keep, as it goes on the wire: JSON within the bound; nothing given keeps null. */
export function checkFinalizeData(data: unknown): unknown {
  if (data === undefined) return null;
  const text = faithfulJson(data);
  if (text === undefined) throw invalidParameter('data: must be JSON-serializable (no cycles, BigInt, functions, NaN or Infinity).');
  if (new TextEncoder().encode(text).length > MAX_FINALIZE_DATA_BYTES)
    throw invalidParameter(`data: must be at most ${MAX_FINALIZE_DATA_BYTES} bytes as JSON.`);
  return data;
}
