/**
 * How getTickets shows a legacy ticket (spec 2.1.1): its condition and actions in the current format.
 * The stored form already has the current names; what the current format cannot hold, the check-time
 * request condition, is shown as what replaces it: a req action at the head of the chain with a cond
 * action on its answer. Its literal row values are escaped ($${...}) since cond values are templates.
 */
import type { ConditionRow, TicketAction, TicketCondition } from '../ticket-types';

const escapeTemplates = (value: unknown): unknown => {
  if (typeof value === 'string') return value.replaceAll('${', () => '$${');
  if (Array.isArray(value)) return value.map(escapeTemplates);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeTemplates(v)]));
  return value;
};

const literalRow = (row: ConditionRow): ConditionRow => {
  const shown: ConditionRow = { ...row };
  if (row.value !== undefined) shown.value = escapeTemplates(row.value) as ConditionRow['value'];
  if (row.setValueWhenMatch !== undefined) shown.setValueWhenMatch = escapeTemplates(row.setValueWhenMatch);
  return shown;
};

export function currentFormOf(condition: TicketCondition, actions: TicketAction[]): { condition: TicketCondition; actions: TicketAction[] } {
  const { request, ...current } = condition;
  if (!request) return { condition, actions };
  const then: TicketAction[] = request.rows.length > 0 ? [{ act: 'cond', exe: { response: request.rows.map(literalRow) } }] : [];
  const check: TicketAction = { act: 'req', exe: { ...request.exe, ...(then.length ? { actions: then } : {}) } };
  return { condition: current, actions: [check, ...actions] };
}
