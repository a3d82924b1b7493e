import { z } from 'zod';
import { forwardDispatchSchema, forwardFinalizeSchema } from '../../schemas/forward';
import { FORWARD_METHODS, FORWARD_STATUSES, REALTIME_ROUTE, REALTIME_TOKEN_PARAM } from '../../schemas/forward-rules';
import { secureRequestSchema } from '../../schemas/secure';
import { SECURE_REQUEST_ROUTE } from '../../schemas/secure-rules';
import { legacyImportSchema } from '../../schemas/legacy/import';
import { ticketRegistrationSchema } from '../../schemas/ticket';
import { ticketCheckSchema } from '../../schemas/ticket-check';
import {
  CreateProjectBody,
  DevUserBody,
  MailTemplateBody,
  NewsletterBody,
  OwnerSettingsBody,
  SecretKeyBody,
  UpdateProjectBody,
} from '../platform/schemas';
import { SubscriberBody } from '../routes/subscribers';
import { signatureDiagnosisBody } from '../routes/ticket-signature-diagnosis';
import { presetMatchBody } from '../routes/signature-presets-match';
import { clearLogBody } from '../routes/tickets';
import { LOG_OUTCOMES } from '../ticket-log/listing-query';
import * as answer from './answers';
import type { QueryParameter, RouteDoc } from './document';

const P = '/v1/projects/{service_id}';
const text = (description: string): QueryParameter => ({ description, schema: z.string() });
const PAGING: Record<string, QueryParameter> = {
  limit: { description: 'Page size, 1 to 100 (default 50).', schema: z.int().min(1).max(100) },
  startKey: text('The startKey of the previous page.'),
};
const anyJson = z.unknown().describe('Any JSON (or raw text), read by the ticket as ${body}.');
const ok = (description: string, schema: z.ZodType) => ({ status: 200, description, schema });
const deleted = ok('Deleted.', answer.deletedAnswer);
const receipt = ok("The receipt, or the ticket's resp answer.", answer.receiptAnswer);

const ADDRESS: Record<string, QueryParameter> = {
  id: text("The request's id: 'stamp:entropy' (with url and method) or a full id '<METHOD>:<stamp>:<entropy>:<url>'."),
  url: text('The url the request was made to, as written (needed with a stamp:entropy id).'),
  method: { description: 'The method it was made with (needed with a stamp:entropy id).', schema: z.enum(FORWARD_METHODS) },
};
const FWD = `${P}/forward`;

/** Every route of the Worker, documented. test/openapi.test.ts fails when a route is missing here. */
export const ROUTES: readonly RouteDoc[] = [
  { operationId: 'getHealth', tag: 'platform', method: 'get', path: '/v1/health', auth: 'none', noRefusals: true, summary: 'Liveness check.', success: ok('Alive.', answer.healthAnswer) },
  { operationId: 'getOpenApi', tag: 'platform', method: 'get', path: '/openapi.json', auth: 'none', noRefusals: true, summary: 'This document.', success: ok('This document.', answer.openApiAnswer) },
  { operationId: 'createProject', tag: 'projects', method: 'post', path: '/v1/projects', auth: 'operator', body: CreateProjectBody, bodyOptional: true, summary: 'Create a project: answers { service_id, owner_id, owner_key } (the owner key is shown once).', success: { status: 201, description: 'The new project and its owner key.', schema: answer.createdProjectAnswer } },
  { operationId: 'updateProject', tag: 'projects', method: 'patch', path: '/v1/projects/{service_id}', auth: 'operator', body: UpdateProjectBody, summary: "Change a project: active, plan, external identity issuer, secureRequest key and its Destinations, storage quota, the consume routes' flood limits.", success: ok('The changed project.', answer.projectAnswer) },
  { operationId: 'getOwnerProject', tag: 'projects', method: 'get', path: '/v1/owner', auth: 'owner-key', summary: 'The project an owner key opens (the key alone identifies it).', success: ok('The project.', answer.ownerProjectAnswer) },
  { operationId: 'updateOwnerSettings', tag: 'projects', method: 'patch', path: `${P}/settings`, auth: 'owner', body: OwnerSettingsBody, summary: "The owner changes its project's own settings: name, external identity issuer, secureRequest key and its Destinations, the consume routes' flood limits (plan and active are the operator's, refused as unknown fields).", success: ok('The project as GET /v1/owner answers it (never the key).', answer.ownerProjectAnswer) },
  { operationId: 'createDevUser', tag: 'identity', method: 'post', path: `${P}/dev/users`, auth: 'owner', body: DevUserBody, notFound: true, summary: 'Local development only (DEV_IDENTITY; 404 elsewhere): create or update a user and mint an id token.', success: ok('The user and a fresh id token.', answer.devUserAnswer) },
  { operationId: 'listSecretKeys', tag: 'secrets', method: 'get', path: `${P}/secrets`, auth: 'owner', summary: 'List secret keys (names and settings, never values).', success: ok('Every secret key.', z.object({ list: z.array(answer.secretKeyAnswer) })) },
  { operationId: 'getSecretKey', tag: 'secrets', method: 'get', path: `${P}/secrets/{name}`, auth: 'owner', notFound: true, summary: 'One secret key (never its value).', success: ok('The secret key.', answer.secretKeyAnswer) },
  { operationId: 'putSecretKey', tag: 'secrets', method: 'put', path: `${P}/secrets/{name}`, auth: 'owner', body: SecretKeyBody, summary: 'Create or replace a secret key; the value is encrypted at rest.', success: ok('The stored secret key (never its value).', answer.secretKeyAnswer) },
  { operationId: 'deleteSecretKey', tag: 'secrets', method: 'delete', path: `${P}/secrets/{name}`, auth: 'owner', notFound: true, summary: 'Delete a secret key.', success: deleted },
  { operationId: 'listMailTemplates', tag: 'mail', method: 'get', path: `${P}/mail-templates`, auth: 'owner', summary: 'List mail templates.', success: ok('Every mail template.', z.object({ list: z.array(answer.mailTemplateAnswer) })) },
  { operationId: 'getMailTemplate', tag: 'mail', method: 'get', path: `${P}/mail-templates/{template_id}`, auth: 'owner', notFound: true, summary: 'One mail template.', success: ok('The mail template.', answer.mailTemplateAnswer) },
  { operationId: 'putMailTemplate', tag: 'mail', method: 'put', path: `${P}/mail-templates/{template_id}`, auth: 'owner', body: MailTemplateBody, summary: 'Create or replace a mail template (placeholders written ${name}).', success: ok('The stored mail template.', answer.mailTemplateAnswer) },
  { operationId: 'deleteMailTemplate', tag: 'mail', method: 'delete', path: `${P}/mail-templates/{template_id}`, auth: 'owner', notFound: true, summary: 'Delete a mail template.', success: deleted },
  { operationId: 'listNewsletters', tag: 'mail', method: 'get', path: `${P}/newsletters`, auth: 'owner', query: { group: text('Only this group.') }, summary: 'List stored newsletters.', success: ok('The stored newsletters.', z.object({ list: z.array(answer.newsletterAnswer) })) },
  { operationId: 'getNewsletter', tag: 'mail', method: 'get', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', notFound: true, summary: 'One stored newsletter.', success: ok('The newsletter.', answer.newsletterAnswer) },
  { operationId: 'putNewsletter', tag: 'mail', method: 'put', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', body: NewsletterBody, summary: "Store a newsletter under a group ('public', 'authorized', 2..99 or a name).", success: ok('The stored newsletter.', answer.newsletterAnswer) },
  { operationId: 'deleteNewsletter', tag: 'mail', method: 'delete', path: `${P}/newsletters/{group}/{message_id}`, auth: 'owner', notFound: true, summary: 'Delete a stored newsletter.', success: deleted },
  { operationId: 'listSubscribers', tag: 'mail', method: 'get', path: `${P}/subscribers/{group}`, auth: 'owner', query: PAGING, summary: 'List the subscribers of a newsletter group.', success: ok('A page of subscribers.', answer.listingOf(answer.subscriberAnswer)) },
  { operationId: 'putSubscriber', tag: 'mail', method: 'put', path: `${P}/subscribers/{group}/{email}`, auth: 'owner', body: SubscriberBody, bodyOptional: true, summary: 'Subscribe an address to a group.', success: ok('The subscription.', answer.subscribedAnswer) },
  { operationId: 'deleteSubscriber', tag: 'mail', method: 'delete', path: `${P}/subscribers/{group}/{email}`, auth: 'owner', notFound: true, summary: 'Unsubscribe an address.', success: deleted },
  { operationId: 'listMailOutbox', tag: 'mail', method: 'get', path: `${P}/mail-outbox`, auth: 'owner', query: { ...PAGING, to: text('Only mail to this address.') }, summary: 'The local mail outbox (mail sent while no HTTP provider is configured).', success: ok('A page of mail, newest first.', answer.listingOf(answer.outboxMailAnswer)) },
  { operationId: 'getNewsletterSend', tag: 'mail', method: 'get', path: `${P}/newsletter-sends/{send_id}`, auth: 'owner', notFound: true, summary: 'Progress of one newsletter send (nlsd).', success: ok('The send and its batches.', answer.newsletterSendAnswer) },
  { operationId: 'listRecords', tag: 'records', method: 'get', path: `${P}/records`, auth: 'owner', query: { ...PAGING, table: text('Only this table.') }, summary: 'List the records tickets wrote (pstr).', success: ok('A page of records.', answer.listingOf(answer.recordAnswer)) },
  { operationId: 'getRecord', tag: 'records', method: 'get', path: `${P}/records/{record_id}`, auth: 'owner', notFound: true, summary: 'One record.', success: ok('The record.', answer.recordAnswer) },
  { operationId: 'registerTicket', tag: 'tickets', method: 'put', path: `${P}/tickets/{ticket_id}`, auth: 'owner', body: ticketRegistrationSchema, summary: 'Register or replace a ticket (owner only; a project user, admin included, gets INVALID_REQUEST).', success: { status: 201, description: 'The stored ticket as the owner lists it (200 on update).', schema: answer.ownerTicketAnswer } },
  { operationId: 'importLegacyTicket', tag: 'tickets', method: 'put', path: `${P}/tickets/{ticket_id}/legacy`, auth: 'owner', body: legacyImportSchema, summary: 'Import a ticket saved under the previous rules (owner only): the renames of spec 9.3 applied, stored with legacy: true, it runs by the previous rules (spec 9.2) until registered again. See docs/migrating.md.', success: { status: 201, description: 'The stored ticket as the owner lists it (200 on update), legacy: true.', schema: answer.ownerTicketAnswer } },
  { operationId: 'getTicket', tag: 'tickets', method: 'get', path: `${P}/tickets/{ticket_id}`, auth: 'owner', notFound: true, summary: 'One ticket as the owner lists it, with the count as registered.', success: ok('The ticket.', answer.oneTicketAnswer) },
  { operationId: 'planTicket', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/plan`, auth: 'owner', body: ticketRegistrationSchema, summary: 'What registering this body would change (create, update or none), judged by the registry; nothing is stored.', success: ok('The current and proposed definitions.', answer.ticketPlanAnswer) },
  { operationId: 'checkTicketSample', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/check`, auth: 'owner', body: ticketCheckSchema, bodyOptional: true, notFound: true, summary: "The owner's dry run: the whole condition judged against a sample request (method, headers, body, query, user); no action runs, no count is used.", success: ok('Whether the condition passed, and why not.', answer.ticketCheckAnswer) },
  { operationId: 'recheckConsumption', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/log/{consume_id}/recheck`, auth: 'owner', notFound: true, summary: "Judge a logged consumption's request against the current definition (a dry run marked replay_of): no action, no count.", success: ok('Whether it would pass now.', answer.recheckAnswer) },
  { operationId: 'diagnoseConsumptionSignature', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/log/{consume_id}/signature`, auth: 'owner', notFound: true, body: signatureDiagnosisBody, bodyOptional: true, summary: "Why did the signature fail? A logged consumption's request checked again against the ticket's signature as at its arrival: the header read, items and captures, the timestamp's age, the signed bytes' length and SHA-256; and which presets verify it with the Secret Key. Never a secret or a signature.", success: ok('The diagnosis.', answer.signatureDiagnosisAnswer) },
  { operationId: 'matchSignaturePresets', tag: 'tickets', method: 'post', path: `${P}/signature-presets/match`, auth: 'owner', body: presetMatchBody, summary: 'Which signature presets verify a captured request (headers, body, URL) with a Secret Key: scheme inference. Never a secret or a signature.', success: ok('The presets that verify it.', answer.presetMatchAnswer) },
  { operationId: 'replayConsumption', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/log/{consume_id}/replay`, auth: 'owner', notFound: true, summary: "Replay a logged consumption's request as a new consumption marked replay_of (its actions run, a count is used); the signature judged as at its arrival.", success: ok('What the consumption answered.', answer.replayAnswer) },
  { operationId: 'deleteTicket', tag: 'tickets', method: 'delete', path: `${P}/tickets/{ticket_id}`, auth: 'owner', notFound: true, summary: 'Delete a ticket and its per-user counters; its log stays.', success: ok('Deleted.', answer.ticketDeletedAnswer) },
  {
    operationId: 'getTickets',
    tag: 'tickets',
    method: 'get',
    path: `${P}/tickets`,
    auth: 'owner-or-id-token',
    query: {
      ticket_id: text("One ticket; the owner may pass '#<ticket_id>#' (consumption log) or '@<ticket_id>#<consume_id>#' (action rows)."),
      from: { description: 'Log listings: from this time (ms).', schema: z.int().min(0) },
      to: { description: 'Log listings: up to this time (ms).', schema: z.int().min(0) },
      outcome: { description: "The consumption log only: rows of one outcome, 'ok', 'failed' or 'check' (dry runs).", schema: z.enum(LOG_OUTCOMES) },
      ...PAGING,
    },
    summary: 'getTickets: every field for the owner, the public subset for a signed-in user; log listings for the owner.',
    success: ok('A page of tickets, or of log rows.', answer.ticketsAnswer),
  },
  { operationId: 'clearTicketLog', tag: 'tickets', method: 'post', path: `${P}/tickets/{ticket_id}/clear-log`, auth: 'owner', body: clearLogBody, bodyOptional: true, summary: "clearTicketLog: delete the ticket's log rows before `before` (default now), in the background.", success: ok('Clearing has started.', answer.logClearingAnswer) },
  { operationId: 'getTicketFlood', tag: 'tickets', method: 'get', path: `${P}/tickets/{ticket_id}/flood`, auth: 'owner', query: { from: { description: 'From this time (ms); default an hour ago; at most a day back.', schema: z.int().min(0) } }, summary: 'Whether the ticket is being limited: per minute, the requests refused (429) and the failures or dry runs counted instead of kept (issue 26).', success: ok('The minutes with a refusal or a counted entry, oldest first.', answer.ticketFloodAnswer) },
  { operationId: 'getTicketJobs', tag: 'tickets', method: 'get', path: `${P}/tickets/{ticket_id}/jobs`, auth: 'owner', summary: "The ticket object's scheduled work (continuations after resp, log exports) and the jobs it gave up after failing on every try (issue 33, an extension).", success: ok('Scheduled and given-up jobs, without their payloads.', answer.ticketJobsAnswer) },
  { operationId: 'getConsumedTickets', tag: 'tickets', method: 'get', path: `${P}/consumed`, auth: 'id-token', query: { ticket_id: text('Only this ticket.'), ...PAGING }, summary: "getConsumedTickets: the caller's own signed-in consumptions.", success: ok('A page of consumptions.', answer.listingOf(answer.consumedAnswer)) },
  { operationId: 'consumeTicket', tag: 'consume', method: 'post', path: '/tp/{service_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Consume a ticket: JSON body (or raw text); the query string is read too. Answers { tkid, hash } or a resp body.', success: receipt },
  { operationId: 'consumeTicketByQuery', tag: 'consume', method: 'get', path: '/tg/{service_id}/{ticket_id}', auth: 'none', summary: 'Consume a ticket with the query string as data.', success: receipt },
  { operationId: 'consumeTicketSignedIn', tag: 'consume', method: 'post', path: '/tpa/{service_id}/{ticket_id}', auth: 'id-token', body: anyJson, summary: 'Consume as the signed-in user (POST only).', success: receipt },
  { operationId: 'refuseSignedInGet', tag: 'consume', method: 'get', path: '/tpa/{service_id}/{ticket_id}', auth: 'id-token', summary: 'Refused: signed-in consumption is POST only (INVALID_PARAMETER).', success: ok('Never: the answer is always 400.', answer.receiptAnswer) },
  { operationId: 'checkTicket', tag: 'consume', method: 'get', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', auth: 'none', summary: 'Dry run: evaluates the whole condition, runs no action, uses no count.', success: receipt },
  { operationId: 'checkTicketWithBody', tag: 'consume', method: 'post', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Dry run with a body.', success: receipt },
  { operationId: 'consumeTicketByQueryLong', tag: 'consume', method: 'get', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'none', summary: 'Older long form of /tg.', success: receipt },
  { operationId: 'consumeTicketLong', tag: 'consume', method: 'post', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'none', body: anyJson, summary: 'Older long form of /tp.', success: receipt },
  { operationId: 'consumeTicketSignedInLong', tag: 'consume', method: 'post', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'id-token', body: anyJson, summary: 'Older long form of /tpa.', success: receipt },
  { operationId: 'forwardRequest', tag: 'forward', method: 'post', path: FWD, auth: 'anyone', body: forwardDispatchSchema, tooMany: true, summary: 'Send a request for the caller (directly, or queued with a queue name or poll > 0), a Secret Key filled in for $CLIENT_SECRET.', success: ok('The relayed answer, the status object of a queued request, or a dry run.', answer.forwardDispatchAnswer) },
  {
    operationId: 'pollForwardRequest',
    tag: 'forward',
    method: 'get',
    path: `${FWD}/request`,
    auth: 'anyone',
    query: { ...ADDRESS, since: { description: 'A cursor: also answer the stored pieces of a streamed request after this seq (a whole number, 0 or more).', schema: z.int().min(0) } },
    notFound: true,
    summary: "The status of one of the caller's requests, with its result once settled (and, with since, its stored pieces).",
    success: ok('The status object.', answer.forwardStatusAnswer),
  },
  { operationId: 'finalizeForwardRequest', tag: 'forward', method: 'post', path: `${FWD}/request/finalize`, auth: 'anyone', body: forwardFinalizeSchema, summary: "Keep data as a settled streamed request's response and release its pieces.", success: ok('Whether it was finalized, and why not.', answer.finalizeAnswer) },
  { operationId: 'cancelForwardRequest', tag: 'forward', method: 'delete', path: `${FWD}/request`, auth: 'anyone', query: ADDRESS, summary: 'Remove a pending request or end a running one.', success: ok('Whether it was removed, and why not.', answer.removalAnswer) },
  { operationId: 'withdrawForwardRequest', tag: 'forward', method: 'post', path: `${FWD}/request/withdraw`, auth: 'anyone', query: ADDRESS, summary: 'Remove a request only while it still waits in its queue (a client stopped polling it).', success: ok('Whether it was removed, and why not.', answer.removalAnswer) },
  { operationId: 'forwardRequestQueueCount', tag: 'forward', method: 'get', path: `${FWD}/queue`, auth: 'anyone', query: { queue: text('The queue name.') }, summary: "How many of the caller's requests wait or run in a queue.", success: ok('The count.', answer.queueCountAnswer) },
  {
    operationId: 'listProjectForwardRequests',
    tag: 'forward',
    method: 'get',
    path: `${FWD}/requests`,
    auth: 'owner',
    query: {
      url: text('Only requests to this url, as written.'),
      method: { description: 'Only this method.', schema: z.enum(FORWARD_METHODS) },
      caller: text("Only this caller's: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
      queue: text('Only queues starting with this (exactly this with queue_exact).'),
      queue_exact: { description: 'Match queue exactly.', schema: z.boolean() },
      queue_exclude: text('Leave out this queue.'),
      status: { description: 'Only this status.', schema: z.enum(FORWARD_STATUSES) },
      stream: { description: 'Only streamed requests (true) or only the others (false).', schema: z.boolean() },
      from: { description: 'Created at or after, ms since the epoch.', schema: z.int().min(0) },
      to: { description: 'Created at or before, ms since the epoch.', schema: z.int().min(0) },
      compact: { description: 'Short texts instead of bodies.', schema: z.boolean() },
      ...PAGING,
    },
    summary: "Every caller's forwarded requests of the project, newest first.",
    success: ok('A page of requests, each with its caller.', answer.listingOf(answer.ownerForwardItemAnswer)),
  },
  {
    operationId: 'getProjectForwardRequest',
    tag: 'forward',
    method: 'get',
    path: `${FWD}/requests/{id}`,
    auth: 'owner',
    notFound: true,
    summary: "One forwarded request in full, whoever made it (id: 'stamp:entropy' or the full id, URL-encoded); a streamed request's text.",
    success: ok('The request.', answer.ownerForwardRequestAnswer),
  },
  {
    operationId: 'forwardRequestHistory',
    tag: 'forward',
    method: 'get',
    path: `${FWD}/history`,
    auth: 'anyone',
    query: {
      url: text('The url, as written.'),
      method: { description: 'The method.', schema: z.enum(FORWARD_METHODS) },
      queue: text('Only queues starting with this (exactly this with queue_exact).'),
      queue_exact: { description: 'Match queue exactly.', schema: z.boolean() },
      queue_exclude: text('Leave out this queue.'),
      status: { description: 'Only this status.', schema: z.enum(FORWARD_STATUSES) },
      compact: { description: 'Short texts instead of bodies.', schema: z.boolean() },
      ...PAGING,
    },
    summary: "The caller's requests to a url and method, newest first.",
    success: ok('A page of requests.', answer.listingOf(answer.requestHistoryAnswer)),
  },
  {
    operationId: 'secureRequest',
    tag: 'secure',
    method: 'post',
    path: `${P}${SECURE_REQUEST_ROUTE}`,
    auth: 'id-token',
    body: secureRequestSchema,
    summary:
      "secureRequest: POST { user, data, api_key? } to each url (the customer's API), signed with the project's key (Standard Webhooks); a signed-in user only. When the project lists secure_request_destinations, a url outside them refuses the whole call (INVALID_REQUEST) before anything is sent. A single request that fails answers TIMEOUT (504) or REQUEST_FAILED (502).",
    success: ok('The answer of each request.', answer.secureRequestAnswer),
  },
  {
    operationId: 'openRealtimeSocket',
    tag: 'forward',
    method: 'get',
    path: `${P}${REALTIME_ROUTE}`,
    auth: 'anyone-socket',
    upgrade: true,
    query: { [REALTIME_TOKEN_PARAM]: text("A signed-in caller's id token (a browser WebSocket cannot send headers; Authorization works too).") },
    summary:
      "The realtime WebSocket (GET with Upgrade: websocket): join the room of a streamed request's realtime_group with {type:'join',group}, leave with {type:'leave'}, and receive each stored piece as a piece frame.",
    success: { status: 101, description: 'Switching Protocols: the socket. Every frame the server sends is one JSON text of this shape.', schema: answer.realtimeServerFrameAnswer },
  },
  { operationId: 'refuseSignedInGetLong', tag: 'consume', method: 'get', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', auth: 'id-token', summary: 'Refused: signed-in consumption is POST only.', success: ok('Never: the answer is always 400.', answer.receiptAnswer) },
  {
    operationId: 'mcp',
    tag: 'automation',
    method: 'post',
    path: '/mcp',
    auth: 'owner-key',
    body: answer.jsonRpcRequest,
    summary:
      'The MCP server (Streamable HTTP, stateless, JSON answers; send Accept: application/json, text/event-stream): tools over the owner routes of the project the owner key names, and the ticket schema and signature guide as resources. ' +
      'GET and DELETE are 405; a body over 1 MiB is 413; both with a JSON-RPC error body. See docs/automation.md.',
    success: ok('The JSON-RPC answer (202 with no body for notifications only).', answer.jsonRpcAnswer),
  },
];
