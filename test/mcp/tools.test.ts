import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createProject, type TestProject } from '../helpers/api';
import { callTool, connectClient, textOf } from './mcp-helpers';

describe('the MCP server at /mcp, driven by the SDK client', () => {
  let project: TestProject;
  let client: Client;
  beforeAll(async () => {
    project = await createProject();
    client = await connectClient(project.owner_key);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists every tool, each with an object input schema and a description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['check_ticket', 'clear_log', 'delete_ticket', 'get_ticket', 'list_secret_keys', 'list_signature_presets', 'list_tickets', 'read_consumption', 'read_log', 'register_ticket'].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
    }
  });

  it('register_ticket stores a good ticket', async () => {
    const result = await callTool(client, 'register_ticket', { ticket_id: 'good', ticket: { description: 'open', count: 3, actions: [] } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticket_id: 'good', description: 'open', count: 3 });
  });
});
