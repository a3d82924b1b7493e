import { z } from 'zod';
import { ticketRegistrationSchema } from '../../schemas/ticket';
import {
  CreateProjectBody,
  DevUserBody,
  MailTemplateBody,
  NewsletterBody,
  SecretKeyBody,
  UpdateProjectBody,
} from '../platform/schemas';
import { SubscriberBody } from '../routes/subscribers';
import { clearLogBody } from '../routes/tickets';
import type { RouteDoc } from './document';

const P = '/v1/projects/{service_id}';
const PAGING = { limit: 'Page size, 1 to 100 (default 50).', startKey: 'The startKey of the previous page.' };
const anyJson = z.any();

/** Every route of the Worker, documented. test/openapi.test.ts fails when a route is missing here. */
export const ROUTES: readonly RouteDoc[] = [
  { tag: 'platform', method: 'get', path: '/v1/health', auth: 'none', summary: 'Liveness check.' },
  { tag: 'platform', method: 'get', path: '/openapi.json', auth: 'none', summary: 'This document.' },
  { tag: 'projects', method: 'post', path: '/v1/projects', auth: 'operator', body: CreateProjectBody, summary: 'Create a project: answers { service_id, owner_id, owner_key } (the owner key is shown once).', success: { status: 201, description: 'The new project and its owner key.' } },
  { tag: 'projects', method: 'patch', path: '/v1/projects/{service_id}', auth: 'operator', body: UpdateProjectBody, summary: 'Change a project: active, plan, external identity issuer, secureRequest key.' },
  { tag: 'identity', method: 'post', path: `${P}/dev/users`, auth: 'owner', body: DevUserBody, summary: 'Local development only (DEV_IDENTITY): create or update a user and mint an id token.' },
  { tag: 'secrets', method: 'get', path: `${P}/secrets`, auth: 'owner', summary: 'List secret keys (names and settings, never values).' },
  { tag: 'secrets', method: 'get', path: `${P}/secrets/{name}`, auth: 'owner', summary: 'One secret key (never its value).' },
  { tag: 'secrets', method: 'put', path: `${P}/secrets/{name}`, auth: 'owner', body: SecretKeyBody, summary: 'Create or replace a secret key; the value is encrypted at rest.' },
  { tag: 'secrets', method: 'delete', path: `${P}/secrets/{name}`, auth: 'owner', summary: 'Delete a secret key.' },
  { tag: 'mail', method: 'get', path: `${P}/mail-templates`, auth: 'owner', summary: 'List mail templates.' },
  { tag: 'mail', method: 'get', path: `${P}/mail-templates/{template_id}`, auth: 'owner', summary: 'One mail template.' },
  { tag: 'mail', method: 'put', path: `${P}/mail-templates/{template_id}`, auth: 'owner', body: MailTemplateBody, summary: 'Create or replace a mail template (placeholders written ${name}).' },
  { tag: 'mail', method: 'delete', path: `${P}/mail-templates/{template_id}`, auth: 'owner', summary: 'Delete a mail template.' },
  { tag: 'mail', method: 'get', path: `${P}/newsletters`, auth: 'owner', query: { group: 'Only this group.' }, summary: 'List stored newsletters.' },
  { tag: 'mail', method: 'get', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', summary: 'One stored newsletter.' },
  { tag: 'mail', method: 'put', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', body: NewsletterBody, summary: "Store a newsletter under a group ('public', 'authorized', 2..99 or a name)." },
  { tag: 'mail', method: 'delete', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', summary: 'Delete a stored newsletter.' },
  { tag: 'mail', method: 'get', path: `${P}/subscribers/{group}`, auth: 'owner', query: PAGING, summary: 'List the subscribers of a newsletter group.' },
  { tag: 'mail', method: 'put', path: `${P}/subscribers/{group}/{email}`, auth: 'owner', body: SubscriberBody, summary: 'Subscribe an address to a group.' },
  { tag: 'mail', method: 'delete', path: `${P}/subscribers/{group}/{email}`, auth: 'owner', summary: 'Unsubscribe an address.' },
  { tag: 'mail', method: 'get', path: `${P}/mail-outbox`, auth: 'owner', query: { ...PAGING, to: 'Only mail to this address.' }, summary: 'The local mail outbox (mail sent while no HTTP provider is configured).' },
  { tag: 'mail', method: 'get', path: `${P}/newsletter-sends/{send_id}`, auth: 'owner', summary: 'Progress of one newsletter send (nlsd).' },
  { tag: 'records', method: 'get', path: `${P}/records`, auth: 'owner', query: { ...PAGING, table: 'Only this table.' }, summary: 'List the records tickets wrote (pstr).' },
  { tag: 'records', method: 'get', path: `${P}/records/{record_id}`, auth: 'owner', summary: 'One record.' },
  { tag: 'tickets', method: 'put', path: `${P}/tickets/{ticket_id}`, auth: 'owner', body: ticketRegistrationSchema, summary: 'Register or replace a ticket (owner only; a project user, admin included, gets INVALID_REQUEST).', success: { status: 201, description: 'The stored ticket as the owner lists it (200 on update).' } },
  { tag: 'tickets', method: 'delete', path: `${P}/tickets/{ticket_id}`, auth: 'owner', summary: 'Delete a ticket and its per-user counters; its log stays.' },
  {
    tag: 'tickets',
    method: 'get',
    path: `${P}/tickets`,
    auth: 'owner-or-id-token',
    query: { ticket_id: "One ticket; the owner may pass '#<ticket_id>#' (consumption log) or '@<ticket_id>#<consume_id>#' (action rows).", from: 'Log listings: from this time (ms).', to: 'Log listings: up to this time (ms).', ...PAGING },
    summary: 'getTickets: every field for the owner, the public subset for a signed-in user; log listings for the owner.',
  },
  { tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/clear-log`, auth: 'owner', body: clearLogBody, summary: "clearTicketLog: delete the ticket's log rows before `before` (default now), in the background." },
  { tag: 'tickets', method: 'get', path: `${P}/consumed`, auth: 'id-token', query: { ticket_id: 'Only this ticket.', ...PAGING }, summary: "getConsumedTickets: the caller's own signed-in consumptions." },
  { tag: 'consume', method: 'post', path: '/tp/{service_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Consume a ticket: JSON body (or raw text); the query string is read too. Answers { tkid, hash } or a resp body.' },
  { tag: 'consume', method: 'get', path: '/tg/{service_id}/{ticket_id}', auth: 'none', summary: 'Consume a ticket with the query string as data.' },
  { tag: 'consume', method: 'post', path: '/tpa/{service_id}/{ticket_id}', auth: 'id-token', body: anyJson, summary: 'Consume as the signed-in user (POST only).' },
  { tag: 'consume', method: 'get', path: '/tpa/{service_id}/{ticket_id}', auth: 'id-token', summary: 'Refused: signed-in consumption is POST only (INVALID_PARAMETER).' },
  { tag: 'consume', method: 'get', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', auth: 'none', summary: 'Dry run: evaluates the whole condition, runs no action, uses no count.' },
  { tag: 'consume', method: 'post', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Dry run with a body.' },
  { tag: 'consume', method: 'get', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'none', summary: 'Older long form of /tg.' },
  { tag: 'consume', method: 'post', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Older long form of /tp.' },
  { tag: 'consume', method: 'post', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'id-token', body: anyJson, summary: 'Older long form of /tpa.' },
  { tag: 'consume', method: 'get', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'id-token', summary: 'Refused: signed-in consumption is POST only.' },
  { tag: 'platform', method: 'get', path: '/v1/bench/ticket-do', auth: 'none', summary: 'Benchmark only (BENCH_ROUTES=true, 404 otherwise): one bare TicketDO round trip.' },
];
