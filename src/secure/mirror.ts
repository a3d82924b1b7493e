/**
 * secureRequest (spec 1.6, 4.3): every url is checked before anything is sent, then each request is
 * POSTed to its url with the signed-in user's information, in the order `sync` asks for, and the answers
 * come back in the order of the requests.
 */
import type { SecureRequestCall } from '../../schemas/secure';
import { secureAnswerCap } from '../../schemas/secure-rules';
import type { Env } from '../env';
import { SvcHttpError } from '../http/errors';
import { CONSUMPTION_BUDGET_MS } from '../limits';
import { OutboundError } from '../outbound/errors';
import { checkDestination } from '../outbound/fetch';
import { loadSecureRequestKey } from '../platform/projects';
import type { ProjectUser } from '../platform/types';
import { answerJson } from './answer';
import { mirroredBody } from './payload';
import { runScheduled } from './schedule';
import { mirrorOne, type SecureKey } from './send';
import { importSigningKey } from './signing';

export interface SecureContext {
  env: Env;
  serviceId: string;
  user: ProjectUser;
}

/** The field a refusal of request `index` names: `url` for a single request, `[3].url` in an array. */
const urlField = (call: SecureRequestCall, index: number) => (call.single ? 'url' : `[${index}].url`);

/** Refuses the whole call when any url is not a valid public http(s) url; nothing has been sent yet. */
function checkUrls(call: SecureRequestCall, env: Env): void {
  call.items.forEach((item, index) => {
    try {
      checkDestination(item.url, env);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      const field = urlField(call, index);
      const code = error.reason === 'private_destination' ? 'INVALID_REQUEST' : 'INVALID_PARAMETER';
      throw new SvcHttpError(code, `${field}: ${error.message}`, { detail: { field, ...error.detail } });
    }
  });
}

async function secureKeyOf(env: Env, serviceId: string): Promise<SecureKey | null> {
  const value = await loadSecureRequestKey(env, serviceId);
  return value === null ? null : { value, signing: await importSigningKey(value) };
}

/**
 * Runs the call and answers its JSON text: one answer for a single request (whose failure is the call's
 * error: TIMEOUT 504 or REQUEST_FAILED 502), an array of answers for an array (a failed request answers
 * `{ response: null, statusCode: 0, url, error }` in its place).
 */
export async function secureRequest(context: SecureContext, call: SecureRequestCall): Promise<string> {
  const { env } = context;
  checkUrls(call, env);
  const key = await secureKeyOf(env, context.serviceId);
  const mirror = { env, key, deadline: Date.now() + CONSUMPTION_BUDGET_MS, maxBytes: secureAnswerCap(call.items.length) };
  const outcomes = await runScheduled(call.items, (item) => mirrorOne(mirror, item.url, mirroredBody(context.user, item.data, key?.value ?? null)));
  if (call.single) {
    const [outcome] = outcomes;
    if (!outcome.ok) throw new SvcHttpError(outcome.failure.code, outcome.failure.message, { status: outcome.httpStatus });
    return answerJson(call.items[0].url, outcome);
  }
  return `[${outcomes.map((outcome, index) => answerJson(call.items[index].url, outcome)).join(',')}]`;
}
