/**
 * Idempotent consumption (extension, docs/api.md "Idempotent consumption"): what a consumption does
 * with the key its request carries. The TicketDO serializes consumptions, so a key found, claimed and
 * kept by synchronous calls is exact under concurrency: of consumptions with one key, one runs.
 */
import type { StoredTicket } from '../../schemas/ticket-types';
import type { RequestSnapshot } from '../engine/snapshot';
import { CONSUMPTION_BUDGET_MS, DEADLINE_GRACE_MS } from '../limits';
import type { Consumption } from './consumption';
import { resolveIdempotencyKey, type ResolvedKey } from './idempotency-key';
import type { ConsumeStore, KeptKey } from './store';
import type { ConsumeInput, ConsumeOutcome } from './types';

/** How long a running first consumption holds its key: its budget and grace, so a run lost with its instance frees it. */
export const KEY_LEASE_MS = CONSUMPTION_BUDGET_MS + DEADLINE_GRACE_MS;

/** The key of this consumption; undefined when the ticket has none, or for a dry run or an owner's replay (which run as asked). */
export function idempotencyKeyOf(ticket: StoredTicket, input: ConsumeInput, request: RequestSnapshot): ResolvedKey | undefined {
  if (!ticket.idempotency || input.mode === 'check' || input.replay) return undefined;
  return resolveIdempotencyKey(ticket.idempotency, request);
}

/** The key as kept now, if the request carries one. */
export function keptKey(store: ConsumeStore, key: ResolvedKey | undefined, now: number): KeptKey | null {
  return key?.ok ? store.idempotency.find(key.key, now) : null;
}

/**
 * A consumption whose key is already kept: after a success, the first answer (no action, no count),
 * logged as a duplicate naming the first consume_id; while the first still runs, 409 with Retry-After.
 */
export function answerKept(consumption: Consumption, kept: KeptKey, now: number): ConsumeOutcome {
  if (kept.state === 'succeeded') {
    consumption.log(false, null, { outcome: { ok: true }, duplicate_of: kept.consumeId });
    return { ok: true, ...kept.answer };
  }
  const message = `The consumption ${kept.consumeId} with this idempotency key is still running; send it again after Retry-After.`;
  const refused = consumption.fail('ticket', 'IDEMPOTENCY_KEY_IN_USE', message, { consume_id: kept.consumeId });
  if (refused.ok) return refused;
  return { ...refused, status: 409, retryAfter: Math.max(1, Math.ceil((kept.leaseUntil - now) / 1_000)) };
}

/**
 * The run of the consumption that claimed the key ended (or was answered and goes on after resp): a
 * success keeps its answer for the window; a failure frees the key, even when an err chain's resp answered.
 */
export function settleKey(
  store: ConsumeStore,
  key: ResolvedKey | undefined,
  consumeId: string,
  run: { failed: boolean; outcome: ConsumeOutcome },
  now: number,
): void {
  if (!key?.ok) return;
  const { failed, outcome } = run;
  if (outcome.ok && !failed) store.idempotency.keep(key.key, consumeId, answerOf(outcome), now + key.windowMs);
  else store.idempotency.release(key.key, consumeId);
}

function answerOf(outcome: Extract<ConsumeOutcome, { ok: true }>): { status: number; body: unknown; text?: true } {
  return { status: outcome.status, body: outcome.body, ...(outcome.text ? { text: true as const } : {}) };
}
