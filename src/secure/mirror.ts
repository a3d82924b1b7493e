/**
 * secureRequest (spec 1.6, 4.3): every url is checked before anything is sent (urls.ts: the URL rules,
 * the address guard and the project's Destinations for its key), then each request is POSTed to its url
 * with the signed-in user's information, in the order `sync` asks for, and the answers come back in the
 * order of the requests.
 */
import type { SecureRequestCall } from '../../schemas/secure';
import { secureAnswerCap } from '../../schemas/secure-rules';
import type { Env } from '../env';
import { SvcHttpError } from '../wire/errors';
import { CONSUMPTION_BUDGET_MS } from '../limits';
import { loadSecureRequestSettings } from '../platform/projects';
import type { ProjectUser } from '../platform/types';
import { answerJson } from './answer';
import { mirroredBody } from './payload';
import { runScheduled } from './schedule';
import { mirrorOne, type SecureKey } from './send';
import { importSigningKey } from './signing';
import { checkUrls } from './urls';

export interface SecureContext {
  env: Env;
  serviceId: string;
  user: ProjectUser;
  /** How many calls deep the call arrived (src/outbound/hops.ts). */
  hops: number;
}

/**
 * Runs the call and answers its JSON text: one answer for a single request (whose failure is the call's
 * error: TIMEOUT 504 or REQUEST_FAILED 502), an array of answers for an array (a failed request answers
 * `{ response: null, statusCode: 0, url, error }` in its place).
 */
export async function secureRequest(context: SecureContext, call: SecureRequestCall): Promise<string> {
  const { env } = context;
  // Read from D1 on every call, not a cache: a narrowed list holds from the next call on.
  const settings = await loadSecureRequestSettings(env, context.serviceId);
  checkUrls(call, env, settings.destinations);
  const key: SecureKey | null = settings.key === null ? null : { value: settings.key, signing: await importSigningKey(settings.key) };
  const mirror = { env, key, deadline: Date.now() + CONSUMPTION_BUDGET_MS, maxBytes: secureAnswerCap(call.items.length), hops: context.hops };
  const outcomes = await runScheduled(call.items, (item, _index, answered) =>
    mirrorOne(mirror, item.url, mirroredBody(context.user, item.data, key?.value ?? null), answered),
  );
  if (call.single) {
    const [outcome] = outcomes;
    if (!outcome.ok) throw new SvcHttpError(outcome.failure.code, outcome.failure.message, { status: outcome.httpStatus });
    return answerJson(call.items[0].url, outcome);
  }
  return `[${outcomes.map((outcome, index) => answerJson(call.items[index].url, outcome)).join(',')}]`;
}
