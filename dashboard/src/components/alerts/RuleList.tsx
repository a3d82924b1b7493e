/** The alert rules as a table: kind and bound, scope, channels, state, the last notification; enable, disable, delete. */
import { useState } from 'preact/hooks';
import type { OwnerApi } from '../../api';
import { errorText } from '../../api';
import { when } from '../when';
import { type AlertRule, deleteAlertRule, setAlertRuleEnabled } from './alerts-api';
import { KIND_LABELS } from './rule-form';

/** The rule's bound in words. */
export function boundText(rule: AlertRule): string {
  switch (rule.kind) {
    case 'failure_rate':
      return `over ${rule.threshold_percent}% of at least ${rule.min_volume} in ${rule.window_minutes} min`;
    case 'failure_streak':
      return `${rule.failures} in a row`;
    case 'p95_latency':
      return `p95 over ${rule.p95_ms} ms in ${rule.window_minutes} min`;
    default:
      return `any in ${rule.window_minutes} min`;
  }
}

export function RuleList(props: { api: OwnerApi; rules: AlertRule[]; more: boolean; onMore: () => void; onChanged: () => void }) {
  const [failure, setFailure] = useState<string | null>(null);
  const act = (run: () => Promise<unknown>) =>
    run()
      .then(() => (setFailure(null), props.onChanged()))
      .catch((err) => setFailure(errorText(err)));
  return (
    <div class="alert-rules">
      <h4>Rules</h4>
      {failure && (
        <p class="status error" role="alert">
          {failure}
        </p>
      )}
      {props.rules.length === 0 ? (
        <p class="hint">No alert rules yet.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Alert rules">
            <thead>
              <tr>
                <th>Rule</th>
                <th>Scope</th>
                <th>Notifies</th>
                <th>State</th>
                <th>Last notification</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {props.rules.map((rule) => (
                <tr key={rule.rule_id} class="alert-rule" data-rule-id={rule.rule_id}>
                  <td>
                    <strong>{rule.name || KIND_LABELS[rule.kind]}</strong>
                    <br />
                    <span class="hint">{boundText(rule)}</span>
                  </td>
                  <td>{rule.ticket_id === null ? 'project' : `ticket ${rule.ticket_id}`}</td>
                  <td>
                    {[...rule.channels.email, ...(rule.channels.webhook ? [rule.channels.webhook.url] : [])].map((to) => (
                      <div key={to}>
                        <code>{to}</code>
                      </div>
                    ))}
                  </td>
                  <td>
                    <span class={`badge ${rule.enabled ? rule.state : 'disabled'}`}>{rule.enabled ? rule.state : 'disabled'}</span>
                  </td>
                  <td class="last-delivery">
                    {rule.last_delivery === null ? (
                      'none yet'
                    ) : rule.last_delivery.ok ? (
                      `${rule.last_delivery.event} delivered ${when(rule.last_delivery.at)}`
                    ) : (
                      <span class="delivery-failed" role="note">
                        {rule.last_delivery.event} failed {when(rule.last_delivery.at)}: {rule.last_delivery.error}
                      </span>
                    )}
                  </td>
                  <td>
                    <button type="button" onClick={() => act(() => setAlertRuleEnabled(props.api, rule.rule_id, !rule.enabled))}>
                      {rule.enabled ? 'Disable' : 'Enable'}
                    </button>{' '}
                    <button type="button" onClick={() => act(() => deleteAlertRule(props.api, rule.rule_id))}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.more && (
        <button type="button" onClick={props.onMore}>
          More rules
        </button>
      )}
    </div>
  );
}
