/**
 * The one place that calls fetch on a user's behalf. Refuses destinations that are not public (unless the
 * settings allow private ones) or that the Secret Key's Destinations do not admit, never follows a redirect,
 * holds the call to its time limit, reads at most MAX_RESPONSE_BYTES, and replaces every copy of the secret
 * in the response before anyone sees it.
 */
import { readCapped } from '../engine/bytes';
import type { Env } from '../env';
import { isTrue } from '../env';
import { OUTBOUND_CALL_MS } from '../limits';
import { privateHostRefusal } from './address-guard';
import { destinationAllows } from './destinations';
import { OutboundError } from './errors';
import { redactSecret, SearchTimeout, type SearchBudget } from './redact/redact';
import { normalizeUrl } from './url';

/** Largest response body read; a larger one fails the call with reason 'too_large' (it is never cut). */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** The settings outbound calls read. OUTBOUND_CALL_MS (test settings only) may shorten the 10-second limit. */
export type OutboundEnv = Pick<Env, 'ALLOW_PRIVATE_DESTINATIONS' | 'OUTBOUND_CALL_MS'>;

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Normalized again here (normalizeUrl), so any http(s) URL text will do. */
  url: string;
  headers: Headers;
  body?: string;
}

export interface OutboundOptions {
  env: OutboundEnv;
  /** ms since the epoch when the consumption's budget runs out; the call and the secret search end by then. */
  deadline: number;
  now?: () => number;
  /** The Destinations of the Secret Key used by the call (empty: any public URL). */
  destinations?: readonly string[];
  /** A secret value sent with the call: every copy in the response is replaced by ${CLIENT_SECRET}. */
  secret?: string;
  /** Overrides the per-call limit (tests). Never more than OUTBOUND_CALL_MS. */
  callMs?: number;
  maxBytes?: number;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** Lowercase names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The body decoded as UTF-8 (invalid bytes become U+FFFD). */
  body: string;
}

/** The per-call time limit: 10 s, or less when the settings say so. */
export function callLimitMs(env: OutboundEnv, override?: number): number {
  const configured = override ?? Number(env.OUTBOUND_CALL_MS);
  return Number.isFinite(configured) && configured > 0 ? Math.min(configured, OUTBOUND_CALL_MS) : OUTBOUND_CALL_MS;
}

/** Checks the URL against the address guard and the Destinations; returns the normalized URL. */
export function checkDestination(rawUrl: string, env: OutboundEnv, destinations: readonly string[] = []): URL {
  const url = normalizeUrl(rawUrl);
  if (!isTrue(env.ALLOW_PRIVATE_DESTINATIONS)) {
    const refusal = privateHostRefusal(url.hostname);
    if (refusal) {
      throw new OutboundError('private_destination', `The destination is not a public address: ${refusal}.`, { host: url.hostname });
    }
  }
  if (!destinationAllows(url, destinations)) {
    throw new OutboundError('destination_not_allowed', 'Destination is not allowed for this client secret.');
  }
  return url;
}

const timeoutError = () => new OutboundError('timeout', 'The request did not complete within its time limit.');

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = name in record ? `${record[name]}, ${value}` : value;
  return record;
}

async function redactResponse(response: OutboundResponse, secret: string, budget: SearchBudget): Promise<OutboundResponse> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[await redactSecret(name, secret, budget)] = await redactSecret(value, secret, budget);
  }
  return {
    status: response.status,
    statusText: await redactSecret(response.statusText, secret, budget),
    headers,
    body: await redactSecret(response.body, secret, budget),
  };
}

/**
 * Sends the request and answers the whole response, any status (redirects are answers, not followed).
 * Throws OutboundError: invalid_url, private_destination, destination_not_allowed, timeout, too_large,
 * unreachable.
 */
export async function sendOutbound(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  const now = options.now ?? Date.now;
  const url = checkDestination(request.url, options.env, options.destinations);
  const limitMs = Math.min(callLimitMs(options.env, options.callMs), options.deadline - now());
  if (limitMs <= 0) throw timeoutError();
  const signal = AbortSignal.timeout(limitMs);

  let raw: OutboundResponse;
  try {
    const response = await fetch(url.href, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
    });
    const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
    const bytes = await readCapped(response.body, maxBytes, () => new OutboundError('too_large', `The response is larger than ${maxBytes} bytes.`, { limit: maxBytes }));
    raw = {
      status: response.status,
      statusText: response.statusText,
      headers: headerRecord(response.headers),
      body: new TextDecoder().decode(bytes),
    };
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (signal.aborted) throw timeoutError();
    throw new OutboundError('unreachable', 'The destination could not be reached.');
  }

  if (!options.secret) return raw;
  try {
    return await redactResponse(raw, options.secret, { deadline: options.deadline, now });
  } catch (error) {
    if (error instanceof SearchTimeout) throw timeoutError();
    throw error;
  }
}
