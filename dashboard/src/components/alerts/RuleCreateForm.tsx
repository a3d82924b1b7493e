/** The form that makes an alert rule; a refusal marks the input it names. */
import { useState } from 'preact/hooks';
import type { AlertKind } from '../../../../schemas/alerts';
import { ApiError, errorText, type OwnerApi } from '../../api';
import { type CreatedRule, createAlertRule } from './alerts-api';
import { BOUND_OF, KIND_LABELS, type RuleForm, emptyRuleForm, inputOfField, ruleBody } from './rule-form';

export function RuleCreateForm({ api, onCreated }: { api: OwnerApi; onCreated: (rule: CreatedRule) => void }) {
  const [form, setForm] = useState<RuleForm>(emptyRuleForm());
  const [refused, setRefused] = useState<{ input: keyof RuleForm | null; text: string } | null>(null);
  const set = (change: Partial<RuleForm>) => setForm({ ...form, ...change });
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const rule = await createAlertRule(api, ruleBody(form));
      setRefused(null);
      setForm(emptyRuleForm());
      onCreated(rule);
    } catch (err) {
      setRefused({ input: err instanceof ApiError ? inputOfField(err.field) : null, text: errorText(err) });
    }
  };
  const bound = BOUND_OF[form.kind];
  const field = (input: keyof RuleForm, label: string, attrs: Record<string, unknown> = {}) => {
    const id = `alert-${input.replace(/_/g, '-')}`;
    const wrong = refused?.input === input;
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          value={form[input]}
          onInput={(e) => set({ [input]: e.currentTarget.value })}
          {...attrs}
          {...(wrong ? { 'aria-invalid': true, 'aria-describedby': `${id}-err` } : {})}
        />
        {wrong && (
          <p id={`${id}-err`} class="field-error" data-error-for={input} role="alert">
            {refused.text}
          </p>
        )}
      </div>
    );
  };
  return (
    <form id="alert-rule-form" onSubmit={submit}>
      <h4>New rule</h4>
      <div class="field">
        <label for="alert-kind">when</label>
        <select id="alert-kind" value={form.kind} onChange={(e) => set({ kind: e.currentTarget.value as AlertKind })}>
          {Object.entries(KIND_LABELS).map(([kind, label]) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {bound && field('bound', bound.label, { inputMode: 'decimal' })}
      {form.kind === 'failure_rate' && field('min_volume', 'at least this many consumptions in the window', { inputMode: 'numeric' })}
      {field('window_minutes', 'window (minutes)', { inputMode: 'numeric' })}
      {field('cooldown_minutes', 'cooldown after a resolve (minutes)', { inputMode: 'numeric' })}
      {field('ticket_id', 'ticket (blank: every ticket of the project)')}
      {field('name', 'name (optional)')}
      {field('email', 'e-mail to (comma separated)', { type: 'text', autocomplete: 'email' })}
      {field('webhook_url', 'webhook url (signed per Standard Webhooks)', { type: 'url' })}
      {refused && refused.input === null && (
        <p class="status error" role="alert">
          {refused.text}
        </p>
      )}
      <button type="submit">Create rule</button>
    </form>
  );
}
