import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { Context } from 'hono';
import { renderError, type AppEnv } from '../app';
import { readCapped } from '../bytes/read-capped';
import { projectOfOwnerCredential } from '../http/auth';
import { SvcHttpError } from '../wire/errors';
import { takeRouteFlood } from '../rate-limits/flood';
import { MAX_BODY_BYTES } from '../limits';
import pkg from '../../package.json';
import { ownerApi, type AppFetch, type RouteTable } from './owner-api';
import { registerResources } from './resources';
import { registerTools } from './tools';

/** The largest JSON-RPC request /mcp reads: the cap of every JSON body, a ticket's on PUT included. */
const MCP_MAX_BODY_BYTES = MAX_BODY_BYTES;

const SERVER_INFO = { name: pkg.name, version: pkg.version };

/** A JSON-RPC error answer with no id, as the transport writes its own. */
const jsonRpcError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, headers });

const tooLarge = () =>
  new SvcHttpError('INVALID_PARAMETER', `Payload Too Large: the request body must not exceed ${MCP_MAX_BODY_BYTES} bytes.`, { status: 413 });

/**
 * POST /mcp: the MCP server over Streamable HTTP, stateless (a fresh server and transport per request,
 * JSON answers, no session): authenticated by the owner key before the SDK sees anything, body capped.
 */
export function mcpHandler(appFetch: AppFetch, routes: RouteTable) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
    if (c.req.method !== 'POST') return jsonRpcError(405, 'Method not allowed.', { allow: 'POST' });
    let project;
    try {
      await takeRouteFlood(c.env, 'FLOOD_OWNER', '', c.req.raw.headers);
      project = await projectOfOwnerCredential(c.env, c.req.header('authorization'));
    } catch (err) {
      const refused = renderError(err);
      if (refused.status === 401) refused.headers.set('www-authenticate', 'Bearer');
      return refused;
    }
    let body: Uint8Array;
    try {
      if (Number(c.req.header('content-length') ?? '0') > MCP_MAX_BODY_BYTES) throw tooLarge();
      body = await readCapped(c.req.raw.body, MCP_MAX_BODY_BYTES, tooLarge);
    } catch (err) {
      if (err instanceof SvcHttpError && err.status === 413) return jsonRpcError(413, err.message);
      throw err;
    }
    const request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body });
    const server = new McpServer(SERVER_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    registerTools(server, ownerApi(appFetch, routes, c.env, c.executionCtx, new URL(c.req.url).origin, project.service_id, c.req.raw.headers));
    registerResources(server);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}
