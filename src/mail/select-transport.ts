import type { Env } from '../env';
import { HttpTransport } from './http-transport';
import { OutboxTransport } from './outbox-transport';
import { mailSettings } from './settings';
import type { MailTransport } from './transport';

/** The HTTP provider when MAIL_PROVIDER_URL is set, else the local D1 outbox. */
export function selectTransport(env: Env, options: { now?: () => number; timeoutMs?: () => number } = {}): MailTransport {
  const { provider } = mailSettings(env);
  if (provider) return new HttpTransport(provider.url, provider.token, undefined, options.timeoutMs);
  return new OutboxTransport(env.DB, options.now, env.BODIES);
}
