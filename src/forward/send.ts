/**
 * Sends a prepared request with the key's value filled in, through the one outbound layer: public addresses
 * only, no redirects, 10 seconds per call, every copy of the key in the answer replaced by $CLIENT_SECRET.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode } from '../../schemas/error-body';
import { FORWARD_SECRET_TOKEN, MAX_FORWARD_ANSWER_BYTES, MAX_STREAM_BYTES } from '../../schemas/forward-rules';
import { utf8Over } from '../../schemas/utf8';
import { CONSUMPTION_BUDGET_MS } from '../limits';
import { OutboundError, type OutboundFailureReason } from '../outbound/errors';
import { callLimitMs, sendOutbound, type OutboundEnv, type OutboundRequest, type StreamedOutboundResponse } from '../outbound/fetch';
import { redactSecret, SearchTimeout } from '../outbound/redact/redact';
import { StreamRedactor } from '../outbound/redact/stream-redactor';
import { outboundOf, type PreparedRequest } from './prepare';
import { bodyAsJsonText } from '../outbound/body-json';
import { requestedWaitMs } from '../outbound/back-pressure';
import type { ForwardError } from './record';
import { relayPieces } from './stream-relay';

export type ForwardOutcome =
  | {
      ok: true;
      statusCode: number;
      /** The answer's text, the key's copies replaced. */
      body: string;
      /** As the request keeps it (see bodyAsJsonText). */
      kept: string;
      contentType?: string;
      responded: number;
      /** A 429 or 503 whose headers ask for a wait (ms; outbound/back-pressure.ts). */
      askedWaitMs?: number;
    }
  | { ok: false; error: ForwardError; httpStatus: ContentfulStatusCode };

/** How each outbound failure is answered: its code and the HTTP status of a direct request's refusal. */
const FAILURES: Record<OutboundFailureReason, { code: ErrorCode; httpStatus: ContentfulStatusCode }> = {
  invalid_url: { code: 'INVALID_PARAMETER', httpStatus: 400 },
  invalid_header: { code: 'INVALID_PARAMETER', httpStatus: 400 },
  private_destination: { code: 'INVALID_REQUEST', httpStatus: 400 },
  destination_not_allowed: { code: 'INVALID_REQUEST', httpStatus: 400 },
  timeout: { code: 'TIMEOUT', httpStatus: 504 },
  too_large: { code: 'REQUEST_FAILED', httpStatus: 502 },
  unreachable: { code: 'REQUEST_FAILED', httpStatus: 502 },
};

/** Largest kept answer in UTF-8 bytes: a row of D1 or of a Durable Object's SQLite holds at most 2 MB. */
const MAX_KEPT_BYTES = 1_900_000;

export function failureOf(error: OutboundError): { error: ForwardError; httpStatus: ContentfulStatusCode } {
  const { code, httpStatus } = FAILURES[error.reason];
  return { error: { code, message: error.message }, httpStatus };
}

export interface SendKey {
  value: string;
  destinations: readonly string[];
}

/** Builds the request with the key's value filled in, then sends it (see sendBuilt). */
export async function sendPrepared(prepared: PreparedRequest, key: SendKey | null, env: OutboundEnv, signal?: AbortSignal): Promise<ForwardOutcome> {
  let request: OutboundRequest;
  try {
    request = outboundOf(prepared, key?.value);
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, ...failureOf(error) };
    throw error;
  }
  return sendBuilt(request, key, env, signal);
}

/** Sends a request built with the key's value; the answer comes back with every copy of the key replaced. */
export async function sendBuilt(request: OutboundRequest, key: SendKey | null, env: OutboundEnv, signal?: AbortSignal): Promise<ForwardOutcome> {
  const now = Date.now();
  try {
    const answer = await sendOutbound(request, {
      env,
      deadline: now + CONSUMPTION_BUDGET_MS,
      destinations: key?.destinations ?? [],
      maxBytes: MAX_FORWARD_ANSWER_BYTES,
      ...(key ? { secret: key.value, redactAs: FORWARD_SECRET_TOKEN } : {}),
      ...(signal ? { signal } : {}),
    });
    const kept = bodyAsJsonText(answer.body);
    if (utf8Over(kept, MAX_KEPT_BYTES)) {
      return {
        ok: false,
        error: { code: 'REQUEST_FAILED', message: 'The answer does not decode to text small enough to keep (binary data?).' },
        httpStatus: 502,
      };
    }
    const contentType = answer.headers['content-type'];
    const responded = Date.now();
    const askedWaitMs = requestedWaitMs(answer.status, answer.headers, responded);
    return {
      ok: true,
      statusCode: answer.status,
      body: answer.body,
      kept,
      responded,
      ...(contentType ? { contentType } : {}),
      ...(askedWaitMs !== undefined ? { askedWaitMs } : {}),
    };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, ...failureOf(error) };
    throw error;
  }
}

export type StreamOutcome =
  | { ok: true; statusCode: number; responded: number }
  /** statusCode: the destination's, when it answered; askedWaitMs: a 429 or 503's asked wait (as ForwardOutcome's). */
  | { ok: false; error: ForwardError; statusCode?: number; askedWaitMs?: number };

/** What a streamed send relays into: the store of its pieces and the limits of the relay. */
export interface StreamSink {
  store(txt: string): void;
  /** How long the body may keep coming (ms, at most MAX_STREAM_MS). */
  bodyMs: number;
}

/** How much of an error answer (400 or more) of a streamed request is kept on it. */
const MAX_ERROR_BODY_BYTES = 65_536;

function streamFailure(error: unknown, bodyMs: number): ForwardError {
  if (error instanceof SearchTimeout) return { code: 'TIMEOUT', message: error.message };
  if (!(error instanceof OutboundError)) throw error;
  if (error.reason === 'too_large') {
    return {
      code: 'REQUEST_FAILED',
      message: `The destination sent more than ${MAX_STREAM_BYTES} bytes, the most a stream relays; the pieces before them are kept.`,
    };
  }
  if (error.reason === 'timeout') {
    return {
      code: 'TIMEOUT',
      message: `The destination was still sending after ${Math.round(bodyMs / 1000)} s, the longest a stream is relayed; the pieces that arrived are kept.`,
    };
  }
  return { code: 'REQUEST_FAILED', message: `The streamed answer ended before completion: ${error.message}` };
}

/** An error answer's body, searched for the key: read whole up to MAX_ERROR_BODY_BYTES, then cut. */
async function errorAnswer(body: ReadableStream<Uint8Array>, key: SendKey | null, deadline: number): Promise<{ body: unknown; truncated: boolean }> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
    if (size > MAX_ERROR_BODY_BYTES) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) bytes.set(part, (at += part.byteLength) - part.byteLength);
  let text = new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_BODY_BYTES));
  if (key) text = await redactSecret(text, key.value, { deadline, now: Date.now }, FORWARD_SECRET_TOKEN);
  return { body: JSON.parse(bodyAsJsonText(text)) as unknown, truncated };
}

/**
 * Sends the request and relays its answer piece by piece into `sink` (see relayPieces), every copy of the
 * key replaced even when it is split across pieces. An answer of 400 or more is not relayed: it is kept on
 * the failure. A failure mid-body keeps the pieces that arrived.
 */
export async function sendStreamed(
  prepared: PreparedRequest,
  key: SendKey | null,
  env: OutboundEnv,
  signal: AbortSignal,
  sink: StreamSink,
): Promise<StreamOutcome> {
  const deadline = Date.now() + callLimitMs(env) + sink.bodyMs;
  let answer: StreamedOutboundResponse;
  try {
    answer = await sendOutbound(outboundOf(prepared, key?.value), {
      env,
      deadline,
      answer: 'streamed',
      bodyMs: sink.bodyMs,
      destinations: key?.destinations ?? [],
      maxBytes: MAX_STREAM_BYTES,
      signal,
      ...(key ? { secret: key.value, redactAs: FORWARD_SECRET_TOKEN } : {}),
    });
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, error: failureOf(error).error };
    if (error instanceof SearchTimeout) return { ok: false, error: { code: 'TIMEOUT', message: error.message } };
    throw error;
  }
  const statusCode = answer.status;
  if (statusCode >= 400) {
    try {
      const kept = await errorAnswer(answer.body, key, deadline);
      const askedWaitMs = requestedWaitMs(statusCode, answer.headers, Date.now());
      return {
        ok: false,
        statusCode,
        ...(askedWaitMs !== undefined ? { askedWaitMs } : {}),
        error: { code: 'REQUEST_FAILED', message: `The destination answered ${statusCode}.`, status_code: statusCode, ...kept },
      };
    } catch (error) {
      return { ok: false, statusCode, error: streamFailure(error, sink.bodyMs) };
    }
  }
  // Holds back the few characters that could begin a copy cut across two pieces.
  const filter = key ? new StreamRedactor(key.value, { deadline, now: Date.now }, FORWARD_SECRET_TOKEN) : undefined;
  const end = await relayPieces(answer.body, { store: (txt) => sink.store(txt), ...(filter ? { filter } : {}) });
  if (!end.ok) return { ok: false, statusCode, error: { ...streamFailure(end.error, sink.bodyMs), status_code: statusCode } };
  return { ok: true, statusCode, responded: Date.now() };
}
