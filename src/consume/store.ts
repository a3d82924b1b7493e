import type { StoredTicket } from '../../schemas/ticket-types';
import type { ActionRow } from '../actions/types';
import type { LogRow } from '../ticket-log/log-row';

/**
 * One unit of the count and of a user's limit taken by a consumption in flight, with the generations
 * it was taken under. A failed run gives a unit back only into the generation it came from
 * (docs/decisions.md, "Reservations across registrations").
 */
export interface Reservation {
  countGeneration: number;
  usage?: { userId: string; generation: number };
}

/** What a ticket keeps of an idempotency key (extension): its first consumption runs, or succeeded with this answer. */
export type KeptKey =
  | { state: 'running'; consumeId: string; leaseUntil: number }
  | { state: 'succeeded'; consumeId: string; answer: { status: number; body: unknown; text?: true } };

/** The idempotency keys of the ticket (durable-objects/idempotency-keys.ts); synchronous like the rest. */
export interface IdempotencyStore {
  find(key: string, now: number): KeptKey | null;
  claim(key: string, consumeId: string, leaseUntil: number): void;
  /** Keeps the answer until expiresAt and makes sure the expiry job is scheduled. */
  keep(key: string, consumeId: string, answer: unknown, expiresAt: number): void;
  release(key: string, consumeId: string): void;
}

/**
 * What the consumption path needs of the storage of its ticket (the TicketDO's TicketStore implements
 * it). Every method is synchronous, so a sequence of calls without an await between them is one
 * atomic step of the object.
 */
export interface ConsumeStore {
  /** The definition; null when the ticket does not exist. */
  ticket(): StoredTicket | null;
  /** null = unlimited. */
  remaining(): number | null;
  userUsed(userId: string): number;
  /** Takes one unit of the count (unlimited stays unlimited) and, for a signed-in user, of their limit. */
  reserve(userId: string | undefined): Reservation;
  /** Gives back the units of a failed run, each only if what it was taken from has not been replaced since. */
  release(reservation: Reservation): void;
  /** Appends a log row and its action rows for export to D1; final = the closing row of a continuation. */
  enqueueLog(row: LogRow, actionRows: ActionRow[], final?: boolean): void;
  /** Replaces the open entry of a run that goes on after resp (an attempt of its retry schedule); it stays open. */
  updateOpenLog(row: LogRow, actionRows: ActionRow[]): void;
  /** The idempotency keys (extension). */
  readonly idempotency: IdempotencyStore;
  /** Stores the rest of a run that goes on after resp, to run at runAt. */
  scheduleContinuation(runAt: number, payload: string): void;
}
