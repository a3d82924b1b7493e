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
import { signatureDiagnosisRoutes } from './routes/ticket-signature-diagnosis';
import { presetMatchRoutes } from './routes/signature-presets-match';
import { recordsRouter } from './routes/records';
import { mailOutboxRouter } from './routes/mail-outbox';
import { subscribersRouter } from './routes/subscribers';
import { mcpHandler } from './mcp/handler';
import { openApiDocument } from './openapi/document';
import { ROUTES } from './openapi/catalogue';
import pkg from '../package.json';

/** The Hono app: every route of the Worker. */
export const app = createRouter();

app.use('*', corsMiddleware);
// A request past the hop limit is refused before anything else; the consume routes check it themselves (their refusals carry stage).
app.use('/v1/*', async (c, next) => {
  refuseLoop(c.req.raw.headers);
  await next();
});

app.get('/v1/health', (c) => c.json({ ok: true }));
let openApi: Record<string, unknown> | undefined;
app.get('/openapi.json', (c) => c.json((openApi ??= openApiDocument(ROUTES, pkg.version))));
app.route('/', projectsRouter);
app.route('/', ownerResourcesRouter);
app.route('/', ticketRoutes);
app.route('/', ticketDryRunRoutes);
app.route('/', ticketFloodRoutes);
app.route('/', ticketJobRoutes);
app.route('/', ticketReplayRoutes);
app.route('/', signatureDiagnosisRoutes);
app.route('/', presetMatchRoutes);
app.route('/', consumedRoutes);
app.route('/', consumeRoutes);
app.route('/', forwardRoutes);
app.route('/', forwardOwnerRoutes);
app.route('/', realtimeRoutes);
app.route('/', secureRoutes);
app.route('/', recordsRouter);
app.route('/', mailOutboxRouter);
app.route('/', subscribersRouter);
// The MCP server (src/mcp/): its tools call the owner routes above through app.fetch, in-process.
const mcp = mcpHandler((request, env, ctx) => app.fetch(request, env, ctx));
app.post('/mcp', mcp);
app.all('/mcp', mcp);

app.notFound(() => renderError(new SvcHttpError('NOT_FOUND', 'No such route.', { status: 404 })));
app.onError((err) => renderError(err));
