import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// The MCP server at /mcp of the real Worker (`wrangler dev`), driven by the SDK's own client over HTTP.
let worker: ProjectOnWorker;
let client: Client;

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;

/** Polls until `check` holds (the log reaches D1 through the ticket's outbox), or fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  worker = await createTestProject();
  client = new Client({ name: 'svc-client-tests', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${worker.project.owner_key}` } },
  });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

describe('the MCP server over HTTP under wrangler dev', () => {
  it('lists the tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['register_ticket', 'check_ticket', 'read_log', 'list_signature_presets']));
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
  });

  it('registers a good ticket and refuses a bad one naming the field path', async () => {
    const good = await call('register_ticket', {
      ticket_id: 'orders',
      ticket: { description: 'orders', count: 5, condition: { body: [{ key: 'kind', operator: '=', value: 'order' }] }, actions: [] },
    });
    expect(good.isError).toBeFalsy();
    expect(structured(good)).toMatchObject({ ticket_id: 'orders', count: 5 });
    const bad = await call('register_ticket', { ticket_id: 'broken', ticket: { actions: [{ act: 'nope', exe: {} }] } });
    expect(bad.isError).toBe(true);
    expect(structured(bad)).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('actions[0]') });
  });

  it('dry-runs the ticket: a passing and a failing sample request', async () => {
    expect(structured(await call('check_ticket', { ticket_id: 'orders', body: { kind: 'order' } }))).toMatchObject({ passed: true });
    expect(structured(await call('check_ticket', { ticket_id: 'orders', body: { kind: 'refund' } }))).toMatchObject({
      passed: false,
      error: { code: 'CONDITION_FAILED' },
    });
  });

  it('reads the log of a consumption made for real over HTTP', async () => {
    const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'order' }),
    });
    expect(consumed.status).toBe(200);
    const { tkid } = (await consumed.json()) as { tkid: string };
    let rows: any[] = [];
    await eventually(async () => {
      rows = structured(await call('read_log', { ticket_id: 'orders' })).list.filter((row: any) => !row.is_test);
      return rows.length > 0;
    });
    expect(tkid).toContain(rows[0].consume_id);
    expect(structured(await call('get_ticket', { ticket_id: 'orders' }))).toMatchObject({ count: 4, registered_count: 5 });
  });

  it('serves the signatures guide bundled by wrangler as a text resource', async () => {
    const guide = await client.readResource({ uri: 'svc://docs/signatures.md' });
    expect('text' in guide.contents[0] && guide.contents[0].text).toMatch(/^# Webhook signatures/);
  });

  it('refuses a request without the owner key with 401 before the MCP server reads it', async () => {
    const res = await fetch(`${worker.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
