import type { Broadcaster } from './broadcaster';
import type { Counter } from './index';

export interface Env {
  COUNTER: DurableObjectNamespace<Counter>;
  BROADCASTER: DurableObjectNamespace<Broadcaster>;
  STRIPE_WEBHOOK_SECRET: string;
  /** The API the proxy route calls and its key (--var API_URL:… --var API_KEY:…); its /stream serves the streaming scenarios. */
  API_URL: string;
  API_KEY: string;
}
