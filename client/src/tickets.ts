/** The ticket methods of the client (spec 4.2), behind the Svc facade. */
import { consumeAnswer } from './answers.js';
import { callProjectRoute, paging, searchOf, type Connection } from './connection.js';
import { invalidParameter } from './errors.js';
import { toQueryString } from './query.js';
import type { OutgoingRequest } from './transport.js';
import type {
  ClearTicketLogParams,
  ClearTicketLogResult,
  ConsumeTicketParams,
  ConsumedRow,
  DatabaseResponse,
  FetchOptions,
  GetConsumedTicketsParams,
  GetTicketsParams,
} from './types.js';

/** Consumes a ticket on /tg (GET), /tp or /tpa (POST); see Svc.consumeTicket for what it resolves with. */
export async function consumeTicket(connection: Connection, params: ConsumeTicketParams): Promise<unknown> {
  if (typeof params?.ticket_id !== 'string' || params.ticket_id === '') throw invalidParameter('ticket_id: required.');
  if (params.method !== 'GET' && params.method !== 'POST') throw invalidParameter("method: must be 'GET' or 'POST'.");
  if (params.auth && params.method === 'GET') throw invalidParameter('Signed-in consumption is POST only.');
  if (params.data !== undefined && (typeof params.data !== 'object' || params.data === null)) throw invalidParameter('data: must be an object.');
  const { baseUrl } = connection;
  const ticket = `${encodeURIComponent(connection.serviceId)}/${encodeURIComponent(params.ticket_id)}`;
  let request: OutgoingRequest;
  if (params.method === 'GET') {
    request = { method: 'GET', url: `${baseUrl}/tg/${ticket}${toQueryString(params.data)}` };
  } else {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const idToken = connection.idToken();
    if (params.auth && idToken) headers.authorization = `Bearer ${idToken}`;
    request = { method: 'POST', url: `${baseUrl}/${params.auth ? 'tpa' : 'tp'}/${ticket}`, headers, body: JSON.stringify(params.data ?? {}) };
  }
  return consumeAnswer(await connection.transport.send(request));
}

/** Lists tickets, or (owner) a ticket's log or action rows. */
export async function getTickets(connection: Connection, params: GetTicketsParams, fetchOptions?: FetchOptions): Promise<DatabaseResponse<unknown>> {
  const query = { ticket_id: params.ticket_id, from: params.from, to: params.to, ...paging(fetchOptions) };
  return callProjectRoute(connection, 'GET', `/tickets${searchOf(query)}`) as Promise<DatabaseResponse<unknown>>;
}

/** Lists the caller's own consumptions made on the signed-in endpoint. */
export async function getConsumedTickets(
  connection: Connection,
  params: GetConsumedTicketsParams,
  fetchOptions?: FetchOptions,
): Promise<DatabaseResponse<ConsumedRow>> {
  const query = { ticket_id: params.ticket_id, ...paging(fetchOptions) };
  return callProjectRoute(connection, 'GET', `/consumed${searchOf(query)}`) as Promise<DatabaseResponse<ConsumedRow>>;
}

/** Asks for a ticket's log rows before `before` (default now) to be deleted in the background. */
export async function clearTicketLog(connection: Connection, params: ClearTicketLogParams): Promise<ClearTicketLogResult> {
  if (typeof params?.ticket_id !== 'string' || params.ticket_id === '') throw invalidParameter('ticket_id: required.');
  const body = params.before === undefined ? {} : { before: params.before };
  return callProjectRoute(connection, 'POST', `/tickets/${encodeURIComponent(params.ticket_id)}/clear-log`, body) as Promise<ClearTicketLogResult>;
}
