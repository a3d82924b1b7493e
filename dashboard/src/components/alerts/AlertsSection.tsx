/**
 * Extension (issue 37 item 5): the project's alert rules and the incidents they opened. Rules are made
 * here and evaluated each minute by the service; a failed notification (the webhook down, the mail not
 * taken) shows on its rule and its incident.
 */
import { useEffect, useState } from 'preact/hooks';
import type { OwnerApi } from '../../api';
import { errorText } from '../../api';
import { type CreatedRule, listAlertRules, listIncidents } from './alerts-api';
import { IncidentList } from './IncidentList';
import { RuleCreateForm } from './RuleCreateForm';
import { RuleList } from './RuleList';
import { useListing } from '../use-listing';

export function AlertsSection({ api }: { api: OwnerApi }) {
  const rules = useListing((startKey) => listAlertRules(api, startKey));
  const incidents = useListing((startKey) => listIncidents(api, startKey));
  const [failure, setFailure] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedRule | null>(null);
  const refresh = () => {
    setFailure(null);
    Promise.all([rules.load(null), incidents.load(null)]).catch((err) => setFailure(errorText(err)));
  };
  useEffect(refresh, []);
  return (
    <section id="alerts" class="alerts" aria-labelledby="alerts-title">
      <h3 id="alerts-title">Alerts</h3>
      <p class="hint">
        Rules are evaluated each minute from the project's metrics. An incident opens once per episode, resolves once its condition stayed false for the rule's
        window, and no new one opens within the cooldown. Notifications go by e-mail and to a webhook signed per Standard Webhooks.
      </p>
      {failure && (
        <p class="status error" role="alert">
          {failure}
        </p>
      )}
      <RuleList api={api} rules={rules.rows} more={rules.next !== null} onMore={() => void rules.load(rules.next)} onChanged={refresh} />
      {created?.webhook_secret && (
        <p id="alert-secret" class="status" role="status">
          Webhook signing secret of {created.name || created.rule_id}, shown once: <code>{created.webhook_secret}</code>
        </p>
      )}
      <RuleCreateForm
        api={api}
        onCreated={(rule) => {
          setCreated(rule);
          refresh();
        }}
      />
      <IncidentList
        api={api}
        incidents={incidents.rows}
        more={incidents.next !== null}
        onMore={() => void incidents.load(incidents.next)}
        onChanged={refresh}
      />
    </section>
  );
}
