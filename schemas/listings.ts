/** The listing answers of the ticket surface (spec 2.1.1, 2.6, 4.2) as they travel on the wire. */
import type { TicketAction, TicketCondition } from './ticket-types';

/** Every listing answers this shape; pass startKey back for the next page. */
export interface DatabaseResponse<T> {
  list: T[];
  startKey: string | null;
  endOfList: boolean;
}

/** A ticket as getTickets lists it (spec 2.1.1). The owner-only fields are present for the project owner. */
export interface ListedTicket {
  ticket_id: string;
  description: string;
  /** Remaining consumptions; absent = unlimited. */
  count?: number;
  /** Absolute expiry, ms; absent = never. */
  time_to_live?: number;
  /** Registered at, ms. */
  timestamp: number;
  /** Owner only: the per-user limit, false = unlimited. */
  limit_per_user?: number | false;
  /** Owner only: last registered, ms. */
  updated?: number;
  condition?: TicketCondition;
  actions?: TicketAction[];
  legacy?: boolean;
  rules_version?: number;
}

/** A row of getConsumedTickets: one of the caller's own signed-in consumptions (spec 2.6). */
export interface ConsumedRow {
  ticket_id: string;
  consume_id: string;
  user_id: string;
  is_test: false;
  timestamp: number;
  /** The consumption log as a JSON string; its outcome.ok says whether it succeeded. */
  description: string;
}

/** The answer of clearTicketLog: the log rows before `before` are deleted in the background. */
export interface LogClearAnswer {
  message: string;
  ticket_id: string;
  before: number;
}

/** Owner log listing row: a consumed row plus what the owner needs to read the log. */
export interface OwnerLogRow extends ConsumedRow {
  /** The row's key in the log: consume_id, or consume_id + ':CHK' for a dry run. */
  log_key: string;
  failed?: true;
  /** Present on a dry run (/publ/check). */
  check?: true;
  attempts: number;
  retried?: true;
  warning?: string;
  /** The request it received (credentials redacted; a body over 64 KiB by its size only). */
  request?: unknown;
  /** The consume_id this consumption or dry run replays. */
  replay_of?: string;
  /** An entry that counts failures or dry runs of one kind past their rate in one minute (docs/limits.md, issue 26). */
  sampled?: SampledSummary;
}

/** What a summary entry counted: `more` entries of one kind in the minute, and the first of them as an example. */
export interface SampledSummary {
  more: number;
  /** "N more failed with CONDITION_FAILED (signature) in this minute" */
  text: string;
  /** The failure's code; null for dry runs that passed, 'other' for kinds past the first 16 of the minute. */
  code: string | null;
  field?: string;
  minute_from: number;
  minute_to: number;
  last_at: number;
  example: Record<string, unknown>;
}

/** One action that ran in a consumption: what it sent, what came back, its error. */
export interface ActionListingRow {
  ticket_id: string;
  consume_id: string;
  is_test: false;
  timestamp: number;
  seq: number;
  path: string;
  act: string;
  attempts: number;
  retried?: true;
  warning?: string;
  sent?: unknown;
  received?: unknown;
  error?: unknown;
  /** The whole action row as the runner wrote it, as a JSON string. */
  description: string;
}
