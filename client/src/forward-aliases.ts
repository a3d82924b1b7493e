/**
 * The deprecated names of the forwarding methods (spec 4.3). clientSecretRequest: one params object, a
 * required clientSecretName (sent as the wire's older field name), four methods, no form; it shares the
 * queues, the history and the registry of live reads with forwardRequest. clientSecretRequestStream and
 * clientSecretRequestFinalize are forwardRequestStream and forwardRequestFinalize under their old names.
 */
import { checkClientSecretParams } from './forward-options.js';
import { forwardRequestFinalize, forwardRequestStream } from './forward-stream.js';
import { dispatch, streamFields, type ForwardContext } from './forward.js';
import type { ClientSecretRequestParams } from './forward-types.js';

export async function clientSecretRequest(context: ForwardContext, params: ClientSecretRequestParams): Promise<unknown> {
  const request = checkClientSecretParams(params);
  const { url, method, headers, data, params: query, clientSecretName, queue, poll, expires } = request;
  const body = { url, method, headers, data, params: query, clientSecretName, queue, poll: poll || undefined, expires, ...streamFields(request) };
  return dispatch(context, { body, request, check: false });
}

export const clientSecretRequestStream = forwardRequestStream;
export const clientSecretRequestFinalize = forwardRequestFinalize;
