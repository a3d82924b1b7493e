import { CREDENTIAL_HEADERS, MAX_KEPT_BODY_BYTES, REDACTED, keptUrl, type KeptRequest } from '../logs/kept-request';
import type { ProjectUser } from '../platform/types';
import type { ConsumeInput } from './types';

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
export function keepRequest(input: ConsumeInput, receivedAt: number, tokenHeader?: string): KeptRequest {
  const headers: Record<string, string> = {};
  const token = tokenHeader?.toLowerCase();
  for (const [name, value] of Object.entries(input.request.headers)) headers[name] = CREDENTIAL_HEADERS.has(name.toLowerCase()) || name.toLowerCase() === token ? REDACTED : value;
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

/**
 * The consumption (or, in 'check' mode, the dry run) that replays a kept request: the same method,
 * headers, query, body bytes and caller, the user as they are now, judged as at its arrival.
 */
export function replayInput(
  kept: KeptRequest,
  body: Uint8Array,
  project: ConsumeInput['project'],
  ticketId: string,
  consumeId: string,
  mode: ConsumeInput['mode'],
  user: ProjectUser | undefined,
): ConsumeInput {
  return {
    mode,
    project,
    ticket_id: ticketId,
    request: { method: kept.method, headers: kept.headers, ip: kept.ip, user_agent: kept.user_agent, ...(user ? { user } : {}) },
    rawBody: body,
    search: kept.search,
    ...(kept.url !== undefined ? { url: keptUrl(kept) } : {}),
    signedRoute: kept.signed_route,
    longForm: kept.long_form,
    issuer: false,
    replay: { of: consumeId, received_at: kept.received_at },
  };
}
