import { keptBodyBytes, keptUrl, MAX_KEPT_BODY_BYTES, type KeptRequest } from '../ticket-log/kept-request';
import type { ProjectUser } from '../platform/types';
import { loadUser } from '../platform/users';
import type { Env } from '../env';
import { SvcHttpError } from '../wire/errors';
import { consumingProject } from './project-cache';
import type { ConsumeInput } from './types';

const cannotReplay = (message: string) => new SvcHttpError('INVALID_REQUEST', message, { status: 400 });

/**
 * The consumption that replays a logged one, from what its entry kept (undefined: the log has no such
 * consumption). Refuses an entry logged before requests were kept, one whose body was too large to keep,
 * and one whose user no longer exists.
 */
export async function replayOfEntry(
  env: Env,
  serviceId: string,
  ticketId: string,
  consumeId: string,
  kept: KeptRequest | null | undefined,
  mode: ConsumeInput['mode'],
): Promise<ConsumeInput> {
  if (kept === undefined) throw new SvcHttpError('NOT_FOUND', 'The log of this ticket has no consumption with this consume_id.', { status: 404 });
  if (kept === null) throw cannotReplay('This consumption was logged before requests were kept: it cannot be re-checked or replayed.');
  const body = keptBodyBytes(kept.body);
  if (!body) throw cannotReplay(`Its body was over ${MAX_KEPT_BODY_BYTES} bytes and was not kept: it cannot be re-checked or replayed.`);
  const user = kept.user_id === undefined ? undefined : await loadUser(env, serviceId, kept.user_id);
  if (kept.user_id !== undefined && !user) throw cannotReplay('The user who made this consumption no longer exists.');
  const consuming = await consumingProject(env, serviceId);
  const project = { service_id: consuming.service_id, owner_id: consuming.owner_id, receipt_key: consuming.receipt_key, plan: consuming.plan };
  return replayInput(kept, body, project, ticketId, consumeId, mode, user ?? undefined);
}

/**
 * The consumption (or, in 'check' mode, the dry run) that replays a kept request: the same method,
 * headers, query, body bytes and caller, the user as they are now, judged as at its arrival.
 */
function replayInput(
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
