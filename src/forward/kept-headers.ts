/**
 * The headers a forwarded request keeps in its history: as the caller wrote them, $CLIENT_SECRET still in
 * place of the key. A credential the caller typed out itself (an authorization or cookie header without
 * the token) is kept as REDACTED_VALUE: the owner reads every caller's history and must not learn theirs.
 */
import { FORWARD_SECRET_TOKEN } from '../../schemas/forward-rules';

export const REDACTED_VALUE = '[redacted]';

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export function keptHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) =>
      CREDENTIAL_HEADERS.has(name.toLowerCase()) && !value.includes(FORWARD_SECRET_TOKEN) ? [name, REDACTED_VALUE] : [name, value],
    ),
  );
}
