/**
 * The rows of the log listings (spec 2.6), shaped from what D1 holds. Pure: no I/O.
 *
 * Where retry facts come from: the consumption's description may carry top-level `attempts`,
 * `retried` and `warning`; otherwise they are summed up from its action rows, whose detail may carry
 * `attempts` (tries made, 1 = no retry), `retried` and `warning` (a mail or nlsd action that went out
 * but could not be counted or marked sent).
 */

import type { ActionListingRow, ConsumedRow, OwnerLogRow, SampledSummary } from '../../schemas/listings';
import { readKeptRequest } from './kept-request';
import type { LogOutcome } from './listing-query';

/** A ticket_logs row as selected by the listing queries. */
export interface StoredLogRow {
  ticket_id: string;
  log_key: string;
  consume_id: string;
  user_id: string;
  is_check: number;
  failed: number;
  timestamp: number;
  description: string;
}

/** A ticket_action_rows row as selected by the listing query. */
export interface StoredActionRow {
  ticket_id: string;
  consume_id: string;
  seq: number;
  path: string;
  act: string;
  detail: string;
  timestamp: number;
}

/** The retry facts of one action row, as selected from its detail JSON. */
interface ActionFacts {
  path?: string;
  attempts?: unknown;
  retried?: unknown;
  warning?: unknown;
}

export type { ActionListingRow, ConsumedRow, OwnerLogRow };

/** A log listing row: the stored row, its action rows' retry facts (JSON), its kept request (JSON) and what it replays. */
export type LogListingRow = StoredLogRow & { action_facts: string | null; request: string | null; replay_of: string | null };

/** What a page of a ticket's log asks its object for. */
export interface LogPageQuery {
  from: number;
  to: number;
  outcome?: LogOutcome;
  /** The last row of the previous page. */
  after: { t: number; k: string } | null;
  count: number;
}

const parseObject = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const triesOf = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1);
const isRetried = (facts: ActionFacts): boolean => Boolean(facts.retried) || triesOf(facts.attempts) > 1;
const warningText = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : value !== undefined && value !== null && value !== false ? JSON.stringify(value) : undefined;

/** attempts = tries of the most-tried action (1 when nothing was retried or no action ran). */
export function summarizeRetries(description: Record<string, unknown>, actions: ActionFacts[]): { attempts: number; retried: boolean; warning?: string } {
  const attempts = description.attempts !== undefined ? triesOf(description.attempts) : Math.max(1, ...actions.map((a) => triesOf(a.attempts)));
  const retried = description.retried !== undefined ? Boolean(description.retried) : attempts > 1 || actions.some(isRetried);
  const own = warningText(description.warning);
  const fromActions = actions
    .map((a) => {
      const text = warningText(a.warning);
      return text && a.path ? `${a.path}: ${text}` : text;
    })
    .filter((text): text is string => text !== undefined);
  const warning = own ?? (fromActions.length ? fromActions.join('; ') : undefined);
  return { attempts, retried, ...(warning ? { warning } : {}) };
}

export function toConsumedRow(row: StoredLogRow): ConsumedRow {
  return { ticket_id: row.ticket_id, consume_id: row.consume_id, user_id: row.user_id, is_test: false, timestamp: row.timestamp, description: row.description };
}

export function toOwnerLogRow(
  row: StoredLogRow,
  actions: ActionFacts[],
  replay: { request: string | null; replay_of: string | null } = { request: null, replay_of: null },
): OwnerLogRow {
  const description = parseObject(row.description);
  const { attempts, retried, warning } = summarizeRetries(description, actions);
  const out: OwnerLogRow = { ...toConsumedRow(row), log_key: row.log_key, attempts };
  if (row.failed) out.failed = true;
  if (row.is_check) out.check = true;
  if (retried) out.retried = true;
  if (warning) out.warning = warning;
  const request = replay.request ? readKeptRequest(replay.request) : undefined;
  if (request) out.request = request;
  if (replay.replay_of) out.replay_of = replay.replay_of;
  if (description.sampled && typeof description.sampled === 'object') out.sampled = description.sampled as SampledSummary;
  const nextAttemptAt = (description.continuation as { next_attempt_at?: unknown } | undefined)?.next_attempt_at;
  if (typeof nextAttemptAt === 'number') out.next_attempt_at = nextAttemptAt;
  return out;
}

export function toActionListingRow(row: StoredActionRow): ActionListingRow {
  const detail = parseObject(row.detail);
  const out: ActionListingRow = {
    ticket_id: row.ticket_id,
    consume_id: row.consume_id,
    is_test: false,
    timestamp: row.timestamp,
    seq: row.seq,
    path: row.path,
    act: row.act,
    attempts: triesOf(detail.attempts),
    description: row.detail,
  };
  if (isRetried(detail)) out.retried = true;
  const warning = warningText(detail.warning);
  if (warning) out.warning = warning;
  if (detail.sent !== undefined) out.sent = detail.sent;
  if (detail.received !== undefined) out.received = detail.received;
  if (detail.error !== undefined) out.error = detail.error;
  return out;
}

/** The action facts column of the log query: a JSON array, or null when no action row exists. */
export function parseActionFacts(text: string | null): ActionFacts[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as ActionFacts[]) : [];
  } catch {
    return [];
  }
}
