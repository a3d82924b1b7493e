import { validateTicketRegistration } from '../../schemas/ticket';
import { ticketCheckSchema, type TicketCheckSample } from '../../schemas/ticket-check';
import { createRouter } from '../app';
import { consumingProject } from '../consume/project-cache';
import type { ConsumeInput, ConsumeOutcome } from '../consume/types';
import { fieldRefusal, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { directoryEntry } from '../platform/ticket-directory';
import { loadUser } from '../platform/users';
import { readJsonBody } from '../platform/validation';
import type { Env } from '../env';
import { registrationLookups } from './ticket-lookups';
import { ticketIdOf, ticketNotFound } from './ticket-params';
import { checkVerdict, definitionOf, ownerView } from './ticket-views';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';
import { ticketRegistrationSchema } from '../../schemas/ticket';

const owner = guard('owner', 'Only the project owner can read or test tickets.');

/** The owner's read of one ticket, and the two dry runs: a registration's plan, and a sample request's check. */
export const ticketDryRunRoutes = createRouter();

const getTicketRoute = route({
  operationId: 'getTicket',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  summary: 'One ticket as the owner lists it, with the count as registered.',
  success: ok('The ticket.', answer.oneTicketAnswer),
});

ticketDryRunRoutes.get(`${PROJECT_PATH}/tickets/:ticket_id`, ...getTicketRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const stored = await directoryEntry(c.env, project.service_id, ticketId);
  if (!stored) throw ticketNotFound();
  const { remaining } = await ticketStub(c.env, project.service_id, ticketId).status();
  return c.json({ ...ownerView(stored, remaining), registered_count: stored.count ?? null });
});

const planTicketRoute = route({
  operationId: 'planTicket',
  tag: 'tickets',
  guard: owner,
  body: ticketRegistrationSchema,
  summary: 'What registering this body would change (create, update or none), judged by the registry; nothing is stored.',
  success: ok('The current and proposed definitions.', answer.ticketPlanAnswer),
});

/**
 * What registering this body would change, judged by the registry's own validation; nothing is stored.
 * A refusal is the 400 the registration would answer.
 */
ticketDryRunRoutes.post(`${PROJECT_PATH}/tickets/:ticket_id/plan`, ...planTicketRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = c.req.param('ticket_id') ?? '';
  const body = await readJsonBody(c);
  const registration = await validateTicketRegistration(ticketId, body, registrationLookups(c.env, project.service_id), Date.now());
  if (!registration.ok) throw fieldRefusal(registration.issue);
  const stored = await directoryEntry(c.env, project.service_id, ticketId);
  const current = stored ? definitionOf(stored, stored.count) : null;
  const { ticket, count } = registration.value;
  const proposed = definitionOf(ticket, count === undefined ? (current?.count ?? null) : count);
  const change = !current ? 'create' : JSON.stringify(current) === JSON.stringify(proposed) ? 'none' : 'update';
  return c.json({ ticket_id: ticketId, change, current, proposed });
});

const checkTicketSampleRoute = route({
  operationId: 'checkTicketSample',
  tag: 'tickets',
  guard: owner,
  body: ticketCheckSchema,
  bodyOptional: true,
  notFound: true,
  summary: "The owner's dry run: the whole condition judged against a sample request (method, headers, body, query, user); no action runs, no count is used.",
  success: ok('Whether the condition passed, and why not.', answer.ticketCheckAnswer),
});

/** The owner's dry run: the whole condition judged against a sample request; no action runs, no count is used. */
ticketDryRunRoutes.post(`${PROJECT_PATH}/tickets/:ticket_id/check`, ...checkTicketSampleRoute.middleware, async (c) => {
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const sample = await readBody(c, checkTicketSampleRoute);
  const project = await consumingProject(c.env, c.get('project').service_id);
  const input = await sampleConsumption(c.env, project, ticketId, sample, new URL(c.req.url).origin);
  // Typed here: the RPC stub's inferred result type does not survive `unknown` members.
  const outcome = (await ticketStub(c.env, project.service_id, ticketId).consume(input)) as ConsumeOutcome;
  return c.json(checkVerdict(ticketId, outcome));
});

/** `origin`: the sample is taken as sent to the ticket's /tp (or /tg) route at this host (a signature's ${url}; public_url replaces it). */
async function sampleConsumption(
  env: Env,
  project: ConsumeInput['project'],
  ticketId: string,
  sample: TicketCheckSample,
  origin: string,
): Promise<ConsumeInput> {
  const method = sample.method ?? 'POST';
  if (method === 'GET' && sample.body !== undefined) throw invalidParameter('Invalid "body": a GET request has no body.', { field: 'body' });
  const headers = Object.fromEntries(Object.entries(sample.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  if ('x-svc-ticket' in headers) {
    throw invalidParameter('Invalid "headers.x-svc-ticket": a request carrying an X-Svc-Ticket header cannot consume a ticket.', {
      field: 'headers.x-svc-ticket',
    });
  }
  const user = sample.user_id === undefined ? undefined : await loadUser(env, project.service_id, sample.user_id);
  if (sample.user_id !== undefined && !user) throw invalidParameter('Invalid "user_id": no such user in this project.', { field: 'user_id' });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(sample.query ?? {})) for (const one of [value].flat()) query.append(name, one);
  const search = query.size > 0 ? `?${query}` : '';
  const bodyText = sample.body === undefined ? '' : typeof sample.body === 'string' ? sample.body : JSON.stringify(sample.body);
  return {
    mode: 'check',
    project: { service_id: project.service_id, owner_id: project.owner_id, receipt_key: project.receipt_key, plan: project.plan },
    ticket_id: ticketId,
    request: { method, headers, ip: sample.ip ?? '127.0.0.1', user_agent: headers['user-agent'] ?? '', ...(user ? { user } : {}) },
    rawBody: new TextEncoder().encode(bodyText),
    search,
    url: `${origin}/${method === 'GET' ? 'tg' : 'tp'}/${encodeURIComponent(project.service_id)}/${encodeURIComponent(ticketId)}${search}`,
    signedRoute: user !== undefined,
    longForm: false,
    issuer: user?.user_id === project.owner_id,
  };
}
