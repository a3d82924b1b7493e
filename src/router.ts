import { createRouter, renderError } from './app';
import { corsMiddleware } from './http/cors';
import { SvcHttpError } from './wire/errors';
import { refuseLoop } from './http/loops';
import { ownerResourcesRouter } from './routes/owner-resources';
import { projectsRouter } from './routes/projects';
import { consumeRoutes } from './routes/consume';
import { consumedRoutes } from './routes/consumed';
import { forwardRoutes } from './routes/forward';
import { forwardOwnerRoutes } from './routes/forward-owner';
import { realtimeRoutes } from './routes/realtime';
import { secureRoutes } from './routes/secure';
import { ticketRoutes } from './routes/tickets';
import { ticketDryRunRoutes } from './routes/ticket-dry-runs';
import { ticketFloodRoutes } from './routes/ticket-flood';
import { ticketJobRoutes } from './routes/ticket-jobs';
import { ticketReplayRoutes } from './routes/ticket-replays';
import { ticketDeadLetterRoutes } from './routes/ticket-dead-letters';
import { ticketEventRoutes } from './routes/ticket-events';
import { forwardEventRoutes } from './routes/forward-events';
import { ticketBulkReplayRoutes } from './routes/ticket-bulk-replays';
import { metricsRoutes } from './routes/metrics';
import { signatureDiagnosisRoutes } from './routes/ticket-signature-diagnosis';
import { presetMatchRoutes } from './routes/signature-presets-match';
import { recordsRouter } from './routes/records';
import { mailOutboxRouter } from './routes/mail-outbox';
import { subscribersRouter } from './routes/subscribers';
import { alertRoutes } from './routes/alerts';
import { mcpHandler } from './mcp/handler';
import { openApiDocument } from './openapi/document';
import pkg from '../package.json';
import * as answer from '../schemas/answers';
import { ok } from './openapi/route-parts';
import { route, servedRoute } from './openapi/route';

/** The Hono app: every route of the Worker. */
export const app = createRouter();

app.use('*', corsMiddleware);
// A request past the hop limit is refused before anything else; the consume routes check it themselves (their refusals carry stage).
app.use('/v1/*', async (c, next) => {
  refuseLoop(c.req.raw.headers);
  await next();
});

const getHealthRoute = route({
  operationId: 'getHealth',
  tag: 'platform',
  auth: 'none',
  noRefusals: true,
  summary: 'Liveness check.',
  success: ok('Alive.', answer.healthAnswer),
});

app.get('/v1/health', ...getHealthRoute.middleware, (c) => c.json({ ok: true }));
let openApi: Promise<Record<string, unknown>> | undefined;

const getOpenApiRoute = route({
  operationId: 'getOpenApi',
  tag: 'platform',
  auth: 'none',
  noRefusals: true,
  summary: 'This document.',
  success: ok('This document.', answer.openApiAnswer),
});

app.get('/openapi.json', ...getOpenApiRoute.middleware, async (c) => c.json(await (openApi ??= openApiDocument(app, pkg.version))));
app.route('/', projectsRouter);
app.route('/', ownerResourcesRouter);
app.route('/', ticketRoutes);
app.route('/', ticketDryRunRoutes);
app.route('/', ticketFloodRoutes);
app.route('/', ticketJobRoutes);
app.route('/', ticketReplayRoutes);
app.route('/', ticketDeadLetterRoutes);
app.route('/', ticketEventRoutes);
app.route('/', ticketBulkReplayRoutes);
app.route('/', metricsRoutes);
app.route('/', signatureDiagnosisRoutes);
app.route('/', presetMatchRoutes);
app.route('/', consumedRoutes);
app.route('/', consumeRoutes);
app.route('/', forwardRoutes);
app.route('/', forwardOwnerRoutes);
app.route('/', forwardEventRoutes);
app.route('/', realtimeRoutes);
app.route('/', secureRoutes);
app.route('/', recordsRouter);
app.route('/', mailOutboxRouter);
app.route('/', subscribersRouter);
app.route('/', alertRoutes);
// The MCP server (src/mcp/): its tools call the owner routes above through app.fetch, in-process.
// Each tool calls its route by operationId: the method and path come from the route's declaration.
const mcp = mcpHandler(
  (request, env, ctx) => app.fetch(request, env, ctx),
  (operationId) => servedRoute(app, operationId),
);

const mcpRoute = route({
  operationId: 'mcp',
  tag: 'automation',
  auth: 'owner-key',
  body: answer.jsonRpcRequest,
  summary:
    'The MCP server (Streamable HTTP, stateless, JSON answers; send Accept: application/json, text/event-stream): tools over the owner routes of the project the owner key names, and the ticket schema and signature guide as resources. ' +
    'GET and DELETE are 405; a body over 1 MiB is 413; both with a JSON-RPC error body. See docs/automation.md.',
  success: ok('The JSON-RPC answer (202 with no body for notifications only).', answer.jsonRpcAnswer),
});

app.post('/mcp', ...mcpRoute.middleware, mcp);
app.all('/mcp', mcp);

app.notFound(() => renderError(new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 })));
app.onError((err) => renderError(err));
