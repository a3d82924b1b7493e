import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exports } from 'cloudflare:workers';
import { afterAll, beforeAll } from 'vitest';
import { BASE, createProject, type TestProject } from '../helpers/api';

export const MCP_URL = `${BASE}/mcp`;

/** The Worker's own fetch, as the SDK's transport calls it. */
const workerFetch = (input: string | URL | Request, init?: RequestInit) => exports.default.fetch(new Request(input, init));

/** The SDK's own client, connected to /mcp of the Worker under test with `token` as its Bearer credential. */
export async function connectClient(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch, requestInit: { headers: { authorization: `Bearer ${token}` } } });
  // Ajv (the default) compiles schemas with new Function, which workerd forbids.
  const client = new Client({ name: 'svc-tests', version: '1' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its result. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content item. */
export const textOf = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
};

/** A raw JSON-RPC POST to /mcp, with the headers a Streamable HTTP client sends. */
export async function postMcp(body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: any; headers: Headers }> {
  const res = await exports.default.fetch(MCP_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

export const listToolsMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** For one describe block: a fresh project and the SDK client connected as its owner (closed after the block). */
export function ownerSession(): { readonly project: TestProject; readonly client: Client } {
  const session = {} as { project: TestProject; client: Client };
  beforeAll(async () => {
    session.project = await createProject();
    session.client = await connectClient(session.project.owner_key);
  });
  afterAll(async () => {
    await session.client?.close();
  });
  return session;
}
