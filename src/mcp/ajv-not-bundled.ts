/**
 * The MCP SDK's server builds an Ajv validator unless it is given one, so its module imports ajv and
 * ajv-formats (about 270 KB with their dependencies). Ours is given one (CfWorkerJsonSchemaValidator,
 * handler.ts), so wrangler.toml (`[alias]`) points both packages here: a server built without a validator fails
 * at once, instead of the bundle carrying a validator that never runs.
 */
export default class AjvNotBundled {
  constructor() {
    throw new Error('ajv is not in this bundle: give the MCP server a jsonSchemaValidator (src/mcp/handler.ts)');
  }
}
