/** The owner routes of alert rules and incidents (an extension), as the Alerts section calls them. */
import type { AlertIncidentAnswer, AlertRuleAnswer } from '../../../../schemas/alerts';
import type { DatabaseResponse } from '../../../../schemas/listings';
import type { OwnerApi } from '../../api';

export type AlertRule = AlertRuleAnswer;
export type Incident = AlertIncidentAnswer;
export type CreatedRule = AlertRule & { webhook_secret: string | null };

const page = (startKey: string | null) => (startKey ? `&startKey=${encodeURIComponent(startKey)}` : '');

export const listAlertRules = (api: OwnerApi, startKey: string | null) =>
  api.project<DatabaseResponse<AlertRule>>('GET', `/alert-rules?limit=50${page(startKey)}`);
export const createAlertRule = (api: OwnerApi, body: Record<string, unknown>) => api.project<CreatedRule>('POST', '/alert-rules', body);
export const setAlertRuleEnabled = (api: OwnerApi, ruleId: string, enabled: boolean) =>
  api.project<CreatedRule>('PATCH', `/alert-rules/${encodeURIComponent(ruleId)}`, { enabled });
export const deleteAlertRule = (api: OwnerApi, ruleId: string) => api.project<{ deleted: true }>('DELETE', `/alert-rules/${encodeURIComponent(ruleId)}`);
export const listIncidents = (api: OwnerApi, startKey: string | null) => api.project<DatabaseResponse<Incident>>('GET', `/incidents?limit=20${page(startKey)}`);
export const acknowledgeIncident = (api: OwnerApi, incidentId: string) =>
  api.project<Incident>('POST', `/incidents/${encodeURIComponent(incidentId)}/acknowledge`, {});
