/**
 * clientSecretRequest, the deprecated name of forwardRequest (spec 4.3): one params object, a required
 * clientSecretName (sent as the wire's older field name), four methods, no form. It shares the queues,
 * the history and the registry of live polls with forwardRequest.
 */
import { checkClientSecretParams } from './forward-options.js';
import { dispatch, type ForwardContext } from './forward.js';
import type { ClientSecretRequestParams } from './forward-types.js';

export async function clientSecretRequest(context: ForwardContext, params: ClientSecretRequestParams): Promise<unknown> {
  const request = checkClientSecretParams(params);
  const { url, method, headers, data, params: query, clientSecretName, queue, poll, expires } = request;
  const body = { url, method, headers, data, params: query, clientSecretName, queue, poll: poll || undefined, expires };
  return dispatch(context, { body, request, check: false });
}
