import { describe, expect, it } from 'vitest';
import type { AlertIncidentAnswer, AlertRuleAnswer } from '../../schemas/alerts';
import { boundText, formatAlertRule, formatIncident } from '../src/commands/alerts';

const rule: AlertRuleAnswer = {
  rule_id: 'ar_0123456789abcdef',
  name: 'Stripe failing',
  kind: 'failure_rate',
  ticket_id: 'stripe',
  threshold_percent: 20,
  min_volume: 10,
  window_minutes: 5,
  cooldown_minutes: 30,
  channels: { email: ['ops@example.com'], webhook: { url: 'https://alerts.example.com/hook' } },
  enabled: true,
  state: 'firing',
  open_incident_id: 'inc_0123456789abcdef',
  last_resolved_at: null,
  last_delivery: {
    at: Date.UTC(2026, 10, 29, 15, 0, 0),
    event: 'alert.opened',
    ok: false,
    error: 'webhook: unreachable: The destination could not be reached.',
  },
  created: 0,
  updated: 0,
};

const incident: AlertIncidentAnswer = {
  incident_id: 'inc_0123456789abcdef',
  rule_id: rule.rule_id,
  kind: 'failure_rate',
  ticket_id: 'stripe',
  state: 'acknowledged',
  opened_at: Date.UTC(2026, 10, 29, 15, 0, 0),
  acknowledged_at: Date.UTC(2026, 10, 29, 15, 5, 0),
  resolved_at: null,
  observed: { value: 60, bound: 20, consumptions: 10, failed: 6 },
  last_delivery: null,
};

describe('svc alerts: a rule and an incident as one line each', () => {
  it('a rule shows its state, bound, scope, channels and a failed notification', () => {
    expect(formatAlertRule(rule)).toBe(
      'ar_0123456789abcdef  firing  failure_rate  failed > 20% of >= 10  ticket=stripe  window=5m cooldown=30m  mail:ops@example.com,webhook:https://alerts.example.com/hook  "Stripe failing"  last alert.opened FAILED (webhook: unreachable: The destination could not be reached.) 2026-11-29T15:00:00Z',
    );
    expect(formatAlertRule({ ...rule, enabled: false, last_delivery: null, name: '', ticket_id: null })).toMatch(
      /^ar_0123456789abcdef {2}disabled .* project .*webhook:https:\/\/alerts\.example\.com\/hook$/,
    );
  });

  it('each kind has its bound in words', () => {
    expect(boundText({ kind: 'failure_streak', failures: 3 })).toBe('failures in a row >= 3');
    expect(boundText({ kind: 'p95_latency', p95_ms: 500 })).toBe('p95 > 500ms');
    expect(boundText({ kind: 'destination_paused' })).toBe('paused destinations > 0');
  });

  it('an incident shows when it opened, its state, what it saw and when it was acknowledged', () => {
    expect(formatIncident(incident)).toBe(
      '2026-11-29T15:00:00Z  acknowledged  inc_0123456789abcdef  rule=ar_0123456789abcdef failure_rate ticket=stripe  value=60 bound=20  acknowledged 2026-11-29T15:05:00Z',
    );
    expect(formatIncident({ ...incident, kind: null, ticket_id: null, state: 'resolved', resolved_at: Date.UTC(2026, 10, 29, 15, 10, 0) })).toContain(
      '(deleted rule)  value=60 bound=20  acknowledged 2026-11-29T15:05:00Z  resolved 2026-11-29T15:10:00Z',
    );
  });
});
