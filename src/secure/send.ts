/**
 * Sends one mirrored request through the outbound layer (public addresses only, no redirects, 10 s per
 * call, the answer capped), signed when the project has a key, and reads what came back with every copy
 * of the key replaced. A failure is an outcome, never a throw: the other requests of the call go on.
 */
import { SECURE_KEY_TOKEN, type SecureFailure } from '../../schemas/secure-rules';
import { OutboundError } from '../outbound/errors';
import { sendOutbound, type OutboundEnv } from '../outbound/fetch';
import { newWebhookId, signatureHeaders } from './signing';

/** The project's secureRequest key, as sent in the body and as the HMAC key of the signature. */
export interface SecureKey {
  value: string;
  signing: CryptoKey;
}

export interface MirrorContext {
  env: OutboundEnv;
  key: SecureKey | null;
  /** ms since the epoch when the call's budget runs out: a request not started by then is not sent. */
  deadline: number;
  /** Largest answer this request may read, in bytes. */
  maxBytes: number;
  /** How many calls deep the secureRequest call arrived (src/outbound/hops.ts). */
  hops: number;
  now?: () => number;
}

export type MirrorOutcome = { ok: true; statusCode: number; body: string } | { ok: false; failure: SecureFailure; httpStatus: 502 | 504 };

const failed = (code: SecureFailure['code'], message: string): MirrorOutcome => ({
  ok: false,
  failure: { code, message },
  httpStatus: code === 'TIMEOUT' ? 504 : 502,
});

/** How a failure of the outbound layer reads. The url was checked before anything was sent, so only these remain. */
function failureOf(error: OutboundError): MirrorOutcome {
  if (error.reason === 'timeout') return failed('TIMEOUT', error.message);
  return failed('REQUEST_FAILED', error.message);
}

/** POSTs `body` (the JSON text of mirroredBody) to `url`; calls `answered` when the answer's headers arrive. */
export async function mirrorOne(context: MirrorContext, url: string, body: string, answered?: () => void): Promise<MirrorOutcome> {
  const now = context.now ?? Date.now;
  if (now() >= context.deadline) return failed('TIMEOUT', "Not sent: the call's time budget ran out before this request's turn.");
  const headers = new Headers({ 'content-type': 'application/json' });
  if (context.key) {
    // Signed right before sending, so a request that waited for the one before it carries a fresh timestamp.
    const signature = await signatureHeaders(context.key.signing, newWebhookId(), Math.floor(now() / 1000), body);
    for (const [name, value] of Object.entries(signature)) headers.set(name, value);
  }
  try {
    const answer = await sendOutbound(
      { method: 'POST', url, headers, body, hops: context.hops },
      {
        env: context.env,
        deadline: context.deadline,
        now,
        maxBytes: context.maxBytes,
        onHeaders: answered,
        ...(context.key ? { secret: context.key.value, redactAs: SECURE_KEY_TOKEN } : {}),
      },
    );
    return { ok: true, statusCode: answer.status, body: answer.body };
  } catch (error) {
    if (error instanceof OutboundError) return failureOf(error);
    throw error;
  }
}
