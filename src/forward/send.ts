/**
 * Sends a prepared request with the key's value filled in, through the one outbound layer: public addresses
 * only, no redirects, 10 seconds per call, every copy of the key in the answer replaced by $CLIENT_SECRET.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode } from '../../schemas/error-body';
import { FORWARD_SECRET_TOKEN, MAX_FORWARD_ANSWER_BYTES } from '../../schemas/forward-rules';
import { CONSUMPTION_BUDGET_MS } from '../limits';
import { OutboundError, type OutboundFailureReason } from '../outbound/errors';
import { sendOutbound, type OutboundEnv, type OutboundRequest } from '../outbound/fetch';
import { outboundOf, type PreparedRequest } from './prepare';
import { type ForwardError, keptBody } from './record';

export type ForwardOutcome =
  | {
      ok: true;
      statusCode: number;
      /** The answer's text, the key's copies replaced. */
      body: string;
      /** As the request keeps it (see keptBody). */
      kept: string;
      contentType?: string;
      responded: number;
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
    const kept = keptBody(answer.body);
    if (new TextEncoder().encode(kept).length > MAX_KEPT_BYTES) {
      return { ok: false, error: { code: 'REQUEST_FAILED', message: 'The answer does not decode to text small enough to keep (binary data?).' }, httpStatus: 502 };
    }
    const contentType = answer.headers['content-type'];
    return { ok: true, statusCode: answer.status, body: answer.body, kept, responded: Date.now(), ...(contentType ? { contentType } : {}) };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, ...failureOf(error) };
    throw error;
  }
}
