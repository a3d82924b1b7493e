import type { JWTPayload } from 'jose';
import type { ProjectUser } from './types';

/** Issuer of the built-in (development) identity provider of a project: `svc-dev:{service_id}`. */
export const DEV_ISSUER_PREFIX = 'svc-dev:';
export const devIssuer = (serviceId: string): string => `${DEV_ISSUER_PREFIX}${serviceId}`;

/**
 * Claims that are never user attributes: the token's own protocol claims, and the fields the
 * server owns (a token claiming `access_group: 99` must not promote anyone).
 */
export const RESERVED_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'azp',
  'nonce',
  'auth_time',
  'at_hash',
  'c_hash',
  'acr',
  'amr',
  'sid',
  'user_id',
  'access_group',
] as const;

const reserved = new Set<string>(RESERVED_CLAIMS);

/**
 * The time claim (iat or nbf) of a token that lies more than `skewSeconds` ahead of now: a token is
 * never issued, nor valid, in the future beyond the clocks' drift.
 */
export function claimInTheFuture(payload: JWTPayload, nowSeconds: number, skewSeconds: number): 'iat' | 'nbf' | undefined {
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + skewSeconds) return 'iat';
  if (typeof payload.nbf === 'number' && payload.nbf > nowSeconds + skewSeconds) return 'nbf';
  return undefined;
}

/** What a verified token says about its user; access_group is the server's, not the token's. */
export interface ClaimedUser {
  user_id: string;
  email?: string;
  attributes: Record<string, unknown>;
}

/** The user a verified token describes: sub is the user id, every non-protocol claim an attribute. */
export function userFromClaims(payload: JWTPayload): ClaimedUser {
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!reserved.has(key) && value !== undefined) attributes[key] = value;
  }
  const email = typeof payload.email === 'string' ? payload.email : undefined;
  return { user_id: String(payload.sub), ...(email !== undefined ? { email } : {}), attributes };
}

/** What `${user[key]}` reads: the attributes, with user_id, email and access_group taking precedence. */
export function userReferenceView(user: ProjectUser): Record<string, unknown> {
  return { ...user.attributes, user_id: user.user_id, email: user.email, access_group: user.access_group };
}
