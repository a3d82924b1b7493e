import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ticketRegistrationSchema } from '../../schemas/ticket';
// A Text module (wrangler.toml [[rules]]; its type is in worker-configuration.d.ts): bundled by wrangler, loaded the same way by the vitest pool.
import signaturesDoc from '../../docs/signatures.md';

export const TICKET_SCHEMA_URI = 'svc://schemas/ticket.json';
export const SIGNATURES_DOC_URI = 'svc://docs/signatures.md';

let ticketSchemaText: string | undefined;

/**
 * The registration body as JSON Schema (draft 2020-12), from the zod schema the registry validates
 * with. Every part converts today (a test holds it to unrepresentable: 'throw'); 'any' keeps a future
 * refinement from breaking the resource: such a part reads as "any value" here, the registry still checks it.
 */
export function ticketJsonSchema(): string {
  ticketSchemaText ??= JSON.stringify(z.toJSONSchema(ticketRegistrationSchema, { io: 'input', unrepresentable: 'any' }), null, 2);
  return ticketSchemaText;
}

/** The resources: the ticket registration schema and the signature guide. */
export function registerResources(server: McpServer): void {
  server.registerResource(
    'ticket-schema',
    TICKET_SCHEMA_URI,
    {
      title: 'Ticket registration JSON Schema',
      description: 'The JSON Schema of the register_ticket `ticket` argument (the body of PUT /v1/projects/{service_id}/tickets/{ticket_id}).',
      mimeType: 'application/schema+json',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/schema+json', text: ticketJsonSchema() }] }),
  );
  server.registerResource(
    'signatures-guide',
    SIGNATURES_DOC_URI,
    {
      title: 'Webhook signatures guide',
      description: "How a ticket condition's signature part is read, with a verified config per provider (docs/signatures.md).",
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: signaturesDoc }] }),
  );
}
