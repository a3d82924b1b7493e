import { OUTBOUND_CALL_MS } from '../limits';
import type { MailEnvelope, MailTransport, OutgoingMail, SendOutcome } from './transport';

/** Providers cap idempotency keys (Resend: 256 characters); longer keys are sent as their SHA-256. */
const MAX_IDEMPOTENCY_KEY = 256;

async function idempotencyKey(key: string): Promise<string> {
  if (key.length <= MAX_IDEMPOTENCY_KEY) return key;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The HTTP e-mail provider adapter, in the shape of Resend's send call (POST /emails):
 * `POST <url>` with `Authorization: Bearer <token>`, `Content-Type: application/json`,
 * `Idempotency-Key: <key>` and the body `{ from, to, subject, html, text }`; any 2xx is accepted,
 * its JSON `id` (if any) is the message id. 408, 429, 5xx, a network failure or a timeout can be
 * tried again; any other status is a permanent refusal of this mail.
 */
export class HttpTransport implements MailTransport {
  readonly name = 'http';

  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
    private readonly timeoutMs: () => number = () => OUTBOUND_CALL_MS,
  ) {}

  async send(mail: OutgoingMail, envelope: MailEnvelope): Promise<SendOutcome> {
    if (!this.token) return { ok: false, permanent: false, reason: 'The mail provider token (MAIL_PROVIDER_TOKEN) is not configured.' };
    let res: Response;
    try {
      res = await this.fetcher(this.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.token}`,
          'content-type': 'application/json',
          'idempotency-key': await idempotencyKey(envelope.key),
        },
        body: JSON.stringify({ from: mail.from, to: mail.to, subject: mail.subject, html: mail.html, text: mail.text }),
        redirect: 'manual',
        signal: AbortSignal.timeout(Math.max(1, this.timeoutMs())),
      });
    } catch (err) {
      const timedOut = err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError');
      return { ok: false, permanent: false, reason: timedOut ? 'The mail provider did not answer in time.' : 'The mail provider could not be reached.' };
    }
    const body = await res.text();
    if (res.status >= 200 && res.status < 300) {
      return { ok: true, id: providerId(body) ?? envelope.key, duplicate: false };
    }
    const transient = res.status === 408 || res.status === 429 || res.status >= 500;
    return { ok: false, permanent: !transient, status: res.status, reason: `The mail provider answered ${res.status}.` };
  }
}

function providerId(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    const id = parsed !== null && typeof parsed === 'object' ? (parsed as { id?: unknown }).id : undefined;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}
