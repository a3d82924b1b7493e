/**
 * One consumption's log entry as its ticket's object keeps it: a small index row (key, time, class,
 * where the body is) and a body holding everything the listings show. Pure: no I/O.
 */
import type { ActionRow } from '../actions/types';
import type { LogRow } from './log-row';
import { utf8Bytes } from '../../schemas/utf8';
import { fitForLog, MAX_LOG_VALUE_CHARS } from '../bytes/log-size';
import type { KeptRequest } from './kept-request';
import type { LogListingRow, StoredActionRow, StoredLogRow } from './log-rows';

/** What a consumption's index row does not hold: what the listings show of it. */
export interface LogBody {
  consume_id: string;
  user_id: string;
  signed: boolean;
  failed: boolean;
  code: string | null;
  description: Record<string, unknown>;
  request?: KeptRequest;
  replay_of?: string;
  duration_ms?: number;
  actions: ActionRow[];
}

/** The outcome classes the index keeps apart, so a page of one outcome reads few segments. */
export const LOG_CLASS: Record<'ok' | 'failed' | 'check', number> = { ok: 0, failed: 1, check: 2 };

export const classOf = (row: { is_check: boolean; failed: boolean }): number => (row.is_check ? LOG_CLASS.check : row.failed ? LOG_CLASS.failed : LOG_CLASS.ok);

export function bodyOf(row: LogRow, actions: ActionRow[]): LogBody {
  return {
    consume_id: row.consume_id,
    user_id: row.user_id,
    signed: row.signed,
    failed: row.failed,
    code: row.code,
    description: row.description,
    ...(row.request ? { request: row.request } : {}),
    ...(row.replay_of ? { replay_of: row.replay_of } : {}),
    ...(row.duration_ms !== undefined ? { duration_ms: row.duration_ms } : {}),
    actions,
  };
}

/**
 * The closing row of a run that went on after resp replaces the outcome and description; its action
 * rows are added where the body has none of that seq (the first part's rows stay as logged).
 */
export function closedBody(body: LogBody, row: LogRow, actions: ActionRow[]): LogBody {
  const seqs = new Set(body.actions.map((a) => a.seq));
  const merged = [...body.actions, ...actions.filter((a) => !seqs.has(a.seq))].sort((a, b) => a.seq - b.seq);
  return { ...body, failed: row.failed, code: row.code, description: row.description, actions: merged };
}

/** Largest stored body as UTF-8 (a row of the object's SQLite holds at most 2,000,000 bytes with its key and index facts). */
export const MAX_LOG_BODY_BYTES = 1_900_000;
/** Below this a part's cut form (fitForLog's preview of 4,096 characters) would not be shorter. */
const MIN_PART_CHARS = 8 * 1024;

const cutTo = (body: LogBody, max: number) =>
  JSON.stringify({
    ...body,
    description: fitForLog(body.description, max),
    actions: body.actions.map((action) => ({ ...action, detail: fitForLog(action.detail, max) })),
  });

/**
 * The stored text of a body; only when a value is over the log limit are its parts cut to fit (a whole
 * under the limit has every part under it: one stringify in the usual case). Parts each under the limit
 * can still pass a row together (50 actions of 64 KiB): then every part shares MAX_LOG_BODY_BYTES, counted
 * at 3 bytes a character, the most UTF-8 takes.
 */
export function encodeBody(body: LogBody): string {
  const json = JSON.stringify(body);
  if (json.length <= MAX_LOG_VALUE_CHARS) return json;
  const cut = cutTo(body, MAX_LOG_VALUE_CHARS);
  if (utf8Bytes(cut) <= MAX_LOG_BODY_BYTES) return cut;
  const request = body.request ? JSON.stringify(body.request).length : 0;
  const share = Math.floor((MAX_LOG_BODY_BYTES / 3 - request - 1024) / (body.actions.length + 1));
  const shared = cutTo(body, Math.max(share, MIN_PART_CHARS));
  if (utf8Bytes(shared) <= MAX_LOG_BODY_BYTES) return shared;
  // More rows than the share leaves room for: each keeps its facts, not its detail.
  return JSON.stringify({
    ...body,
    description: fitForLog(body.description, MIN_PART_CHARS),
    actions: body.actions.map((action) => {
      const { attempts, retried, warning } = action.detail;
      return { ...action, detail: { attempts, ...(retried !== undefined ? { retried } : {}), ...(warning !== undefined ? { warning } : {}), truncated: true } };
    }),
  });
}

/** The index facts of an entry beside its body. */
export type IndexFacts = {
  log_key: string;
  timestamp: number;
  class: number;
};

export function storedLogRow(ticketId: string, index: IndexFacts, body: LogBody): StoredLogRow {
  return {
    ticket_id: ticketId,
    log_key: index.log_key,
    consume_id: body.consume_id,
    user_id: body.user_id,
    is_check: index.class === LOG_CLASS.check ? 1 : 0,
    failed: body.failed ? 1 : 0,
    timestamp: index.timestamp,
    description: JSON.stringify(body.description),
  };
}

export function listingRow(ticketId: string, index: IndexFacts, body: LogBody): LogListingRow {
  const facts = body.actions.map((a) => ({ path: a.path, attempts: a.detail.attempts, retried: a.detail.retried, warning: a.detail.warning }));
  return {
    ...storedLogRow(ticketId, index, body),
    action_facts: JSON.stringify(facts),
    request: body.request ? JSON.stringify(body.request) : null,
    replay_of: body.replay_of ?? null,
  };
}

export function actionListingRows(ticketId: string, timestamp: number, body: LogBody): StoredActionRow[] {
  return body.actions.map((a) => ({
    ticket_id: ticketId,
    consume_id: body.consume_id,
    seq: a.seq,
    path: a.path,
    act: a.act,
    detail: JSON.stringify(a.detail),
    timestamp,
  }));
}
