import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { ticketRegistrationSchema } from '../../schemas/ticket';
import signaturesDoc from '../../docs/signatures.md?raw';
import { registerTicket } from '../helpers/api';
import { ownerSession } from './mcp-helpers';

const REAL_TICKET = {
  description: 'Stripe payments',
  count: null,
  limit_per_user: false,
  time_to_live: null,
  condition: {
    method: 'POST',
    body: [
      { key: 'type', operator: '=', value: 'payment_intent.succeeded' },
      { key: 'data[object][id]', placeholder: 'PI' },
    ],
  },
  actions: [{ act: 'pstr', exe: { table: { name: 'payments', access_group: 'admin' }, unique_id: '${placeholder[PI]}', data: '${body[data][object]}' } }],
};

const textOfResource = (result: Awaited<ReturnType<Client['readResource']>>): string => {
  const first = result.contents[0];
  return 'text' in first ? first.text : '';
};

describe('the MCP resources', () => {
  const session = ownerSession();

  it('lists the ticket schema and the signatures guide', async () => {
    const { resources } = await session.client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['svc://schemas/ticket.json', 'application/schema+json'],
      ['svc://docs/signatures.md', 'text/markdown'],
    ]);
  });

  it('the ticket schema converts whole (nothing unrepresentable) and is the resource served', async () => {
    const strict = z.toJSONSchema(ticketRegistrationSchema, { io: 'input', unrepresentable: 'throw' });
    const served = JSON.parse(textOfResource(await session.client.readResource({ uri: 'svc://schemas/ticket.json' })));
    expect(served).toEqual(strict);
    expect(served.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('the ticket schema is a valid JSON Schema that accepts a ticket the registry accepts and refuses one without actions', async () => {
    const schema = JSON.parse(textOfResource(await session.client.readResource({ uri: 'svc://schemas/ticket.json' })));
    await registerTicket(session.project, 'schema-real', REAL_TICKET);
    const validator = new Validator(schema, '2020-12');
    expect(validator.validate(REAL_TICKET).errors).toEqual([]);
    expect(validator.validate({ description: 'no actions' }).valid).toBe(false);
    expect(validator.validate({ ...REAL_TICKET, count: -1 }).valid).toBe(false);
  });

  it('the signatures guide is docs/signatures.md as written', async () => {
    const result = await session.client.readResource({ uri: 'svc://docs/signatures.md' });
    expect(result.contents[0].mimeType).toBe('text/markdown');
    expect(textOfResource(result)).toBe(signaturesDoc);
    expect(signaturesDoc).toContain('# Webhook signatures');
  });

  it('an unknown resource is an MCP error naming it', async () => {
    await expect(session.client.readResource({ uri: 'svc://nothing' })).rejects.toThrow(/Resource svc:\/\/nothing not found/);
  });
});
