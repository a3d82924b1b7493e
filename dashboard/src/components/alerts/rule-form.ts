/** The create form of an alert rule: its inputs as text, and the body they make. Pure. */
import type { AlertKind } from '../../../../schemas/alerts';

export interface RuleForm {
  kind: AlertKind;
  name: string;
  ticket_id: string;
  /** The kind's bound: threshold_percent, failures or p95_ms (unused by the other kinds). */
  bound: string;
  min_volume: string;
  window_minutes: string;
  cooldown_minutes: string;
  /** Addresses, separated by commas, spaces or lines. */
  email: string;
  webhook_url: string;
}

export const KIND_LABELS: Record<AlertKind, string> = {
  failure_rate: 'Failure rate over a percentage',
  failure_streak: 'Failures in a row',
  p95_latency: 'p95 latency over a bound',
  flood_refused: 'Flood control refusing requests',
  dead_letter: 'A dead letter added',
  destination_paused: 'A destination paused',
};

/** The member the bound input fills, and its label; none for the kinds without a bound. */
export const BOUND_OF: Partial<Record<AlertKind, { member: string; label: string }>> = {
  failure_rate: { member: 'threshold_percent', label: 'failed % over' },
  failure_streak: { member: 'failures', label: 'failures in a row' },
  p95_latency: { member: 'p95_ms', label: 'p95 over (ms)' },
};

export const emptyRuleForm = (): RuleForm => ({
  kind: 'failure_rate',
  name: '',
  ticket_id: '',
  bound: '10',
  min_volume: '10',
  window_minutes: '5',
  cooldown_minutes: '30',
  email: '',
  webhook_url: '',
});

/** A number input as JSON: a number when it reads as one, else the text (the route then names the field). */
const numberOf = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text.trim());

/** The body of POST …/alert-rules the form makes; blank optional inputs are left out. */
export function ruleBody(form: RuleForm): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: form.kind };
  if (form.name.trim()) body.name = form.name.trim();
  if (form.ticket_id.trim()) body.ticket_id = form.ticket_id.trim();
  const bound = BOUND_OF[form.kind];
  if (bound) body[bound.member] = numberOf(form.bound);
  if (form.kind === 'failure_rate' && form.min_volume.trim()) body.min_volume = numberOf(form.min_volume);
  if (form.window_minutes.trim()) body.window_minutes = numberOf(form.window_minutes);
  if (form.cooldown_minutes.trim()) body.cooldown_minutes = numberOf(form.cooldown_minutes);
  const email = form.email.split(/[\s,]+/).filter(Boolean);
  const channels: Record<string, unknown> = {};
  if (email.length) channels.email = email;
  if (form.webhook_url.trim()) channels.webhook = { url: form.webhook_url.trim() };
  if (Object.keys(channels).length) body.channels = channels;
  return body;
}

/** The input a refused field belongs to, so the form marks it. */
export function inputOfField(field: string | undefined): keyof RuleForm | null {
  if (!field) return null;
  if (['threshold_percent', 'failures', 'p95_ms'].includes(field)) return 'bound';
  if (field.startsWith('channels.email') || field === 'channels') return 'email';
  if (field.startsWith('channels.webhook')) return 'webhook_url';
  return (['kind', 'name', 'ticket_id', 'min_volume', 'window_minutes', 'cooldown_minutes'] as const).find((name) => name === field) ?? null;
}
