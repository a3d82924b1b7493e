/**
 * An alert notification as a Standard Webhooks message (https://www.standardwebhooks.com): the body
 * `{ type, timestamp, data }`, signed with the rule's whsec_ secret (webhook-id, webhook-timestamp,
 * webhook-signature `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`), sent through the outbound layer
 * (public addresses only, no redirects followed, 10 s at most).
 */
import { toBase64 } from '../../schemas/encoding';
import { OutboundError } from '../outbound/errors';
import { type OutboundEnv, sendOutbound } from '../outbound/fetch';
import { importSigningKey, signatureHeaders } from '../secure/signing';

export type AlertEvent = 'alert.opened' | 'alert.resolved';

/** A fresh signing secret: whsec_ and the base64 of 24 random bytes. */
export const newWebhookSecret = (): string => `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;

/** The message id of one notification: the same for every attempt, so a receiver can drop a repeat. */
export const messageIdOf = (incidentId: string, event: AlertEvent): string => `msg_${incidentId}_${event === 'alert.opened' ? 'opened' : 'resolved'}`;

export const webhookBody = (event: AlertEvent, at: number, data: Record<string, unknown>): string =>
  JSON.stringify({ type: event, timestamp: new Date(at).toISOString(), data });

export type WebhookResult = { ok: true; status: number } | { ok: false; status?: number; error: string };

/** Sends one signed notification; a failure is a result, never a throw (the receiver being down is the owner's to see). */
export async function sendAlertWebhook(
  env: OutboundEnv,
  target: { url: string; secret: string },
  message: { id: string; body: string; now: number },
): Promise<WebhookResult> {
  const signing = await importSigningKey(target.secret);
  const headers = new Headers({
    'content-type': 'application/json',
    ...(await signatureHeaders(signing, message.id, Math.floor(message.now / 1000), message.body)),
  });
  try {
    const answer = await sendOutbound(
      { method: 'POST', url: target.url, headers, body: message.body, hops: 0 },
      { env, deadline: message.now + 10_000, maxBytes: 64 * 1024 },
    );
    if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, error: `The webhook answered ${answer.status}.` };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, error: `${error.reason}: ${error.message}` };
    throw error;
  }
}
