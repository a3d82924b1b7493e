/// <reference path="../worker-configuration.d.ts" />

/**
 * Bindings and settings of the Worker. What wrangler.toml declares is `GeneratedEnv`, written by
 * `npm run types` to worker-configuration.d.ts (CI fails when that file differs from wrangler.toml);
 * here are the queues' message type and the secrets and optional settings wrangler.toml leaves out.
 */
export interface Env extends GeneratedEnv {
  WORK_QUEUE: Queue<WorkMessage>;
  /** Newsletter batches, consumed one message per invocation (see wrangler.toml). */
  NEWSLETTER_QUEUE: Queue<WorkMessage>;
  DEAD_LETTERS: Queue<WorkMessage>;
  /** Bearer token of the operator, who creates and changes projects. A Worker secret. */
  OPERATOR_TOKEN?: string;
  /** base64 of 32 random bytes: the AES-GCM key that encrypts secret values at rest. A Worker secret. */
  SECRETS_KEY?: string;
  /** HTTP e-mail provider's send endpoint; unset = mail stays in the local D1 outbox. */
  MAIL_PROVIDER_URL?: string;
  /** Bearer token of the e-mail provider. A Worker secret. */
  MAIL_PROVIDER_TOKEN?: string;
  /** Sender address of every mail (default no-reply@localhost). */
  MAIL_FROM?: string;
  /** Per-call limit of outbound requests in ms (default 10 000; tests shorten it). */
  OUTBOUND_CALL_MS?: string;
  /** First step of the back-pressure backoff in ms (default and most 1000; tests shorten it). */
  FORWARD_BACKOFF_MS?: string;
  /** A destination circuit's first probe step in ms (default and most 60 000; tests shorten it). */
  CIRCUIT_PROBE_MS?: string;
  /** Longest time a streamed answer is relayed in ms (default and most MAX_STREAM_MS; tests shorten it). */
  FORWARD_STREAM_MS?: string;
  /** "1" (Paid plan) or "free": counts each invocation against Cloudflare's limits (docs/limits.md); unset in production. */
  SVC_STRICT_LIMITS?: string;
}

/** A message on the work queue; each kind has an idempotent consumer (src/queue/messages.ts validates it). */
export type WorkMessage = { kind: string; [key: string]: unknown };

export const isTrue = (value: string | undefined): boolean => value === 'true' || value === '1';
