import type { Env } from '../env';

/**
 * Mail settings of the Worker. With MAIL_PROVIDER_URL set, mail goes to that HTTP e-mail provider;
 * otherwise it stays in the local D1 outbox (npm start, tests), which the owner lists.
 */
interface MailBindings {
  /** Endpoint of the provider's send call, e.g. https://api.resend.com/emails. A Worker secret or var. */
  MAIL_PROVIDER_URL?: string;
  /** Bearer token of the provider. A Worker secret. */
  MAIL_PROVIDER_TOKEN?: string;
  /** Sender address of every mail; the project's name is its display name. */
  MAIL_FROM?: string;
}

export interface MailSettings {
  provider?: { url: string; token: string | undefined };
  fromAddress: string;
}

/** The sender address when MAIL_FROM is not set. */
const DEFAULT_FROM_ADDRESS = 'no-reply@localhost';

export function mailSettings(env: Env): MailSettings {
  const bindings: MailBindings = env;
  const url = bindings.MAIL_PROVIDER_URL?.trim();
  return {
    ...(url ? { provider: { url, token: bindings.MAIL_PROVIDER_TOKEN?.trim() || undefined } } : {}),
    fromAddress: bindings.MAIL_FROM?.trim() || DEFAULT_FROM_ADDRESS,
  };
}
