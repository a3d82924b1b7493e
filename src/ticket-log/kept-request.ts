/**
 * The request a consumption received, as its log entry keeps it for the owner to re-check or replay:
 * credentials redacted, the body whole up to MAX_KEPT_BODY_BYTES.
 */
import type { LoggedRequest } from '../../schemas/listings';
import type { RequestSnapshot } from '../engine/snapshot';

/** A consumption's body is kept whole up to this size; past it only its length is, and it cannot be replayed. */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;
/** Headers whose value is a credential of the caller: kept as this text, never as sent. */
export const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
export const REDACTED = '[redacted]';

/** The request a consumption received, as its log row keeps it for the owner to re-check or replay (the answer type of the owner's log). */
export type KeptRequest = LoggedRequest;

/** A kept request read back from the JSON keepRequest's caller stored; undefined when the text does not read as one. */
export function readKeptRequest(text: string): KeptRequest | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as KeptRequest) : undefined;
  } catch {
    return undefined;
  }
}

/** The URL a kept request was received at, with its query; undefined on rows kept before URLs were. */
export const keptUrl = (kept: Pick<KeptRequest, 'url' | 'search'>): string | undefined => (kept.url === undefined ? undefined : kept.url + kept.search);

/** The exact body bytes of a kept request, or null when only its size was kept. */
export function keptBodyBytes(body: KeptRequest['body']): Uint8Array | null {
  if ('text' in body) return new TextEncoder().encode(body.text);
  if ('base64' in body) return Uint8Array.from(atob(body.base64), (char) => char.charCodeAt(0));
  return null;
}

/** What keepRequest reads of a consumption's input (src/consume/types.ts ConsumeInput). */
export interface ReceivedRequest {
  request: Pick<RequestSnapshot, 'method' | 'headers' | 'ip' | 'user_agent' | 'user'>;
  search: string;
  url?: string;
  rawBody: Uint8Array;
  signedRoute: boolean;
  longForm: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function keptBody(bytes: Uint8Array): KeptRequest['body'] {
  if (bytes.byteLength > MAX_KEPT_BODY_BYTES) return { omitted_bytes: bytes.byteLength };
  try {
    return { text: strictUtf8.decode(bytes) };
  } catch {
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return { base64: btoa(binary) };
  }
}

/**
 * What the log keeps of a consumption's request: credentials redacted, the body whole up to 64 KiB.
 * `tokenHeader`: the header a token signature compares with a Secret Key (X-Gitlab-Token), redacted too.
 */
export function keepRequest(input: ReceivedRequest, receivedAt: number, tokenHeader?: string): KeptRequest {
  const headers: Record<string, string> = {};
  const token = tokenHeader?.toLowerCase();
  for (const [name, value] of Object.entries(input.request.headers))
    headers[name] = CREDENTIAL_HEADERS.has(name.toLowerCase()) || name.toLowerCase() === token ? REDACTED : value;
  return {
    method: input.request.method === 'GET' ? 'GET' : 'POST',
    headers,
    search: input.search,
    // Without its query, which `search` keeps (a long query is not kept twice).
    ...(input.url !== undefined ? { url: input.url.split('?')[0] } : {}),
    body: keptBody(input.rawBody),
    ip: input.request.ip,
    user_agent: input.request.user_agent,
    ...(input.request.user ? { user_id: input.request.user.user_id } : {}),
    signed_route: input.signedRoute,
    long_form: input.longForm,
    received_at: receivedAt,
  };
}
