/**
 * Provider handshakes (extension, docs/signatures.md "Handshakes"), the server's side in one module:
 * whether a request is the handshake of the provider a ticket names in condition.handshake, and what
 * answers it. Which handshakes there are, and which need a signature, are defined in
 * schemas/signature-presets.ts. The consumption verifies the signature before answering and logs the
 * answer (src/consume/consume-ticket.ts).
 *
 * Zoom's answer needs the Secret Key: the internal action hsk computes { plainToken, encryptedToken },
 * where encryptedToken is the hex HMAC-SHA256 of plainToken keyed by the Secret Key of the ticket's
 * signature. hsk is never registered by an owner; its row shows the plainToken, never the key.
 */
import type { TicketAction, TicketCondition } from '../../schemas/ticket-types';
import type { RequestSnapshot } from '../engine/snapshot';
import { ActionError, type ErrorBody, internalErrorBody } from '../wire/errors';
import { loadSecretKey } from '../platform/secrets';
import type { RunOutcome } from './runner';
import type { ActionModule, ActionRow } from './types';
import { toHex } from '../../schemas/encoding';

export type HandshakeKind = NonNullable<TicketCondition['handshake']>;

export type HandshakeAnswer =
  /** Answered as JSON. */
  | { kind: 'json'; body: unknown }
  /** Answered as text/plain, the text as is. */
  | { kind: 'text'; body: string }
  /** Zoom: { plainToken, encryptedToken } where encryptedToken needs the Secret Key (handshakeAction). */
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

/** The answer when `request` is the `kind` handshake; undefined when it is an ordinary delivery (or not well formed). Pure. */
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

/** Not an ActKind: registration never accepts it (schemas/actions/schema.ts); only the consumption builds it. */
export const HANDSHAKE_ACT = 'hsk';

export const handshakeAction: ActionModule = {
  async run({ exe, services }) {
    const { secretName, plainToken } = exe as { secretName: string; plainToken: string };
    const key = await loadSecretKey(services.env, services.serviceId, secretName);
    if (!key) throw new ActionError('REQUEST_FAILED', `The Secret Key "${secretName}" no longer exists.`, { reason: 'secret_missing', secretName });
    const hmacKey = await crypto.subtle.importKey('raw', new TextEncoder().encode(key.value), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const encryptedToken = toHex(await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(plainToken)));
    return { ok: true, answer: { plainToken, encryptedToken }, row: { handshake: 'zoom', plainToken } };
  },
};

/** The run that answers a Zoom handshake: hsk, then resp with its answer. */
function zoomHandshakeActions(secretName: string, plainToken: string): TicketAction[] {
  // The runner looks the kind up in ACTION_MODULES, where hsk is registered beside the kinds of the spec.
  const hsk = { act: HANDSHAKE_ACT, exe: { secretName, plainToken, actions: [{ act: 'resp', exe: { body: '${response}' } }] } };
  return [hsk as unknown as TicketAction];
}

/** What a verified handshake is answered with, and the rows of the run that computed it (Zoom's). */
export type HandshakeReply = { ok: true; rows: ActionRow[]; body: unknown; text?: true } | { ok: false; rows: ActionRow[]; error: ErrorBody };

/**
 * The reply to a verified handshake of a ticket with `condition`. Zoom's is computed by running hsk
 * and a resp with `runActions` (the consumption runs them in its context); a run that crashed or did
 * not answer is an error of the action stage.
 */
export async function replyToHandshake(
  answer: HandshakeAnswer,
  condition: TicketCondition,
  runActions: (actions: TicketAction[]) => Promise<RunOutcome>,
): Promise<HandshakeReply> {
  if (answer.kind === 'json') return { ok: true, rows: [], body: answer.body };
  if (answer.kind === 'text') return { ok: true, rows: [], body: answer.body, text: true };
  const secretName = condition.signature!.secretName;
  let outcome: RunOutcome;
  try {
    outcome = await runActions(zoomHandshakeActions(secretName, answer.plainToken));
  } catch (err) {
    console.error('handshake crashed', err instanceof Error ? err.message : String(err));
    outcome = { rows: [], error: internalErrorBody('action') };
  }
  if (outcome.respond && !outcome.error) return { ok: true, rows: outcome.rows, body: outcome.respond.body };
  return { ok: false, rows: outcome.rows, error: outcome.error ?? { code: 'INTERNAL_ERROR', message: 'The handshake was not answered.', stage: 'action' } };
}
