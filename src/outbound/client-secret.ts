/**
 * Substitution of a Secret Key's value for its token in an outbound request. Each caller names its token:
 * req writes ${CLIENT_SECRET} (its headers, data and params are templated with keepClientSecret,
 * src/engine/template.ts, which leaves each written ${CLIENT_SECRET} as that text and refuses a value
 * brought in by a reference that carries it); forwarding writes $CLIENT_SECRET. Object keys are never
 * substituted.
 */
import { percentEncodeValue } from './url';

/** The token of a req action. */
export const CLIENT_SECRET_TEXT = '${CLIENT_SECRET}';

/** Replaces every token in string values at any depth; the secret is inserted as it is (no $& patterns). */
export function fillClientSecret<T>(value: T, secret: string, token: string): T {
  if (typeof value === 'string') return (value.includes(token) ? value.split(token).join(secret) : value) as T;
  if (Array.isArray(value)) return value.map((item) => fillClientSecret(item, secret, token)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillClientSecret(item, secret, token)])) as T;
  }
  return value;
}

/** The places of an outbound request a token may stand in. */
export interface SecretPlaces {
  url: string;
  headers: Record<string, unknown>;
  data?: unknown;
  params?: Record<string, unknown>;
}

export interface SecretSubstitution {
  secret: string;
  token: string;
  /** Substitute in the url too: forwarding allows it, req does not. */
  inUrl: boolean;
}

/**
 * The secret in the url, percent-encoded so it cannot add a path segment, a query, a parameter or a
 * fragment; ':' and '@' stay as they are (a path segment and a query may hold them, and tokens such as
 * 123:ABC are written with them).
 */
function secretUrlText(secret: string): string {
  return percentEncodeValue(secret).replace(/%3A/g, ':').replace(/%40/g, '@');
}

/** The request with every token in header, data and params values (and the url when allowed) filled. */
export function fillRequestSecret<T extends SecretPlaces>(request: T, substitution: SecretSubstitution): T {
  const { secret, token, inUrl } = substitution;
  const filled: T = {
    ...request,
    url: inUrl ? fillClientSecret(request.url, secretUrlText(secret), token) : request.url,
    headers: fillClientSecret(request.headers, secret, token),
  };
  if (request.data !== undefined) filled.data = fillClientSecret(request.data, secret, token);
  if (request.params !== undefined) filled.params = fillClientSecret(request.params, secret, token);
  return filled;
}
