/**
 * A forwarded request as it is kept (in its queue's Durable Object while it is live, in D1's history
 * for good) and the shapes it is read in: the status envelope of a poll and the history item.
 */
import type { ErrorCode } from '../../schemas/error-body';
import type {
  ForwardFailure,
  ForwardMethod,
  ForwardStatus,
  ForwardStatusEnvelope,
  RequestHistory,
} from '../../schemas/forward-rules';
import type { BodyRef } from './history-segments';

export interface ForwardError extends Omit<ForwardFailure, 'code'> {
  code: ErrorCode;
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
  optional({ executed: record.executed, responded: record.responded, status_code: record.status_code, error: record.error });

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
  const [request_text, response_text, response_complete_marker] = record.compact_texts ?? compactTextsOf(record.request_body, record.response_body);
  return { ...head, compact: true, request_text, response_text, response_complete_marker };
}

/** What a compact item shows of the bodies. */
export function compactTextsOf(requestBody: string | undefined, responseBody: string | undefined): CompactTexts {
  const response = bodyText(responseBody);
  return [bodyText(requestBody).slice(0, COMPACT_TEXT_LENGTH), response.slice(0, COMPACT_TEXT_LENGTH), response.length <= COMPACT_TEXT_LENGTH, responseBody !== undefined];
}
