import { describe, expect, it } from 'vitest';
import { call } from '../helpers/api';
import { pauseDestination, resumeDestinations, runCron } from '../alerts/support';
import { callTool, ownerSession, textOf } from './mcp-helpers';

describe('the MCP tools over alert rules and incidents (extension) answer what the owner routes answer', () => {
  const session = ownerSession();
  const owner = (method: string, path: string) => call(method, `/v1/projects/${session.project.service_id}${path}`, { token: session.project.owner_key });

  it('create_alert_rule, list_alert_rules, list_incidents, acknowledge_incident and delete_alert_rule', async () => {
    const made = await callTool(session.client, 'create_alert_rule', {
      kind: 'destination_paused',
      name: 'paused',
      email: ['ops@example.com'],
      webhook_url: 'https://alerts.example.com/hook',
    });
    expect(made.isError, textOf(made)).toBeFalsy();
    const rule = made.structuredContent as { rule_id: string; webhook_secret_made: boolean };
    expect(rule).toMatchObject({ kind: 'destination_paused', name: 'paused', webhook_secret_made: true, channels: { email: ['ops@example.com'] } });
    expect(textOf(made)).not.toContain('whsec_');

    const listed = await callTool(session.client, 'list_alert_rules', {});
    expect(listed.structuredContent).toEqual((await owner('GET', '/alert-rules')).json);

    const now = Date.now();
    await pauseDestination(session.project.service_id, now);
    await runCron(now);
    await resumeDestinations(session.project.service_id);
    const incidents = await callTool(session.client, 'list_incidents', { state: 'open' });
    expect(incidents.structuredContent).toEqual((await owner('GET', '/incidents?state=open')).json);
    const [incident] = (incidents.structuredContent as { list: { incident_id: string; rule_id: string }[] }).list;
    expect(incident.rule_id).toBe(rule.rule_id);

    const acked = await callTool(session.client, 'acknowledge_incident', { incident_id: incident.incident_id });
    expect(acked.structuredContent).toMatchObject({ incident_id: incident.incident_id, state: 'acknowledged' });

    const deleted = await callTool(session.client, 'delete_alert_rule', { rule_id: rule.rule_id });
    expect(deleted.structuredContent).toEqual({ deleted: true });
    const again = await callTool(session.client, 'delete_alert_rule', { rule_id: rule.rule_id });
    expect(again).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });
  });

  it('create_alert_rule refuses a rule without its bound, naming the field', async () => {
    const refused = await callTool(session.client, 'create_alert_rule', { kind: 'failure_rate', email: ['ops@example.com'] });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PARAMETER', detail: { field: 'threshold_percent' } } });
  });
});
