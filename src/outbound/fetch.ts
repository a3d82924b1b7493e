/**
 * The one place that calls fetch on a user's behalf, for any method and body. Refuses destinations that are
 * not public (unless the settings allow private ones) or that the Secret Key's Destinations do not admit,
 * never follows a redirect, holds the call to its time limit, reads at most MAX_RESPONSE_BYTES, and replaces
 * every copy of the secret in the buffered response before anyone sees it. A streamed answer passes the
 * body on piece by piece under the same cap and time limit.
 */
import type { Env } from '../env';
import { isTrue } from '../env';
import { OUTBOUND_CALL_MS } from '../limits';
import { privateHostRefusal } from './address-guard';
import { markHop } from './hops';
import { readCapped } from '../bytes/read-capped';
import { cappedStream } from './capped-stream';
import { destinationVerdict } from './destinations';
import { OutboundError } from './errors';
import { redactSecret, SearchTimeout, type SearchBudget } from './redact/redact';
import { normalizeUrl } from './url';

/** Largest response body read; a larger one fails the call with reason 'too_large' (it is never cut). */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** The settings outbound calls read. OUTBOUND_CALL_MS (test settings only) may shorten the 10-second limit. */
export type OutboundEnv = Pick<Env, 'ALLOW_PRIVATE_DESTINATIONS' | 'OUTBOUND_CALL_MS'>;

export type OutboundMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Methods that carry no body: fetch refuses one. */
const BODILESS_METHODS: ReadonlySet<OutboundMethod> = new Set(['GET', 'HEAD']);

export interface OutboundRequest {
  method: OutboundMethod;
  /** Normalized again here (normalizeUrl), so any http(s) URL text will do. */
  url: string;
  headers: Headers;
  /**
   * Text, or bytes sent byte for byte (a multipart form already encoded, its content-type in headers).
   * None on GET or HEAD.
   */
  body?: string | Uint8Array;
  /** How many calls deep the request that caused this call arrived (0: a caller, not the gateway); the call carries one more (hops.ts). */
  hops: number;
}

export interface OutboundOptions {
  env: OutboundEnv;
  /** ms since the epoch when the consumption's budget runs out; the call and the secret search end by then. */
  deadline: number;
  now?: () => number;
  /** The Destinations of the Secret Key used by the call (empty: any public URL). */
  destinations?: readonly string[];
  /** A secret value sent with the call: every copy in the response is replaced by `redactAs`. */
  secret?: string;
  /** The text a copy of the secret becomes: ${CLIENT_SECRET} (req, the default) or $CLIENT_SECRET (forwarding). */
  redactAs?: string;
  /** Ends the call early (a cancelled forwarded request); the call fails as unreachable. */
  signal?: AbortSignal;
  /** Overrides the per-call limit (tests). Never more than OUTBOUND_CALL_MS. */
  callMs?: number;
  maxBytes?: number;
  /** Called when the answer's headers arrive: the call no longer counts against the connections waiting for headers. */
  onHeaders?: () => void;
}

/**
 * Asks for the body as a stream passed on piece by piece instead of read whole. The head must arrive within
 * the call's limit; the body then has `bodyMs` more (default: the same limit), bounded by the deadline.
 */
export type StreamedOutboundOptions = OutboundOptions & { answer: 'streamed'; bodyMs?: number };

interface OutboundResponseHead {
  status: number;
  statusText: string;
  /** Lowercase names; repeated headers joined with ', '. */
  headers: Record<string, string>;
}

export interface OutboundResponse extends OutboundResponseHead {
  /** The body decoded as UTF-8 (invalid bytes become U+FFFD). */
  body: string;
}

export interface StreamedOutboundResponse extends OutboundResponseHead {
  /**
   * The raw bytes as they arrive (empty for HEAD). Reading past maxBytes, or past the call's time limit,
   * fails the stream (too_large, timeout) and ends the call; cancelling it ends the call. Status text and
   * headers are searched for the secret; these bytes are not, the caller searches them piece by piece.
   */
  body: ReadableStream<Uint8Array>;
}

/** The per-call time limit: 10 s, or less when the settings say so. */
export function callLimitMs(env: OutboundEnv, override?: number): number {
  const configured = override ?? Number(env.OUTBOUND_CALL_MS);
  return Number.isFinite(configured) && configured > 0 ? Math.min(configured, OUTBOUND_CALL_MS) : OUTBOUND_CALL_MS;
}

/**
 * Checks the URL against the address guard and the Destinations (src/outbound/destinations.ts); returns the
 * normalized URL. Pass the URL as the caller wrote it: the Destinations judge its raw text (a `..` segment or
 * a backslash is gone once normalized). A refusal of the Destinations carries its reason as detail.refusal.
 */
export function checkDestination(rawUrl: string, env: OutboundEnv, destinations: readonly string[] = []): URL {
  const url = normalizeUrl(rawUrl);
  if (!isTrue(env.ALLOW_PRIVATE_DESTINATIONS)) {
    const refusal = privateHostRefusal(url.hostname);
    if (refusal) {
      throw new OutboundError('private_destination', `The destination is not a public address: ${refusal}.`, { host: url.hostname });
    }
  }
  const verdict = destinationVerdict(rawUrl, destinations);
  if (!verdict.allowed) {
    throw new OutboundError('destination_not_allowed', 'Destination is not allowed for this client secret.', { refusal: verdict.reason });
  }
  return url;
}

const timeoutError = () => new OutboundError('timeout', 'The request did not complete within its time limit.');
const unreachableError = () => new OutboundError('unreachable', 'The destination could not be reached.');

/** A search for the secret that ran out of budget is the call's timeout. */
const searchFailure = (error: unknown) => (error instanceof SearchTimeout ? timeoutError() : error);

/** The body of an answer that has none (HEAD, 204). */
const emptyStream = () => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) record[name] = name in record ? `${record[name]}, ${value}` : value;
  return record;
}

async function redactHead(head: OutboundResponseHead, secret: string, budget: SearchBudget, redactAs?: string): Promise<OutboundResponseHead> {
  // Most heads hold neither the secret nor an escape that could hide it: nothing to search.
  const text = `${head.statusText}\n${Object.entries(head.headers).join('\n')}`;
  if (!text.includes(secret) && !/[%\\&+]/.test(text)) return head;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(head.headers)) {
    headers[await redactSecret(name, secret, budget, redactAs)] = await redactSecret(value, secret, budget, redactAs);
  }
  return { status: head.status, statusText: await redactSecret(head.statusText, secret, budget, redactAs), headers };
}

/**
 * The whole body under the cap: natively when its length is declared and it is not content-encoded (the
 * declared length bounds what is read), else piece by piece, refused at the first byte over the cap.
 */
async function readAnswer(response: Response, maxBytes: number, tooLarge: () => OutboundError): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared === null || response.headers.has('content-encoding')) return readCapped(response.body, maxBytes, tooLarge);
  if (Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Sends the request and answers the response, any status (redirects are answers, not followed): its body read
 * whole (the default), or passed on as it arrives with `answer: 'streamed'`. Throws OutboundError:
 * invalid_url, private_destination, destination_not_allowed, timeout, too_large, unreachable.
 */
export function sendOutbound(request: OutboundRequest, options: StreamedOutboundOptions): Promise<StreamedOutboundResponse>;
export function sendOutbound(request: OutboundRequest, options: OutboundOptions & { answer?: 'buffered' }): Promise<OutboundResponse>;
export async function sendOutbound(
  request: OutboundRequest,
  options: OutboundOptions & { answer?: 'buffered' | 'streamed'; bodyMs?: number },
): Promise<OutboundResponse | StreamedOutboundResponse> {
  if (request.body !== undefined && BODILESS_METHODS.has(request.method)) {
    throw new TypeError(`A ${request.method} request carries no body.`);
  }
  const now = options.now ?? Date.now;
  const url = checkDestination(request.url, options.env, options.destinations);
  const limitMs = Math.min(callLimitMs(options.env, options.callMs), options.deadline - now());
  if (limitMs <= 0) throw timeoutError();
  const clock = new AbortController();
  let timer = setTimeout(() => clock.abort(), limitMs);
  const signal = options.signal ? AbortSignal.any([clock.signal, options.signal]) : clock.signal;
  const failed = (error: unknown) => (error instanceof OutboundError ? error : clock.signal.aborted ? timeoutError() : unreachableError());

  const headers = new Headers(request.headers);
  markHop(headers, request.hops);
  let response: Response;
  try {
    response = await fetch(url.href, { method: request.method, headers, body: request.body, redirect: 'manual', signal });
  } catch (error) {
    clearTimeout(timer);
    throw failed(error);
  }
  options.onHeaders?.();
  const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
  const tooLarge = () => new OutboundError('too_large', `The response is larger than ${maxBytes} bytes.`, { limit: maxBytes });
  const head = { status: response.status, statusText: response.statusText, headers: headerRecord(response.headers) };

  if (options.answer === 'streamed') {
    clearTimeout(timer);
    const bodyMs = Math.min(options.bodyMs ?? limitMs, options.deadline - now());
    timer = setTimeout(() => clock.abort(), Math.max(0, bodyMs));
    const body = cappedStream(response.body ?? emptyStream(), maxBytes, { tooLarge, readFailed: failed, finished: () => clearTimeout(timer) });
    if (!options.secret) return { ...head, body };
    try {
      return { ...(await redactHead(head, options.secret, { deadline: options.deadline, now }, options.redactAs)), body };
    } catch (error) {
      await body.cancel().catch(() => undefined);
      throw searchFailure(error);
    }
  }

  let raw: OutboundResponse;
  try {
    raw = { ...head, body: new TextDecoder().decode(await readAnswer(response, maxBytes, tooLarge)) };
  } catch (error) {
    throw failed(error);
  } finally {
    clearTimeout(timer);
  }
  if (!options.secret) return raw;
  try {
    const budget = { deadline: options.deadline, now };
    return {
      ...(await redactHead(raw, options.secret, budget, options.redactAs)),
      body: await redactSecret(raw.body, options.secret, budget, options.redactAs),
    };
  } catch (error) {
    throw searchFailure(error);
  }
}
