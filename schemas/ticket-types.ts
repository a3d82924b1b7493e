/**
 * The stored form of a ticket: what registration produces after validation and normalization,
 * what the TicketDO runs and what getTickets returns to the owner. Its condition and actions are typed by
 * the schemas of stored-ticket.ts.
 */

export const OPERATORS = ['=', '!=', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The stored condition and actions (generated from the schemas of stored-ticket.ts). */
export type {
  ConditionRow,
  HeaderRow,
  MatchPart,
  RequestCondition,
  SignatureConfig,
  TicketAction,
  TicketCondition,
  UserRow,
} from './answer-types.generated';
import type { TicketAction, TicketCondition } from './answer-types.generated';
import type { StoredIdempotency } from './idempotency';
import type { StoredRetrySchedule } from './retry-schedule';
import type { PUBLIC_KEY_ALGORITHMS } from './signature';

/** Beyond spec 2.2.1 (docs/signature-extensions.md): public-key signatures, the key held by the Secret Key. */
export type PublicKeyAlgorithm = (typeof PUBLIC_KEY_ALGORITHMS)[number];

export const ACT_KINDS = ['acsg', 'acsr', 'pstr', 'req', 'mail', 'nlsd', 'resp', 'cond'] as const;
export type ActKind = (typeof ACT_KINDS)[number];

export interface StoredTicket {
  ticket_id: string;
  description?: string;
  /** Count given at the last registration; the remaining count lives in the TicketDO. */
  count?: number | null;
  /** Effective per-user limit: a positive number, or absent = unlimited. */
  limit_per_user?: number;
  /** Absolute expiry in ms since the epoch; absent = never. */
  time_to_live?: number;
  condition: TicketCondition;
  actions: TicketAction[];
  /** Registered at (first registration), ms. */
  timestamp: number;
  /** Last registered, ms. */
  updated: number;
  /** 2 = a req action answers { status, headers, body }; absent on a legacy ticket saved before it (answers the body alone). */
  rules_version?: 2;
  /** Imported under the previous rules (spec 9.2): runs by them until registered again. */
  legacy?: true;
  /** Extension: the key of idempotent consumption and its window (schemas/idempotency.ts). */
  idempotency?: StoredIdempotency;
  /** Extension: the retry schedule of the run after resp (schemas/retry-schedule.ts). */
  retry_schedule?: StoredRetrySchedule;
}
