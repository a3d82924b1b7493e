import type { Context } from 'hono';
import { createRouter, type AppEnv } from '../app';
import { consumingProject, type ConsumingProject } from '../consume/project-cache';
import { headerObject, readBodyBytes } from '../consume/read-request';
import type { ConsumeInput, ConsumeOutcome } from '../consume/types';
import { missingTicket } from '../consume/consume-ticket';
import { markNow, ticketMayExist } from '../consume/ticket-ids';
import { internalErrorBody, SvcHttpError } from '../wire/errors';
import { verifyIdToken } from '../http/auth';
import { floodKey, takeTicketFlood } from '../rate-limits/flood';
import { countRefusal } from '../rate-limits/refusal-counts';
import { refuseLoop } from '../http/loops';
import { OWNER_KEY_PREFIX, verifyOwnerKey } from '../platform/projects';
import type { ProjectUser } from '../platform/types';
import type { Env } from '../env';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { anyJson, ok, receipt } from '../openapi/route-parts';
import { route } from '../openapi/route';

interface RouteKind {
  mode: ConsumeInput['mode'];
  signed: boolean;
}

const TICKET_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ticketError = (code: 'TICKET_NOT_FOUND' | 'INVALID_REQUEST' | 'INVALID_PARAMETER', message: string) =>
  new SvcHttpError(code, message, { stage: 'ticket' });

/** The consume routes of spec 4.1. */
export const consumeRoutes = createRouter();

const anonymous: RouteKind = { mode: 'consume', signed: false };
const signedIn: RouteKind = { mode: 'consume', signed: true };
const dryRun: RouteKind = { mode: 'check', signed: false };

const consumeTicketRoute = route({
  operationId: 'consumeTicket',
  tag: 'consume',
  auth: 'none',
  body: anyJson,
  summary: 'Consume a ticket: JSON body (or raw text); the query string is read too. Answers { tkid, hash } or a resp body.',
  success: receipt,
});

const consumeTicketByQueryRoute = route({
  operationId: 'consumeTicketByQuery',
  tag: 'consume',
  auth: 'none',
  summary: 'Consume a ticket with the query string as data.',
  success: receipt,
});

const consumeTicketSignedInRoute = route({
  operationId: 'consumeTicketSignedIn',
  tag: 'consume',
  auth: 'id-token',
  body: anyJson,
  summary: 'Consume as the signed-in user (POST only).',
  success: receipt,
});

const refuseSignedInGetRoute = route({
  operationId: 'refuseSignedInGet',
  tag: 'consume',
  auth: 'id-token',
  summary: 'Refused: signed-in consumption is POST only (INVALID_PARAMETER).',
  success: ok('Never: the answer is always 400.', answer.receiptAnswer),
});

const checkTicketRoute = route({
  operationId: 'checkTicket',
  tag: 'consume',
  auth: 'none',
  summary: 'Dry run: evaluates the whole condition, runs no action, uses no count.',
  success: receipt,
});

const checkTicketWithBodyRoute = route({
  operationId: 'checkTicketWithBody',
  tag: 'consume',
  auth: 'none',
  body: anyJson,
  summary: 'Dry run with a body.',
  success: receipt,
});

const consumeTicketByQueryLongRoute = route({
  operationId: 'consumeTicketByQueryLong',
  tag: 'consume',
  auth: 'none',
  summary: 'Older long form of /tg.',
  success: receipt,
});

const consumeTicketLongRoute = route({
  operationId: 'consumeTicketLong',
  tag: 'consume',
  auth: 'none',
  body: anyJson,
  summary: 'Older long form of /tp.',
  success: receipt,
});

const consumeTicketSignedInLongRoute = route({
  operationId: 'consumeTicketSignedInLong',
  tag: 'consume',
  auth: 'id-token',
  body: anyJson,
  summary: 'Older long form of /tpa.',
  success: receipt,
});

const refuseSignedInGetLongRoute = route({
  operationId: 'refuseSignedInGetLong',
  tag: 'consume',
  auth: 'id-token',
  summary: 'Refused: signed-in consumption is POST only.',
  success: ok('Never: the answer is always 400.', answer.receiptAnswer),
});

// GET and POST of one path are registered apart: each is an operation of its own in the document.
consumeRoutes.post('/tp/:service_id/:ticket_id', ...consumeTicketRoute.middleware, (c) => consume(c, anonymous));
consumeRoutes.get('/tg/:service_id/:ticket_id', ...consumeTicketByQueryRoute.middleware, (c) => consume(c, anonymous));
consumeRoutes.post('/tpa/:service_id/:ticket_id', ...consumeTicketSignedInRoute.middleware, (c) => consume(c, signedIn));
consumeRoutes.get('/tpa/:service_id/:ticket_id', ...refuseSignedInGetRoute.middleware, (c) => consume(c, signedIn));
consumeRoutes.get('/publ/check/:service_id/:owner_id/:ticket_id', ...checkTicketRoute.middleware, (c) => consume(c, dryRun));
consumeRoutes.post('/publ/check/:service_id/:owner_id/:ticket_id', ...checkTicketWithBodyRoute.middleware, (c) => consume(c, dryRun));
consumeRoutes.get('/publ/consume/:service_id/:owner_id/:ticket_id', ...consumeTicketByQueryLongRoute.middleware, (c) => consume(c, anonymous));
consumeRoutes.post('/publ/consume/:service_id/:owner_id/:ticket_id', ...consumeTicketLongRoute.middleware, (c) => consume(c, anonymous));
consumeRoutes.post('/auth/consume/:service_id/:owner_id/:ticket_id', ...consumeTicketSignedInLongRoute.middleware, (c) => consume(c, signedIn));
consumeRoutes.get('/auth/consume/:service_id/:owner_id/:ticket_id', ...refuseSignedInGetLongRoute.middleware, (c) => consume(c, signedIn));

/** Every answer of a consume route that is an error carries stage, unexpected errors included. */
async function consume(c: Context<AppEnv>, kind: RouteKind): Promise<Response> {
  try {
    return await consumeOnce(c, kind);
  } catch (err) {
    if (err instanceof SvcHttpError) {
      if (err.stage) throw err;
      return Response.json({ ...err.toBody(), stage: 'ticket' }, { status: err.status });
    }
    console.error('consumption crashed', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return Response.json(internalErrorBody('ticket'), { status: 500 });
  }
}

async function consumeOnce(c: Context<AppEnv>, kind: RouteKind): Promise<Response> {
  const serviceId = c.req.param('service_id') ?? '';
  const ticketId = c.req.param('ticket_id') ?? '';
  const ownerId = c.req.param('owner_id');
  // A miss in the project's ticket ids waits for a directory read that starts after this.
  const arrived = markNow();
  refuseLoop(c.req.raw.headers, 'ticket');
  // The project read is cached (5 s per isolate) and holds the owner's limits; nothing else is read or written before they are counted.
  const project = await consumingProject(c.env, serviceId);
  try {
    await takeTicketFlood(c.env, project.flood, project.service_id, ticketId, c.req.raw.headers);
  } catch (err) {
    if (err instanceof SvcHttpError && err.code === 'TOO_MANY_REQUESTS' && TICKET_ID.test(ticketId)) {
      const due = countRefusal(floodKey(project.service_id, ticketId), Date.now());
      if (due)
        c.executionCtx.waitUntil(
          keepRefusals(c.env, project.service_id, ticketId, arrived, due).catch((e) => console.error('refusal counts not kept', String(e))),
        );
    }
    throw err;
  }
  if (c.req.header('x-svc-ticket') !== undefined) {
    throw ticketError('INVALID_REQUEST', 'A request carrying an X-Svc-Ticket header cannot consume a ticket.');
  }
  if (!TICKET_ID.test(ticketId) || (ownerId !== undefined && ownerId !== project.owner_id)) {
    throw ticketError('TICKET_NOT_FOUND', 'The ticket does not exist.');
  }
  const method = c.req.method === 'GET' ? 'GET' : 'POST';
  if (kind.signed && method === 'GET') throw ticketError('INVALID_PARAMETER', 'Signed-in consumption is POST only.');

  const rawBody = method === 'POST' ? await readBodyBytes(c.req.raw) : new Uint8Array(0);
  const url = new URL(c.req.url);
  const headers = headerObject(c.req.raw.headers);
  const caller: ConsumeInput['request'] = { method, headers, ip: headers['cf-connecting-ip'] ?? '0.0.0.0', user_agent: headers['user-agent'] ?? '' };
  // Answered as the object would answer it, without making one (docs/decisions.md, "Ids that do not exist cost no store read").
  if (!(await ticketMayExist(c.env, project.service_id, ticketId, arrived))) {
    return render(missingTicket({ ticket_id: ticketId, request: caller, rawBody, search: url.search }));
  }
  const identity = kind.signed ? await identify(c, project) : { issuer: false };
  const request: ConsumeInput['request'] = { ...caller, ...(identity.user ? { user: identity.user } : {}) };
  const outcome = await ticketStub(c.env, project.service_id, ticketId).consume({
    mode: kind.mode,
    project: { service_id: project.service_id, owner_id: project.owner_id, receipt_key: project.receipt_key, plan: project.plan },
    ticket_id: ticketId,
    request,
    rawBody,
    search: url.search,
    url: c.req.url,
    signedRoute: kind.signed,
    longForm: ownerId !== undefined,
    authError: identity.authError,
    issuer: identity.issuer,
  });
  return render(outcome);
}

/** Hands refusal counts to the ticket's object, unless the ticket does not exist (no object is made for a made-up id). */
async function keepRefusals(env: Env, serviceId: string, ticketId: string, arrived: number, due: [number, number][]): Promise<void> {
  if (await ticketMayExist(env, serviceId, ticketId, arrived)) await ticketStub(env, serviceId, ticketId).addLimited(due);
}

/** The caller of a signed-in route: a verified user, the issuer (owner), or why the token failed. */
async function identify(c: Context<AppEnv>, project: ConsumingProject): Promise<{ user?: ProjectUser; issuer: boolean; authError?: string }> {
  const header = c.req.header('authorization')?.trim();
  if (!header) return { issuer: false, authError: 'Sign in to consume this ticket: send an id token in the Authorization header.' };
  const token = header.replace(/^Bearer\s+/i, '');
  if (token.startsWith(OWNER_KEY_PREFIX)) {
    const owner = await verifyOwnerKey(c.env, project.service_id, token);
    return owner ? { issuer: true } : { issuer: false, authError: 'The credential is not valid for this project.' };
  }
  try {
    const user = await verifyIdToken(c.env, project, token);
    return { user, issuer: user.user_id === project.owner_id };
  } catch (err) {
    if (err instanceof SvcHttpError) return { issuer: false, authError: err.message };
    throw err;
  }
}

/** Statuses whose answer cannot carry a body. */
const NO_BODY = new Set([204, 205, 304]);

/** A legacy ticket's failure as the previous rules answered it (spec 7): '<CODE>: <message>', or the bare 500 text. */
function legacyText(outcome: Extract<ConsumeOutcome, { ok: false }>): string {
  return outcome.status === 500 ? 'Internal server error' : `${outcome.error.code}: ${outcome.error.message}`;
}

function render(outcome: ConsumeOutcome): Response {
  if (!outcome.ok && outcome.legacy) {
    return new Response(legacyText(outcome), { status: outcome.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
  if (!outcome.ok) {
    return Response.json(outcome.error, { status: outcome.status, ...(outcome.retryAfter ? { headers: { 'retry-after': String(outcome.retryAfter) } } : {}) });
  }
  if (NO_BODY.has(outcome.status)) return new Response(null, { status: outcome.status });
  if (outcome.text) return new Response(String(outcome.body), { status: outcome.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  return Response.json(outcome.body, { status: outcome.status });
}
