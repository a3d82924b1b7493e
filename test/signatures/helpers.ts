import type { SignedRequest } from '../../src/engine/signature';

/** A request as the gateway hands it to verifySignature: raw body bytes, lowercase header names. */
export function signedRequest(body: string | Uint8Array, headers: Record<string, string>, method = 'POST'): SignedRequest {
  const lowercase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { rawBody: typeof body === 'string' ? new TextEncoder().encode(body) : body, method, headers: lowercase };
}

export const NOW_SECONDS = 1_760_000_000;
export const NOW_MS = NOW_SECONDS * 1000;
