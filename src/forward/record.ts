/**
 * A forwarded request as it is kept (in its queue's Durable Object while it is live, in D1's history
 * for good) and the shapes it is read in: the status envelope of a poll and the history item.
 */
import type { ErrorCode } from '../../schemas/error-body';
import type { ForwardFailure, ForwardMethod, ForwardStatus, ForwardStatusEnvelope, RequestHistory } from '../../schemas/forward-rules';
import type { DeadLetterReason } from '../../schemas/dead-letters';
import type { BodyRef } from './history-segments';

export interface ForwardError extends Omit<ForwardFailure, 'code'> {
  code: ErrorCode;
}

/**
 * Extension (issue 36): a send answered 429 or 503 that was waited out (the request was sent again after
 * waited_ms), or (waited: 'circuit', no status_code) a time the request was held, not sent, because its
 * destination's circuit was open.
 */
export interface ForwardAttempt {
  /** When that send began, or the hold (ms). */
  at: number;
  status_code?: number;
  waited_ms: number;
  waited?: 'circuit';
}

export interface ForwardRecord {
  id: string;
  method: ForwardMethod;
  url: string;
  /** null for a direct request. */
  queue_name: string | null;
  status: ForwardStatus;
  created: number;
  updated: number;
  executed?: number;
  responded?: number;
  status_code?: number;
  /** JSON text of what the caller sent as data (absent when it sent none). */
  request_body?: string;
  /** JSON text of the headers as written (token in place; see keptHeaders); absent before migration 0011. */
  request_headers?: string;
  /** JSON text of the destination's answer: parsed when it parses, else its text. */
  response_body?: string;
  error?: ForwardError;
  /** ms; from then on the request is gone for every reader. */
  expires_at?: number;
  /** Sent with stream: its answer went to the chunk store; response_body is the finalized version. */
  stream?: true;
  /** A streamed request's kept version was stored (forwardRequestFinalize). */
  finalized?: true;
  /** The realtime room its pieces are pushed to (told only in the dispatch reply). */
  realtime_group?: string;
  /** Read from a D1 row whose bodies moved to a segment (history-segments.ts): what a compact item shows. */
  compact_texts?: CompactTexts;
  /** Read from such a row until its bodies are loaded: where they are. */
  body_ref?: BodyRef;
  /**
   * A compact listing's read of bodies waiting in forward_bodies: their compact texts from the first
   * characters only (see compactTextsOfPrefixes); a body the record carries itself wins over it.
   */
  side_texts?: CompactTexts;
  /** Extension (issue 36): the sends answered 429 or 503 and waited out, and the holds for an open circuit, oldest first (a request sent with retry). */
  attempts?: ForwardAttempt[];
  /** Extension (issue 36): while a request waits out back-pressure or an open circuit, when it is tried again (ms). */
  next_attempt_at?: number;
  /** Extension (issue 36 item 3): why a request sent with retry settled as a dead letter (dead-letters.ts). */
  dead_letter?: DeadLetterReason;
}

/** request_text, response_text, response_complete_marker, and whether a response is kept. */
export type CompactTexts = [string, string, boolean, boolean];

/** How much of each body a compact history item shows. */
export const COMPACT_TEXT_LENGTH = 200;

const parsed = (json: string | undefined): unknown => (json === undefined ? undefined : JSON.parse(json));

function optional<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as Partial<T>;
}

/** How the request went, as far as it went: the members a status envelope and a history item share. */
const progressOf = (record: ForwardRecord) =>
  optional({
    executed: record.executed,
    responded: record.responded,
    status_code: record.status_code,
    error: record.error,
    attempts: record.attempts,
    next_attempt_at: record.next_attempt_at,
    dead_letter: record.dead_letter,
  });

/** The answer of a poll; `inQueue` counts the unresolved requests up to this one (0 once settled). */
export function envelopeOf(record: ForwardRecord, inQueue: number): ForwardStatusEnvelope {
  return {
    id: record.id,
    status: record.status,
    queue_name: record.queue_name ?? '',
    in_queue: inQueue,
    created: record.created,
    updated: record.updated,
    ...progressOf(record),
    ...optional({ response_body: parsed(record.response_body) }),
  };
}

/** Text of a body for a compact item: a string as it is, anything else as JSON. */
function bodyText(json: string | undefined): string {
  if (json === undefined) return '';
  const value: unknown = JSON.parse(json);
  return typeof value === 'string' ? value : json;
}

export function historyItemOf(record: ForwardRecord, compact: boolean): RequestHistory {
  const head = {
    id: record.id,
    status: record.status,
    queue_name: record.queue_name,
    method: record.method,
    url: record.url,
    created: record.created,
    updated: record.updated,
    ...progressOf(record),
    ...(record.stream ? { stream: true as const } : {}),
  };
  if (!compact) {
    return { ...head, request_body: parsed(record.request_body) ?? null, response_body: parsed(record.response_body) ?? null };
  }
  const [request_text, response_text, response_complete_marker] = record.compact_texts ?? compactTextsWithSide(record);
  return { ...head, compact: true, request_text, response_text, response_complete_marker };
}

function compactTextsWithSide(record: ForwardRecord): CompactTexts {
  const full = compactTextsOf(record.request_body, record.response_body);
  const side = record.side_texts;
  if (!side) return full;
  const request = record.request_body !== undefined ? full[0] : side[0];
  return record.response_body !== undefined ? [request, full[1], full[2], full[3]] : [request, side[1], side[2], side[3]];
}

/** JSON text enough to show COMPACT_TEXT_LENGTH characters of a body: each may be a six-character \u escape. */
export const COMPACT_PREFIX_CHARS = 6 * COMPACT_TEXT_LENGTH + 100;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The first COMPACT_TEXT_LENGTH characters of bodyText(json), read from the first COMPACT_PREFIX_CHARS of the JSON. */
function prefixText(prefix: string): string {
  if (!prefix.startsWith('"')) return prefix.slice(0, COMPACT_TEXT_LENGTH);
  let text = '';
  for (let i = 1; i < prefix.length && text.length < COMPACT_TEXT_LENGTH; ) {
    const ch = prefix[i];
    if (ch === '"') break;
    if (ch !== '\\') {
      text += ch;
      i += 1;
    } else if (prefix[i + 1] === 'u') {
      text += String.fromCharCode(Number.parseInt(prefix.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      text += ESCAPES[prefix[i + 1]] ?? '';
      i += 2;
    }
  }
  return text.slice(0, COMPACT_TEXT_LENGTH);
}

/**
 * compactTextsOf from the bodies' first COMPACT_PREFIX_CHARS characters and whether each was whole: a body
 * longer than that is more than COMPACT_TEXT_LENGTH characters once decoded, so its marker is false.
 */
export function compactTextsOfPrefixes(request: string | null, requestWhole: boolean, response: string | null, responseWhole: boolean): CompactTexts {
  const whole = compactTextsOf(requestWhole ? (request ?? undefined) : undefined, responseWhole ? (response ?? undefined) : undefined);
  return [
    requestWhole || request === null ? whole[0] : prefixText(request),
    responseWhole || response === null ? whole[1] : prefixText(response),
    responseWhole ? whole[2] : false,
    response !== null,
  ];
}

/** What a compact item shows of the bodies. */
export function compactTextsOf(requestBody: string | undefined, responseBody: string | undefined): CompactTexts {
  const response = bodyText(responseBody);
  return [
    bodyText(requestBody).slice(0, COMPACT_TEXT_LENGTH),
    response.slice(0, COMPACT_TEXT_LENGTH),
    response.length <= COMPACT_TEXT_LENGTH,
    responseBody !== undefined,
  ];
}
