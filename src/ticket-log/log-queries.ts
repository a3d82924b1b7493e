import { consumedIndexPage } from './consumed-index';
import type { DatabaseResponse } from '../../schemas/listings';
import { type PageRequest, pageOf } from '../wire/paging';
import {
  parseActionFacts,
  toActionListingRow,
  toConsumedRow,
  toOwnerLogRow,
  type ActionListingRow,
  type ConsumedRow,
  type OwnerLogRow,
  type LogListingRow,
  type LogPageQuery,
  type StoredActionRow,
  type StoredLogRow,
} from './log-rows';
import type { LogOutcome, TimeRange } from './listing-query';

/** Where a page starts: the last row of the previous page (each listing has its own tag). */
type LogPosition = { v: 'log'; t: number; k: string };
type ActionPosition = { v: 'act'; s: number };
type ConsumedPosition = { v: 'con'; t: number; i: string; k: string };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;

const isLogPosition = (v: unknown): v is LogPosition => isRecord(v) && v.v === 'log' && isTime(v.t) && isKey(v.k);
const isActionPosition = (v: unknown): v is ActionPosition => isRecord(v) && v.v === 'act' && isTime(v.s);
const isConsumedPosition = (v: unknown): v is ConsumedPosition => isRecord(v) && v.v === 'con' && isTime(v.t) && isKey(v.i) && isKey(v.k);

/** What a listing reads of one ticket's log: its object, which keeps the log (src/ticket-log/ticket-log.ts). */
export interface TicketLogSource {
  page(query: LogPageQuery): Promise<LogListingRow[]>;
  /** The action rows of one consumption; [] when the log has none. */
  actions(consumeId: string): Promise<StoredActionRow[]>;
}

/** The consumption log of one ticket (dry runs included unless `outcome` keeps one kind), newest first. */
export function listTicketLog(source: TicketLogSource, range: TimeRange, request: PageRequest, outcome?: LogOutcome): Promise<DatabaseResponse<OwnerLogRow>> {
  return pageOf(request, {
    isPosition: isLogPosition,
    rows: (after, count) =>
      source.page({ from: range.from, to: range.to, ...(outcome ? { outcome } : {}), after: after ? { t: after.t, k: after.k } : null, count }),
    position: (row): LogPosition => ({ v: 'log', t: row.timestamp, k: row.log_key }),
    shape: (row) => toOwnerLogRow(row, parseActionFacts(row.action_facts), row),
  });
}

/** The action rows of one consumption, in the order they ran. */
export function listActionRows(
  source: TicketLogSource,
  consumeId: string,
  range: TimeRange,
  request: PageRequest,
): Promise<DatabaseResponse<ActionListingRow>> {
  return pageOf(request, {
    isPosition: isActionPosition,
    rows: async (after, count) =>
      (await source.actions(consumeId)).filter((row) => row.timestamp >= range.from && row.timestamp <= range.to && row.seq > (after?.s ?? -1)).slice(0, count),
    position: (row): ActionPosition => ({ v: 'act', s: row.seq }),
    shape: toActionListingRow,
  });
}

/** Reads the rows of these consumptions of one ticket from its log (those it still has). */
export type ConsumedRowsOf = (ticketId: string, logKeys: string[]) => Promise<StoredLogRow[]>;

/** Index rows read per round when entries the log no longer has (cleared) are skipped. */
const CONSUMED_ROUNDS = 5;

/** A user's own consumptions on the signed-in endpoint (optionally of one ticket), newest first. */
export function listConsumed(
  db: D1Database,
  serviceId: string,
  userId: string,
  ticketId: string | undefined,
  request: PageRequest,
  rowsOf: ConsumedRowsOf,
): Promise<DatabaseResponse<ConsumedRow>> {
  return pageOf(request, {
    isPosition: isConsumedPosition,
    rows: async (after, count) => {
      const out: StoredLogRow[] = [];
      let from = after ? { t: after.t, i: after.i, k: after.k } : null;
      for (let round = 0; round < CONSUMED_ROUNDS && out.length < count; round++) {
        const want = count - out.length;
        const index = await consumedIndexPage(db, serviceId, userId, ticketId, from, want);
        const byTicket = new Map<string, string[]>();
        for (const row of index) byTicket.set(row.ticket_id, [...(byTicket.get(row.ticket_id) ?? []), row.log_key]);
        const found = new Map<string, StoredLogRow>();
        await Promise.all(
          [...byTicket].map(async ([ticket, keys]) => {
            for (const row of await rowsOf(ticket, keys)) found.set(`${ticket}/${row.log_key}`, row);
          }),
        );
        out.push(...index.flatMap((row) => found.get(`${row.ticket_id}/${row.log_key}`) ?? []));
        if (index.length < want) break;
        const last = index[index.length - 1];
        from = { t: last.timestamp, i: last.ticket_id, k: last.log_key };
      }
      return out;
    },
    position: (row): ConsumedPosition => ({ v: 'con', t: row.timestamp, i: row.ticket_id, k: row.log_key }),
    shape: toConsumedRow,
  });
}
