/**
 * A dispatch turned into the request the service sends: prepared once (the token still in place, so it
 * can be stored), then made into an outbound request with the key's value filled in right before sending.
 */
import type { ForwardDispatch } from '../../schemas/forward';
import { BODILESS_FORWARD_METHODS, FORWARD_SECRET_TOKEN, type ForwardMethod } from '../../schemas/forward-rules';
import { encodeBody } from '../outbound/body';
import { fillRequestSecret } from '../outbound/client-secret';
import type { OutboundRequest } from '../outbound/fetch';
import { buildHeaders } from '../outbound/headers';
import { appendParams, normalizeUrl } from '../outbound/url';
import type { ForwardCaller } from './caller';
import { fromBase64 } from '../../schemas/encoding';
import { invalidParameter } from '../wire/errors';

export interface PreparedRequest {
  method: ForwardMethod;
  /** As the caller wrote it, the token included. */
  url: string;
  /** The caller's headers and the identity headers the dispatch asked for. */
  headers: Record<string, string>;
  params?: Record<string, unknown>;
  data?: unknown;
  multipart?: { content_type: string; base64: string };
  /** The Secret Key whose value replaces the token; absent when the token appears nowhere. */
  secretName?: string;
  /** How many calls deep the dispatch arrived (its hop marker); absent on requests queued before it was kept: 0. */
  hops?: number;
}

/** Whether the token stands in a string anywhere in the value (object keys are not looked at). */
export function mentionsToken(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(FORWARD_SECRET_TOKEN);
  if (Array.isArray(value)) return value.some(mentionsToken);
  if (value !== null && typeof value === 'object') return Object.values(value).some(mentionsToken);
  return false;
}

/** The identity headers of svcHeaders, written from the verified caller (a visitor has no x-svc-user). */
function identityHeaders(dispatch: ForwardDispatch, caller: ForwardCaller, serviceId: string): Record<string, string> {
  const wanted = dispatch.svcHeaders;
  if (!wanted) return {};
  const user = wanted === true || wanted.user === true;
  const service = wanted === true || wanted.service === true;
  return {
    ...(user && caller.userId !== undefined ? { 'x-svc-user': caller.userId } : {}),
    ...(service ? { 'x-svc-service': serviceId } : {}),
  };
}

export function prepareRequest(dispatch: ForwardDispatch, caller: ForwardCaller, serviceId: string, hops: number): PreparedRequest {
  const named = dispatch.secretName ?? dispatch.clientSecretName;
  const places = [dispatch.url, dispatch.headers, dispatch.data, dispatch.params];
  return {
    method: dispatch.method,
    url: dispatch.url,
    headers: { ...dispatch.headers, ...identityHeaders(dispatch, caller, serviceId) },
    ...(dispatch.params !== undefined ? { params: dispatch.params } : {}),
    ...(dispatch.data !== undefined ? { data: dispatch.data } : {}),
    ...(dispatch.multipart !== undefined ? { multipart: dispatch.multipart } : {}),
    ...(named !== undefined && places.some(mentionsToken) ? { secretName: named } : {}),
    hops,
  };
}

const CONTENT_TYPE = 'content-type';

/**
 * The request to send, with `secret` (the key's value) in place of every token: in the url (percent-encoded),
 * header values, data and params. data goes as JSON unless the caller's content-type asks for a form or
 * text; a multipart body goes byte for byte with its own content-type. Throws OutboundError (invalid_url,
 * invalid_header).
 */
export function outboundOf(prepared: PreparedRequest, secret: string | undefined): OutboundRequest {
  const filled = secret === undefined ? prepared : fillRequestSecret(prepared, { secret, token: FORWARD_SECRET_TOKEN, inUrl: true });
  const url = appendParams(normalizeUrl(filled.url), filled.params, 'repeat');
  const request: OutboundRequest = { method: prepared.method, url: url.href, headers: buildHeaders(filled.headers), hops: prepared.hops ?? 0 };
  if (BODILESS_FORWARD_METHODS.has(prepared.method)) return request;
  if (prepared.multipart) {
    request.headers.set(CONTENT_TYPE, prepared.multipart.content_type);
    const bytes = fromBase64(prepared.multipart.base64);
    if (!bytes) throw invalidParameter('Invalid "multipart.base64": must be base64 text.', { field: 'multipart.base64' });
    request.body = bytes;
  } else if (filled.data !== undefined) {
    const encoded = encodeBody(filled.data, request.headers.get(CONTENT_TYPE) ?? 'application/json');
    request.headers.set(CONTENT_TYPE, encoded.contentType);
    request.body = encoded.body;
  }
  return request;
}
