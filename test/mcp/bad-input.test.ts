import { describe, expect, it } from 'vitest';
import { exports } from 'cloudflare:workers';
import { OPERATOR_TOKEN, call, createProject, mintUser } from '../helpers/api';
import { MCP_URL, callTool, connectClient, listToolsMessage, ownerSession, postMcp, textOf } from './mcp-helpers';

/** An answer never shows a stack trace or a source file. */
const noStack = (text: string) => {
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+/);
};

describe('bad input to /mcp', () => {
  const session = ownerSession();

  describe('credentials are refused before the MCP server sees the request', () => {
    const cases: [string, () => Promise<Record<string, string>>, string][] = [
      ['no Authorization header', async () => ({}), 'The project owner key is required (Authorization: Bearer <owner key>).'],
      ['an empty Bearer credential', async () => ({ authorization: 'Bearer ' }), 'The project owner key is required (Authorization: Bearer <owner key>).'],
      ['an owner key no project has', async () => ({ authorization: `Bearer ok_${'0'.repeat(43)}` }), 'Invalid owner key.'],
      [
        "a project user's id token",
        async () => ({ authorization: `Bearer ${(await mintUser(session.project, { email: 'agent@example.com' })).id_token}` }),
        'Only a project owner key is accepted here (an id token is not).',
      ],
      ['the operator token', async () => ({ authorization: `Bearer ${OPERATOR_TOKEN}` }), 'Only a project owner key is accepted here (an id token is not).'],
    ];
    for (const [input, headers, message] of cases) {
      it(`${input} is 401 UNAUTHORIZED with WWW-Authenticate: Bearer`, async () => {
        const sent = await headers();
        const res = await postMcp(listToolsMessage, sent);
        expect(res.status).toBe(401);
        const credential = sent.authorization?.replace(/^Bearer /, '');
        if (credential) expect(res.text, 'the credential is never echoed').not.toContain(credential);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(res.json).toEqual({ code: 'UNAUTHORIZED', message });
      });
    }

    it('the SDK client with a wrong key fails to connect with the 401', async () => {
      await expect(connectClient(`ok_${'1'.repeat(43)}`)).rejects.toThrow(/401|Unauthorized/i);
    });

    it("an inactive project's owner key is 400 SERVICE_DISABLED", async () => {
      const inactive = await createProject();
      expect((await call('PATCH', `/v1/projects/${inactive.service_id}`, { token: OPERATOR_TOKEN, body: { active: false } })).status).toBe(200);
      const res = await postMcp(listToolsMessage, { authorization: `Bearer ${inactive.owner_key}` });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ code: 'SERVICE_DISABLED', message: 'The project is not active.' });
    });
  });

  it('arguments of the wrong type are an input validation error naming the argument', async () => {
    const result = await callTool(session.client, 'register_ticket', { ticket_id: 7, ticket: 'not an object' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Input validation error: Invalid arguments for tool register_ticket/);
    expect(textOf(result)).toContain('ticket_id');
    expect(textOf(result)).toContain('ticket');
    const limit = await callTool(session.client, 'list_tickets', { limit: 'ten' });
    expect(limit.isError).toBe(true);
    expect(textOf(limit)).toContain('limit');
  });

  it('an unknown tool name is an error result naming the tool', async () => {
    const result = await callTool(session.client, 'drop_database');
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toContain('Tool drop_database not found');
  });

  it('a 5 MB ticket is 413 with a JSON-RPC error, before anything is parsed or stored', async () => {
    const big = { actions: [], description: 'x'.repeat(5 * 1024 * 1024) };
    const message = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'register_ticket', arguments: { ticket_id: 'huge', ticket: big } },
    });
    const res = await postMcp(message, { authorization: `Bearer ${session.project.owner_key}` });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Payload Too Large: the request body must not exceed 1048576 bytes.' },
      id: null,
    });
    await expect(callTool(session.client, 'register_ticket', { ticket_id: 'huge', ticket: big })).rejects.toThrow(/413|Payload Too Large/);
    expect((await callTool(session.client, 'get_ticket', { ticket_id: 'huge' })).isError).toBe(true);
  });

  it('a 5 MB body sent without Content-Length (streamed) is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await exports.default.fetch(MCP_URL, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.project.owner_key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    expect(res.status).toBe(413);
    expect((await res.json<any>()).error.code).toBe(-32000);
  });

  it('a body that is not JSON is a JSON-RPC parse error (400), never a stack', async () => {
    const res = await postMcp('{"jsonrpc": "2.0", "method": ', { authorization: `Bearer ${session.project.owner_key}` });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null });
    noStack(res.text);
  });

  it('JSON that is not a JSON-RPC message is a parse error (400)', async () => {
    const res = await postMcp(JSON.stringify({ hello: 'world' }), { authorization: `Bearer ${session.project.owner_key}` });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32700);
    noStack(res.text);
  });

  it('GET and DELETE are 405 (a stateless server has no stream and no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await exports.default.fetch(MCP_URL, {
        method,
        headers: { authorization: `Bearer ${session.project.owner_key}`, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
  });

  it('a POST without the Streamable HTTP Accept header is 406 from the transport', async () => {
    const res = await postMcp(listToolsMessage, { authorization: `Bearer ${session.project.owner_key}`, accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(res.json.error.message).toContain('Not Acceptable');
  });
});
