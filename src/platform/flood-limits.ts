import { TICKET_CALLER_DEFAULT, TICKET_PROJECT_DEFAULT } from '../limits';
import type { FloodLimits } from './types';

/** The stored settings (projects.flood_limits, JSON or NULL) with the defaults filled in. */
export function floodLimitsOf(column: string | null): FloodLimits {
  const stored = column ? (JSON.parse(column) as Partial<FloodLimits>) : {};
  return {
    per_caller_per_ticket: stored.per_caller_per_ticket ?? TICKET_CALLER_DEFAULT,
    per_project: stored.per_project ?? TICKET_PROJECT_DEFAULT,
    tickets: stored.tickets ?? {},
  };
}
