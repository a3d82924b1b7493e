/** The incidents, newest first, with a state badge, what opened them, their last notification and an Acknowledge button while open. */
import { useState } from 'preact/hooks';
import type { OwnerApi } from '../../api';
import { errorText } from '../../api';
import { when } from '../when';
import { type Incident, acknowledgeIncident } from './alerts-api';
import { KIND_LABELS } from './rule-form';

const observedText = (incident: Incident): string => {
  const seen = incident.observed as { value?: unknown; bound?: unknown };
  return seen.value === undefined ? '' : `${String(seen.value)} (bound ${String(seen.bound)})`;
};

export function IncidentList(props: { api: OwnerApi; incidents: Incident[]; more: boolean; onMore: () => void; onChanged: () => void }) {
  const [failure, setFailure] = useState<string | null>(null);
  const acknowledge = (incidentId: string) =>
    acknowledgeIncident(props.api, incidentId)
      .then(() => (setFailure(null), props.onChanged()))
      .catch((err) => setFailure(errorText(err)));
  return (
    <div class="alert-incidents">
      <h4>Incidents</h4>
      {failure && (
        <p class="status error" role="alert">
          {failure}
        </p>
      )}
      {props.incidents.length === 0 ? (
        <p class="hint">No incidents.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Incidents">
            <thead>
              <tr>
                <th>Opened</th>
                <th>State</th>
                <th>Rule</th>
                <th>Saw</th>
                <th>Notification</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {props.incidents.map((incident) => (
                <tr key={incident.incident_id} class="incident" data-incident-id={incident.incident_id} data-state={incident.state}>
                  <td>{when(incident.opened_at)}</td>
                  <td>
                    <span class={`badge ${incident.state}`}>{incident.state}</span>
                    {incident.resolved_at !== null && <div class="hint">resolved {when(incident.resolved_at)}</div>}
                  </td>
                  <td>
                    {incident.kind ? KIND_LABELS[incident.kind] : 'deleted rule'}
                    {incident.ticket_id && <div class="hint">ticket {incident.ticket_id}</div>}
                  </td>
                  <td>{observedText(incident)}</td>
                  <td class="last-delivery">
                    {incident.last_delivery === null ? (
                      'pending'
                    ) : incident.last_delivery.ok ? (
                      `${incident.last_delivery.event} delivered`
                    ) : (
                      <span class="delivery-failed" role="note">
                        {incident.last_delivery.event} failed: {incident.last_delivery.error}
                      </span>
                    )}
                  </td>
                  <td>
                    {incident.state === 'open' && (
                      <button type="button" onClick={() => void acknowledge(incident.incident_id)}>
                        Acknowledge
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.more && (
        <button type="button" onClick={props.onMore}>
          More incidents
        </button>
      )}
    </div>
  );
}
