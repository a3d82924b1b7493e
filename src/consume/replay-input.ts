import { keptUrl, type KeptRequest } from '../ticket-log/kept-request';
import type { ProjectUser } from '../platform/types';
import type { ConsumeInput } from './types';

/**
 * The consumption (or, in 'check' mode, the dry run) that replays a kept request: the same method,
 * headers, query, body bytes and caller, the user as they are now, judged as at its arrival.
 */
export function replayInput(
  kept: KeptRequest,
  body: Uint8Array,
  project: ConsumeInput['project'],
  ticketId: string,
  consumeId: string,
  mode: ConsumeInput['mode'],
  user: ProjectUser | undefined,
): ConsumeInput {
  return {
    mode,
    project,
    ticket_id: ticketId,
    request: { method: kept.method, headers: kept.headers, ip: kept.ip, user_agent: kept.user_agent, ...(user ? { user } : {}) },
    rawBody: body,
    search: kept.search,
    ...(kept.url !== undefined ? { url: keptUrl(kept) } : {}),
    signedRoute: kept.signed_route,
    longForm: kept.long_form,
    issuer: false,
    replay: { of: consumeId, received_at: kept.received_at },
  };
}
