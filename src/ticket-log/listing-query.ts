import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { SvcHttpError, invalidParameter } from '../wire/errors';

/** What a getTickets `ticket_id` asks for: tickets, one ticket's consumption log, or one consumption's action rows. */
type TicketsQuery = { kind: 'tickets'; ticket_id?: string } | { kind: 'log'; ticket_id: string } | { kind: 'actions'; ticket_id: string; consume_id: string };

/** '#<ticket_id>#' and '@<ticket_id>#<consume_id>#' (a dry run's ':CHK' log key is accepted as its consume_id). */
const LOG_ID = /^#([^#@]+)#$/;
const ACTIONS_ID = /^@([^#@]+)#([0-9A-Za-z]+)(?::CHK)?#$/;

const invalidTicketId = () => new SvcHttpError('INVALID_REQUEST', 'Invalid ticket id.');

const badLogId = () => invalidParameter('Invalid "ticket_id": a log id is "#<ticket_id>#" or "@<ticket_id>#<consume_id>#".', { field: 'ticket_id' });

/** Reads getTickets' ticket_id. An id with '#' or '@' is a log id, for the owner only (spec 4.2). */
export function parseTicketsQuery(raw: string | undefined, isOwner: boolean): TicketsQuery {
  if (raw === undefined || raw === '') return { kind: 'tickets' };
  if (!/[#@]/.test(raw)) return { kind: 'tickets', ticket_id: raw };
  if (!isOwner) throw invalidTicketId();
  const log = LOG_ID.exec(raw);
  if (log) return { kind: 'log', ticket_id: checkedTicketId(log[1]) };
  const actions = ACTIONS_ID.exec(raw);
  if (actions) return { kind: 'actions', ticket_id: checkedTicketId(actions[1]), consume_id: actions[2] };
  throw badLogId();
}

function checkedTicketId(id: string): string {
  if (!TICKET_ID_PATTERN.test(id)) throw badLogId();
  return id;
}

/** A time parameter: whole milliseconds since the epoch, written in decimal digits. */
function parseTimeParam(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value)) {
    throw invalidParameter(`Invalid "${field}": not a time in milliseconds since the epoch.`, { field });
  }
  return value;
}

/** Inclusive time bounds of a log listing. */
export interface TimeRange {
  from: number;
  to: number;
}

/** from/to of a log listing; '"to" is before "from".' when they cross (spec 4.2). */
export function parseTimeRange(rawFrom: string | undefined, rawTo: string | undefined): TimeRange & { given: boolean } {
  const from = parseTimeParam(rawFrom, 'from');
  const to = parseTimeParam(rawTo, 'to');
  if (from !== undefined && to !== undefined && to < from) throw invalidParameter('"to" is before "from".', { field: 'to' });
  return { from: from ?? 0, to: to ?? Number.MAX_SAFE_INTEGER, given: from !== undefined || to !== undefined };
}

/** A log listing's outcome filter: successful consumptions, failed ones, or dry runs (spec 2.6's failed, 4.1's check). */
export const LOG_OUTCOMES = ['ok', 'failed', 'check'] as const;
export type LogOutcome = (typeof LOG_OUTCOMES)[number];

const isLogOutcome = (raw: string): raw is LogOutcome => (LOG_OUTCOMES as readonly string[]).includes(raw);

/** `outcome` of a log listing; undefined when absent. Only the consumption log has outcomes to filter on. */
export function parseOutcome(raw: string | undefined, listing: TicketsQuery['kind']): LogOutcome | undefined {
  if (raw === undefined) return undefined;
  if (listing !== 'log') {
    throw invalidParameter('"outcome" applies to a consumption log listing only (ticket_id "#<ticket_id>#").', { field: 'outcome' });
  }
  if (!isLogOutcome(raw)) throw invalidParameter(`Invalid "outcome": must be one of ${LOG_OUTCOMES.join(', ')}.`, { field: 'outcome' });
  return raw;
}
