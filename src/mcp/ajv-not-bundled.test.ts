import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { describe, expect, it } from 'vitest';

// wrangler.toml's [alias] replaces ajv and ajv-formats, in the deployed bundle and (vitest.config.ts) under test.
describe('the MCP server validates with the Workers validator; ajv is not bundled', () => {
  it('a server built without a validator fails at once, naming the fix', () => {
    expect(() => new McpServer({ name: 'x', version: '1' })).toThrow(/ajv is not in this bundle/);
  });

  it('a server given the Workers validator is built', () => {
    expect(new McpServer({ name: 'x', version: '1' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })).toBeInstanceOf(McpServer);
  });
});
