/**
 * Provider handshakes (extension, docs/signatures.md "Handshakes"): whether a request is the
 * handshake of the provider a ticket names in condition.handshake, and what answers it. Pure.
 * The consumption verifies the signature before answering (src/consume/consume-ticket.ts).
 */
import type { TicketCondition } from '../../schemas/ticket-types';
import type { RequestSnapshot } from './snapshot';

export type HandshakeKind = NonNullable<TicketCondition['handshake']>;

export type HandshakeAnswer =
  /** Answered as JSON. */
  | { kind: 'json'; body: unknown }
  /** Answered as text/plain, the text as is. */
  | { kind: 'text'; body: string }
  /** Zoom: { plainToken, encryptedToken } where encryptedToken needs the Secret Key (src/actions/handshake.ts). */
  | { kind: 'zoom'; plainToken: string };

/**
 * A Zoom plainToken the answer will HMAC: letters, digits, '-' and '_' only, so the answer can never
 * be a valid signature of a delivery (those sign "v0:<ts>:<body>", with ':' and '{').
 */
const ZOOM_PLAIN_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
/** Microsoft Graph sends an opaque token; answered as text, so it is kept short and printable. */
const GRAPH_TOKEN = /^[\x20-\x7e]{1,1024}$/;

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The answer when `request` is the `kind` handshake; undefined when it is an ordinary delivery (or not well formed). */
export function handshakeAnswer(kind: HandshakeKind, request: RequestSnapshot, search: string): HandshakeAnswer | undefined {
  if (request.method !== 'POST') return undefined;
  const body = record(request.body);
  switch (kind) {
    case 'slack':
      // Slack Events API: { "type": "url_verification", "challenge": "…", "token": "…" }
      return body?.type === 'url_verification' && typeof body.challenge === 'string' ? { kind: 'json', body: { challenge: body.challenge } } : undefined;
    case 'zoom': {
      // { "event": "endpoint.url_validation", "payload": { "plainToken": "…" }, "event_ts": … }
      const plainToken = record(body?.payload)?.plainToken;
      return body?.event === 'endpoint.url_validation' && typeof plainToken === 'string' && ZOOM_PLAIN_TOKEN.test(plainToken)
        ? { kind: 'zoom', plainToken }
        : undefined;
    }
    case 'twitch':
      // Twitch-Eventsub-Message-Type: webhook_callback_verification, body { "challenge": "…", "subscription": … }
      return request.headers['twitch-eventsub-message-type'] === 'webhook_callback_verification' && typeof body?.challenge === 'string'
        ? { kind: 'text', body: body.challenge }
        : undefined;
    case 'discord':
      // Interactions endpoint PING: { "type": 1, … } answered { "type": 1 } (PONG).
      return body?.type === 1 ? { kind: 'json', body: { type: 1 } } : undefined;
    case 'msgraph': {
      // POST <notificationUrl>?validationToken=<token>: answered 200 text/plain with the token, decoded.
      const token = new URLSearchParams(search).get('validationToken');
      return token !== null && GRAPH_TOKEN.test(token) ? { kind: 'text', body: token } : undefined;
    }
  }
}
