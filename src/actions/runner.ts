import type { TicketAction } from '../../schemas/ticket-types';
import type { ErrorBody } from '../http/errors';
import type { ActionRow } from '../consume/types';

/** What a run of the action chain sees: the consumption's references (spec 2.5). */
export interface ActionContext {
  body: unknown;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  placeholders: Record<string, unknown>;
  ip: string;
  user_agent: string;
  method: string;
  user?: Record<string, unknown>;
  record_access?: string;
  ticket: { id: string; service: string; owner: string; consume_id: string; timestamp: number; hash: string };
}

export type ChainOutcome =
  | { ok: true; respond?: { status: number; body: unknown }; rows: ActionRow[] }
  | { ok: false; error: ErrorBody; rows: ActionRow[] };

/**
 * Runs a ticket's actions in order. The action kinds plug in here; until a kind is available the
 * consumption fails with INTERNAL_ERROR naming it (registration still accepts every kind).
 */
export async function runTicketActions(actions: TicketAction[], _ctx: ActionContext): Promise<ChainOutcome> {
  const rows: ActionRow[] = [];
  for (const [index, action] of actions.entries()) {
    const path = `actions[${index}]`;
    const error: ErrorBody = {
      code: 'INTERNAL_ERROR',
      message: `The ${action.act} action cannot run in this version of the service.`,
      stage: 'action',
      action: { act: action.act, path },
    };
    rows.push({ seq: index, path, act: action.act, detail: { error } });
    return { ok: false, error, rows };
  }
  return { ok: true, rows };
}
