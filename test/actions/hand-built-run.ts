import { env } from 'cloudflare:workers';
import type { TicketAction } from '../../schemas/ticket-types';
import type { ActionContext } from '../../src/engine/context';
import type { ActionRun } from '../../src/actions/types';
import { newConsumeId } from '../../src/consume/receipt';
import { renderValue } from '../../src/engine/template';
import type { Env } from '../../src/env';

export interface HandBuiltOptions {
  env?: Env;
  now?: number;
  ticketId?: string;
  path?: string;
  /** Request the references read (${body[...]}, ${user[...]}). */
  body?: unknown;
  user?: Record<string, unknown>;
  consumeId?: string;
}

/**
 * An ActionRun built by hand: the module's run() is called directly with the real bindings (D1,
 * queue) and the real template engine, as the runner would call it at the top of a ticket's chain.
 */
export function handBuiltRun(project: { service_id: string; owner_id: string }, action: TicketAction, options: HandBuiltOptions = {}): ActionRun {
  const now = options.now ?? Date.now();
  const ctx: ActionContext = {
    body: options.body ?? {},
    params: {},
    headers: {},
    placeholders: {},
    ip: '203.0.113.7',
    user_agent: 'test-agent',
    method: 'POST',
    ...(options.user ? { user: options.user } : {}),
    ticket: {
      id: options.ticketId ?? 'hand-built',
      service: project.service_id,
      owner: project.owner_id,
      consume_id: options.consumeId ?? newConsumeId(now),
      timestamp: now,
      hash: '',
    },
  };
  return {
    action,
    exe: action.exe,
    render: (value, renderOptions) => renderValue(value, { ctx }, renderOptions),
    path: options.path ?? 'actions[0]',
    ctx,
    services: {
      env: options.env ?? env,
      serviceId: project.service_id,
      ownerId: project.owner_id,
      plan: 'free',
      now: () => now,
      deadline: now + 25_000,
    },
  };
}
