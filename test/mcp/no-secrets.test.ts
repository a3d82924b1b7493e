import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { flushLogs } from '../logs/log-helpers';
import { callTool, connectClient } from './mcp-helpers';

const SECRET_VALUE = 'whsec_known-value-that-must-never-show-93b1';

describe('no tool and no resource ever shows a secret value or the owner key', () => {
  let project: TestProject;
  let client: Client;
  beforeAll(async () => {
    project = await createProject();
    client = await connectClient(project.owner_key);
    await putSecret(project, 'stripe_webhook_secret', SECRET_VALUE);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('every tool, succeeding and refusing, and every resource', async () => {
    const signature = {
      secretName: 'stripe_webhook_secret',
      header: 'Stripe-Signature',
      separator: ',',
      parts: ['t=${timestamp}', 'v1=${signature}'],
      signed: '${timestamp}.${body}',
      timestamp: '${timestamp}',
    };
    const ticket = {
      description: 'signed',
      condition: { signature },
      actions: [{ act: 'pstr', exe: { table: { name: 'notes', access_group: 'admin' }, data: { text: '${body[text]}' } } }],
    };
    const results: unknown[] = [];
    const called = new Set<string>();
    const run = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      const result = await callTool(client, name, args);
      results.push(result);
      return result;
    };
    await run('register_ticket', { ticket_id: 'signed', ticket });
    await run('register_ticket', { ticket_id: 'signed-bad', ticket: { ...ticket, condition: { signature: { ...signature, secretName: 'missing' } } } });
    await run('register_ticket', { ticket_id: 'open', ticket: { actions: ticket.actions } });
    await run('list_tickets');
    await run('get_ticket', { ticket_id: 'signed' });
    await run('check_ticket', { ticket_id: 'signed', headers: { 'Stripe-Signature': 't=1,v1=00' }, body: { text: 'hi' } });
    await run('check_ticket', { ticket_id: 'open', body: { text: 'hi' } });
    expect((await call('POST', `/tp/${project.service_id}/open`, { body: { text: 'hi' } })).status).toBe(200);
    await flushLogs(project.service_id, 'open');
    const log = (await run('read_log', { ticket_id: 'open' })) as any;
    expect((await call('POST', `/tp/${project.service_id}/signed`, { body: { text: 'hi' }, headers: { 'Stripe-Signature': 't=1,v1=00' } })).status).toBe(400);
    await flushLogs(project.service_id, 'signed');
    const signedLog = (await run('read_log', { ticket_id: 'signed' })) as any;
    await run('diagnose_signature', { ticket_id: 'signed', consume_id: signedLog.structuredContent.list[0].consume_id });
    await run('diagnose_signature', { ticket_id: 'signed', consume_id: 'nosuchid0' });
    await run('match_signature_preset', { secret_name: 'stripe_webhook_secret', headers: { 'Stripe-Signature': 't=1,v1=00' }, body: '{}' });
    await run('match_signature_preset', { secret_name: 'missing', headers: {} });
    await run('read_consumption', { ticket_id: 'open', consume_id: log.structuredContent.list[0].consume_id });
    await run('list_secret_keys');
    await run('list_paused_destinations');
    await run('list_dead_letters');
    await run('list_ticket_dead_letters', { ticket_id: 'open' });
    await run('replay_dead_letter', { ticket_id: 'open', consume_id: 'nosuchid0' });
    await run('bulk_replay', { ticket_id: 'open', filter: {}, dry_run: true });
    await run('bulk_replay_status', { ticket_id: 'open' });
    await run('cancel_bulk_replay', { ticket_id: 'open', replay_id: 1 });
    await run('get_metrics', { ticket_id: 'open', range: '1h' });
    await run('get_forward_metrics', { by: 'key' });
    await run('list_signature_presets');
    await run('clear_log', { ticket_id: 'open' });
    await run('delete_ticket', { ticket_id: 'signed' });
    await run('delete_ticket', { ticket_id: 'signed' });
    await run('no_such_tool');
    for (const uri of ['svc://schemas/ticket.json', 'svc://docs/signatures.md']) results.push(await client.readResource({ uri }));

    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(
      tools.filter((name) => !called.has(name)),
      'every tool is run',
    ).toEqual([]);
    const text = JSON.stringify(results);
    expect(text).toContain('stripe_webhook_secret');
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain('known-value-that-must-never-show');
    expect(text).not.toContain(project.owner_key);
    expect(text).not.toContain(project.owner_key.slice(3));
  });
});
