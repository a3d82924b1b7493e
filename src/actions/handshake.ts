/**
 * hsk: the internal action that answers Zoom's endpoint.url_validation (docs/signatures.md
 * "Handshakes"): { plainToken, encryptedToken } where encryptedToken is the hex HMAC-SHA256 of
 * plainToken keyed by the Secret Key of the ticket's signature. Never registered by an owner; the
 * consumption runs it (src/consume/consume-ticket.ts). Its row shows the plainToken, never the key.
 */
import type { TicketAction } from '../../schemas/ticket-types';
import { ActionError } from '../wire/errors';
import { loadSecretKey } from '../platform/secrets';
import type { ActionModule } from './types';
import { toHex } from '../../schemas/encoding';

/** Not an ActKind: registration never accepts it (schemas/actions/schema.ts); only the consumption builds it. */
export const HANDSHAKE_ACT = 'hsk';

export const handshakeAction: ActionModule = {
  async run({ exe, services }) {
    const { secretName, plainToken } = exe as { secretName: string; plainToken: string };
    const key = await loadSecretKey(services.env, services.serviceId, secretName);
    if (!key) throw new ActionError('REQUEST_FAILED', `The Secret Key "${secretName}" no longer exists.`, { reason: 'secret_missing', secretName });
    const hmacKey = await crypto.subtle.importKey('raw', new TextEncoder().encode(key.value), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const encryptedToken = toHex(await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(plainToken)));
    return { ok: true, answer: { plainToken, encryptedToken }, row: { handshake: 'zoom', plainToken } };
  },
};

/** The run that answers a Zoom handshake: hsk, then resp with its answer. */
export function zoomHandshakeActions(secretName: string, plainToken: string): TicketAction[] {
  // The runner looks the kind up in ACTION_MODULES, where hsk is registered beside the kinds of the spec.
  const hsk = { act: HANDSHAKE_ACT, exe: { secretName, plainToken, actions: [{ act: 'resp', exe: { body: '${response}' } }] } };
  return [hsk as unknown as TicketAction];
}
