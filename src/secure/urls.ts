/**
 * The whole-call url checks of secureRequest, run before anything is sent: every url must pass the
 * outbound layer's URL rules and address guard and, when the project lists Destinations for its
 * secureRequest key, match one of them (the Secret Key Destinations matcher, src/outbound/destinations.ts).
 * The first url at fault refuses the call.
 */
import type { SecureRequestCall } from '../../schemas/secure';
import { SvcHttpError } from '../wire/errors';
import { OutboundError } from '../outbound/errors';
import { checkDestination, type OutboundEnv } from '../outbound/fetch';

export const SECURE_DESTINATION_REFUSAL = 'Destination is not allowed for the secureRequest key.';

/** The field a refusal of request `index` names: `url` for a single request, `[3].url` in an array. */
const urlField = (call: SecureRequestCall, index: number) => (call.single ? 'url' : `[${index}].url`);

/** The refusal of one url, naming its field; detail.refusal says why a listed Destination did not admit it. */
function refusalOf(error: OutboundError, field: string): SvcHttpError {
  if (error.reason === 'destination_not_allowed') {
    return new SvcHttpError('INVALID_REQUEST', `${field}: ${SECURE_DESTINATION_REFUSAL}`, { detail: { field, ...error.detail } });
  }
  const code = error.reason === 'private_destination' ? 'INVALID_REQUEST' : 'INVALID_PARAMETER';
  return new SvcHttpError(code, `${field}: ${error.message}`, { detail: { field, ...error.detail } });
}

/**
 * Refuses the whole call when any url is not a valid public http(s) url, or is outside `destinations`
 * (none: any public url). Nothing has been sent yet.
 */
export function checkUrls(call: SecureRequestCall, env: OutboundEnv, destinations: readonly string[]): void {
  call.items.forEach((item, index) => {
    try {
      checkDestination(item.url, env, destinations);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      throw refusalOf(error, urlField(call, index));
    }
  });
}
