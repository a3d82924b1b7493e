/**
 * The rules of request forwarding that need no schema library (spec 2.8, 4.3, 8): limits, header and url
 * refusals, request addresses and the wire answers. The client imports this module as it is; the zod
 * schemas of the Worker (forward.ts) are built on it.
 */
import { invalidField } from './paths';
import type {
  DeadLetter,
  FinalizeAnswer,
  ForwardCheckAnswer,
  ForwardFailure,
  ForwardStatusEnvelope,
  PausedDestinations,
  QueueCountAnswer,
  RemovalAnswer,
  RequestHistory,
} from './answer-types.generated';

/** The answers of the forwarding routes, generated from the schemas the routes declare (schemas/answers.ts). */
export type {
  DeadLetter,
  FinalizeAnswer,
  ForwardCheckAnswer,
  ForwardFailure,
  ForwardStatusEnvelope,
  PausedDestinations,
  QueueCountAnswer,
  RemovalAnswer,
  RequestHistory,
};

export const FORWARD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/** Extension (issue 36): the longest time, from its creation, a queued request waits out back-pressure (and the default). */
export const MAX_RETRY_WITHIN_SECONDS = 86_400;
export type ForwardMethod = (typeof FORWARD_METHODS)[number];
/** The methods whose form fields go to the query string (every other method carries them as data). */
export const QUERY_METHODS: ReadonlySet<ForwardMethod> = new Set(['GET', 'DELETE', 'HEAD']);
/** Methods sent without a body. */
export const BODILESS_FORWARD_METHODS: ReadonlySet<ForwardMethod> = new Set(['GET', 'HEAD']);

export const FORWARD_STATUSES = ['pending', 'running', 'resolved', 'failed'] as const;
export type ForwardStatus = (typeof FORWARD_STATUSES)[number];

/** The token a Secret Key's value replaces in a forwarded request. */
export const FORWARD_SECRET_TOKEN = '$CLIENT_SECRET';
/** Longest destination url, in characters. */
export const MAX_FORWARD_URL = 8192;
/** Largest multipart body, in base64 characters (2 MB minus 64 KB; spec 8). */
export const MAX_MULTIPART_CHARS = 2_031_616;
/** Largest dispatch body, in bytes: a multipart body at its cap plus room for the url, headers and params. */
export const MAX_DISPATCH_BYTES = 2_200_000;
/** Largest `data`, as UTF-8 JSON bytes (it is kept in the request's history row). */
export const MAX_FORWARD_DATA_BYTES = 1_048_576;
/** Largest answer a forwarded request relays, in bytes; a larger one fails the request (REQUEST_FAILED). */
export const MAX_FORWARD_ANSWER_BYTES = 1_048_576;
export const MAX_QUEUE_NAME = 128;
export const MAX_FORWARD_HEADERS = 64;
export const MAX_HEADER_VALUE = 8192;
/** Longest record life a request may ask for: one year, in seconds. */
export const MAX_EXPIRES_SECONDS = 365 * 24 * 3600;
/** Headers the service writes from the verified caller (svcHeaders); a caller may not send one. */
export const IDENTITY_HEADER_PREFIX = 'x-svc-';

/** Hop-by-hop and framing headers: they describe one connection, so a caller's copy is refused. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'proxy-authorization',
  'proxy-authenticate',
]);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE = /[\r\n\0]|[^\u0000-\u00ff]/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Why a header of the caller's cannot travel; undefined when it can. */
export function headerRefusal(name: string, value: unknown): string | undefined {
  if (!HEADER_NAME.test(name)) return 'is not a valid HTTP header name';
  const lower = name.toLowerCase();
  if (lower.startsWith(IDENTITY_HEADER_PREFIX)) return `names starting with ${IDENTITY_HEADER_PREFIX} are written by the service (svcHeaders)`;
  if (CONNECTION_HEADERS.has(lower)) return 'is set by the service for each connection';
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_HEADER_VALUE) return `must be at most ${MAX_HEADER_VALUE} characters`;
  if (BAD_HEADER_VALUE.test(value)) return 'holds a line break, NUL or a character outside Latin-1';
  return undefined;
}

/** Why a text cannot name a queue; undefined when it can. */
export function queueNameRefusal(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.length > MAX_QUEUE_NAME) return `must be at most ${MAX_QUEUE_NAME} characters`;
  if (CONTROL_CHARACTER.test(name)) return 'holds a control character';
  return undefined;
}

/** Why a destination url cannot be forwarded to (judged before the secret is filled in); undefined when it can. */
export function urlRefusal(url: string): string | undefined {
  if (url.length > MAX_FORWARD_URL) return `must be at most ${MAX_FORWARD_URL} characters`;
  if (CONTROL_CHARACTER.test(url)) return 'holds a control character';
  if (!/^https?:\/\/[^/?#]/i.test(url)) return 'must be an absolute http:// or https:// url with a host';
  return undefined;
}

export const METHOD_RULE = `must be one of ${FORWARD_METHODS.join(', ')} (upper case)`;

/** Why data or params cannot go as JSON whole: JSON.stringify would write NaN or ±Infinity (1e999 parses to it) as null. */
export const LOSSY_JSON_RULE = 'holds a number JSON cannot carry (NaN, Infinity, or out of range like 1e999)';

/** The JSON text of a value, or undefined when JSON cannot carry it whole (a cycle, a BigInt, a function, a non-finite number). */
export function faithfulJson(value: unknown): string | undefined {
  let lossy = false;
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'number' && !Number.isFinite(item)) lossy = true;
      return item;
    });
    return lossy ? undefined : text;
  } catch {
    return undefined;
  }
}

export function isForwardMethod(value: unknown): value is ForwardMethod {
  return typeof value === 'string' && (FORWARD_METHODS as readonly string[]).includes(value);
}

/** `stamp:entropy`: the request's public id. */
export const PUBLIC_ID_PATTERN = /^[0-9A-Za-z]{1,16}:[0-9A-Za-z]{8,32}$/;
/** A full id: `<METHOD>:<stamp>:<entropy>:<url>`, which names the request without url and method beside it. */
const FULL_ID_PATTERN = /^(GET|POST|PUT|PATCH|DELETE|HEAD):([0-9A-Za-z]{1,16}:[0-9A-Za-z]{8,32}):(https?:\/\/.+)$/s;

/** The address of one request of the caller's: method, url and public id. */
export interface RequestAddress {
  method: ForwardMethod;
  url: string;
  id: string;
}

export function fullRequestId(address: RequestAddress): string {
  return `${address.method}:${address.id}:${address.url}`;
}

/**
 * Reads a request address from `id` (public or full) and `url` / `method` (required with a public id);
 * throws FieldIssueError naming the field.
 */
export function requestAddressOf(input: { id?: unknown; url?: unknown; method?: unknown }): RequestAddress {
  const { id } = input;
  if (typeof id !== 'string' || id === '') throw invalidField('id', 'is required');
  const full = FULL_ID_PATTERN.exec(id);
  if (full) return { method: full[1] as ForwardMethod, id: full[2], url: full[3] };
  if (!PUBLIC_ID_PATTERN.test(id)) throw invalidField('id', "must be 'stamp:entropy' or a full request id");
  if (typeof input.url !== 'string' || input.url === '') throw invalidField('url', 'is required with a stamp:entropy id');
  const url = urlRefusal(input.url);
  if (url) throw invalidField('url', url);
  if (input.method === undefined) throw invalidField('method', 'is required with a stamp:entropy id');
  if (!isForwardMethod(input.method)) throw invalidField('method', METHOD_RULE);
  return { method: input.method, url: input.url, id };
}

/** One stored piece of a streamed answer: its sequence number (1, 2, 3, ...) and its text. */
export interface StreamChunk {
  seq: number;
  txt: string;
}

/**
 * A poll with a cursor (`since`) of a streamed request not yet finalized: the status envelope and the
 * pieces after the cursor. `more` means the read was capped and more is already stored.
 */
export interface StreamedEnvelope extends ForwardStatusEnvelope {
  stream: boolean;
  chunks: StreamChunk[];
  /** The cursor to send next: the last piece's seq, or the cursor sent when none came. */
  last_seq: number;
  more: boolean;
}

/** Text of the pieces one cursor poll returns at most (a piece is never split; one piece always fits). */
export const MAX_CHUNK_PAGE_CHARS = 262_144;

/** Largest streamed answer relayed (bytes) and longest time it may keep sending; past either the request fails. */
export const MAX_STREAM_BYTES = 64 * 1024 * 1024;
export const MAX_STREAM_MS = 5 * 60 * 1000;

export const FINALIZE_MESSAGES = {
  done: 'Finalized.',
  notFound: 'Request not found.',
  unfinished: 'The request has not finished yet.',
  notStreamed: 'The request was not sent with stream, so its response is already stored.',
} as const;

/** Largest finalized version, as JSON (the same bound as a dispatch's data). */
export const MAX_FINALIZE_DATA_BYTES = MAX_FORWARD_DATA_BYTES;

/** The project's realtime WebSocket (GET with Upgrade: websocket): /v1/projects/{service_id}/realtime. */
export const REALTIME_ROUTE = '/realtime';
/** A signed-in caller's id token on the socket's URL (a browser WebSocket cannot send headers). */
export const REALTIME_TOKEN_PARAM = 'token';
/** A realtime_group: 22 base62 characters (about 131 random bits). */
export const REALTIME_GROUP_PATTERN = /^[0-9A-Za-z]{22}$/;

/** Frames a client sends on the realtime socket. One connection is in one room at a time; a join replaces the room. */
export type RealtimeClientFrame = { type: 'join'; group: string } | { type: 'leave' };

/** Frames the server sends. `piece` carries one stored piece of the request `id` (stamp:entropy). */
export type RealtimeServerFrame =
  | { type: 'joined'; group: string }
  | { type: 'left' }
  | { type: 'piece'; group: string; id: string; seq: number; txt: string }
  | { type: 'error'; message: string };

/** The answer of a direct dispatch carries the destination's body as is, with these headers. */
export const STATUS_CODE_HEADER = 'x-svc-status-code';
export const REQUEST_ID_HEADER = 'x-svc-request-id';
