import type { TicketDO } from '../durable-objects/ticket-do';
import type { ForwardQueueDO } from '../durable-objects/forward-queue-do';

/** Bindings and settings of the Worker, as declared in wrangler.toml and .dev.vars. */
export interface Env {
  DB: D1Database;
  TICKETS: DurableObjectNamespace<TicketDO>;
  FORWARD_QUEUES: DurableObjectNamespace<ForwardQueueDO>;
  WORK_QUEUE: Queue<WorkMessage>;
  /** Newsletter batches, consumed one message per invocation (see wrangler.toml). */
  NEWSLETTER_QUEUE: Queue<WorkMessage>;
  DEAD_LETTERS: Queue<WorkMessage>;
  ASSETS: Fetcher;
  /** "true" enables the built-in identity issuer and its token minting route (local development only). */
  DEV_IDENTITY: string;
  /** "true" lets outbound calls reach loopback and private addresses (local development and tests only). */
  ALLOW_PRIVATE_DESTINATIONS: string;
  /** Bearer token of the operator, who creates and changes projects. A Worker secret. */
  OPERATOR_TOKEN?: string;
  /** base64 of 32 random bytes: the AES-GCM key that encrypts secret values at rest. A Worker secret. */
  SECRETS_KEY?: string;
  /** "true" answers the /v1/bench/* routes used by `npm run bench` (404 otherwise). */
  BENCH_ROUTES?: string;
  /** HTTP e-mail provider's send endpoint; unset = mail stays in the local D1 outbox. */
  MAIL_PROVIDER_URL?: string;
  /** Bearer token of the e-mail provider. A Worker secret. */
  MAIL_PROVIDER_TOKEN?: string;
  /** Sender address of every mail (default no-reply@localhost). */
  MAIL_FROM?: string;
  /** Per-call limit of outbound requests in ms (default 10 000; tests shorten it). */
  OUTBOUND_CALL_MS?: string;
}

/** A message on the work queue; each kind has an idempotent consumer. */
export type WorkMessage = { kind: string; [key: string]: unknown };

export const isTrue = (value: string | undefined): boolean => value === 'true' || value === '1';
