import {
  type FetchImplementation,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  SignJWT,
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  importJWK,
  jwtVerify,
} from 'jose';
import { type Env, isTrue } from '../env';
import { SvcHttpError } from '../wire/errors';
import { pathBeyondDepth } from '../wire/json-depth';
import { MAX_DEFINITION_JSON_DEPTH } from '../limits';
import { claimInTheFuture, devIssuer, userFromClaims } from './claims';
import { decryptText } from './crypto';
import { devPrivateJwkContext, invalidService } from './projects';
import type { Project, ProjectUser } from './types';
import { ensureUser } from './users';

const DEV_TOKEN_LIFETIME = '24h';
/** How far the issuer's clock may run ahead of or behind ours (exp, nbf, iat). */
export const CLOCK_TOLERANCE_SECONDS = 30;
const DEV_ALGORITHMS = ['ES256'];
/** External issuers sign with asymmetric keys only; 'none' and HMAC are never accepted. */
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** What verification needs to know of a project: its id (built-in issuer) and its external issuer. */
export type IdentityProject = Pick<Project, 'service_id' | 'identity'>;

export const authRequired = (message: string) => new SvcHttpError('AUTH_REQUIRED', message, { status: 401 });

/** Three base64url segments: the shape of a compact JWS. */
const looksLikeJwt = (token: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);

// --- external issuers: one remote key set per JWKS URL, kept for the life of the isolate ---

const remoteKeySets = new Map<string, JWTVerifyGetKey>();
let jwksFetch: FetchImplementation | undefined;

/** The remote key set of a JWKS URL, created once per URL (jose caches and refreshes the keys inside it). */
function remoteJwks(jwksUrl: string): JWTVerifyGetKey {
  let keySet = remoteKeySets.get(jwksUrl);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(jwksUrl), jwksFetch ? { [customFetch]: jwksFetch } : {});
    remoteKeySets.set(jwksUrl, keySet);
  }
  return keySet;
}

/**
 * Replaces the fetch the remote key sets use (undefined = the global fetch) and forgets the cached
 * key sets. Tests serve a JWKS through it, since they have no network.
 */
export function setJwksFetch(fetchImpl: FetchImplementation | undefined): void {
  jwksFetch = fetchImpl;
  remoteKeySets.clear();
}

// --- the built-in issuer of each project (local development only) ---

const devPublicKeys = new Map<string, Promise<CryptoKey>>();

async function importDevPublicKey(env: Env, serviceId: string): Promise<CryptoKey> {
  const row = await env.DB.prepare('SELECT dev_public_jwk FROM projects WHERE service_id = ?').bind(serviceId).first<{ dev_public_jwk: string }>();
  if (!row) throw authRequired('The id token was not issued for this project.');
  return (await importJWK(JSON.parse(row.dev_public_jwk) as JWK, 'ES256')) as CryptoKey;
}

/** The built-in issuer's public key; it never changes, so it is imported once per isolate. */
function devPublicKey(env: Env, serviceId: string): Promise<CryptoKey> {
  let key = devPublicKeys.get(serviceId);
  if (!key) {
    key = importDevPublicKey(env, serviceId);
    devPublicKeys.set(serviceId, key);
    key.catch(() => devPublicKeys.delete(serviceId));
  }
  return key;
}

export interface DevTokenSubject {
  user_id: string;
  email?: string;
  attributes?: Record<string, unknown>;
}

/**
 * Signs an id token with the project's built-in issuer: sub = user_id, aud = service_id,
 * iss = `svc-dev:{service_id}`; the attributes and email ride along as claims.
 * `expiration` is a jose time span ('24h') or a unix time in seconds.
 */
export async function signDevIdToken(env: Env, serviceId: string, subject: DevTokenSubject, expiration: string | number = DEV_TOKEN_LIFETIME): Promise<string> {
  const row = await env.DB.prepare('SELECT dev_private_jwk_enc FROM projects WHERE service_id = ?').bind(serviceId).first<{ dev_private_jwk_enc: string }>();
  if (!row) throw invalidService();
  const jwk = JSON.parse(await decryptText(env, row.dev_private_jwk_enc, devPrivateJwkContext(serviceId))) as JWK;
  const privateKey = await importJWK(jwk, 'ES256');
  const claims: JWTPayload = { ...subject.attributes, ...(subject.email !== undefined ? { email: subject.email } : {}) };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setIssuer(devIssuer(serviceId))
    .setAudience(serviceId)
    .setSubject(subject.user_id)
    .setIssuedAt()
    .setExpirationTime(expiration)
    .sign(privateKey);
}

// --- verification ---

const inTheFuture = (claim: string) =>
  authRequired(`The id token's "${claim}" claim lies in the future (more than ${CLOCK_TOLERANCE_SECONDS} s ahead of the server's clock).`);

function explain(err: unknown): SvcHttpError {
  if (err instanceof SvcHttpError) return err;
  if (err instanceof errors.JWTExpired) return authRequired('The id token has expired.');
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf' && err.reason === 'check_failed') return inTheFuture('nbf');
  if (err instanceof errors.JWTClaimValidationFailed) return authRequired(`The id token's "${err.claim}" claim is not valid for this project.`);
  if (err instanceof errors.JWSSignatureVerificationFailed) return authRequired('The id token signature does not verify.');
  if (err instanceof errors.JWKSNoMatchingKey) return authRequired('The id token was signed with a key the identity provider does not publish.');
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err instanceof TypeError) {
    return authRequired("The identity provider's keys could not be fetched; the id token could not be verified.");
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return authRequired('The id token is signed with an algorithm that is not accepted.');
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return authRequired('The id token is malformed.');
  return authRequired('The id token could not be verified.');
}

/** Checks signature, issuer, audience and expiry of a token against the project's issuers; returns its claims. */
async function verifyIdTokenClaims(env: Env, project: IdentityProject, token: string): Promise<JWTPayload> {
  if (!looksLikeJwt(token)) throw authRequired('The id token is malformed.');
  let issuer: string | undefined;
  try {
    issuer = decodeJwt(token).iss;
  } catch {
    throw authRequired('The id token is malformed.');
  }
  try {
    let payload: JWTPayload;
    if (issuer === devIssuer(project.service_id)) {
      if (!isTrue(env.DEV_IDENTITY)) throw authRequired('The built-in identity issuer is only trusted in local development.');
      ({ payload } = await jwtVerify(token, await devPublicKey(env, project.service_id), {
        issuer,
        audience: project.service_id,
        algorithms: DEV_ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } else if (project.identity && issuer === project.identity.issuer) {
      ({ payload } = await jwtVerify(token, remoteJwks(project.identity.jwks_url), {
        issuer,
        audience: project.identity.audience,
        algorithms: EXTERNAL_ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } else {
      throw authRequired('The id token was not issued for this project.');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 256) {
      throw authRequired('The id token\'s "sub" claim is not a user id.');
    }
    const ahead = claimInTheFuture(payload, Math.floor(Date.now() / 1000), CLOCK_TOLERANCE_SECONDS);
    if (ahead) throw inTheFuture(ahead);
    // The claims become user attributes, which templating and logging walk recursively.
    if (pathBeyondDepth(payload, MAX_DEFINITION_JSON_DEPTH)) {
      throw authRequired(`The id token's claims are nested deeper than ${MAX_DEFINITION_JSON_DEPTH} levels.`);
    }
    return payload;
  } catch (err) {
    throw explain(err);
  }
}

/**
 * Verifies a project user's id token (built-in issuer when DEV_IDENTITY is 'true', or the project's
 * external OIDC issuer) and returns the stored user, inserting a first-time user with access group 1.
 * Any failure is AUTH_REQUIRED (401).
 */
export async function verifyIdToken(env: Env, project: IdentityProject, token: string): Promise<ProjectUser> {
  const payload = await verifyIdTokenClaims(env, project, token);
  // The built-in issuer's users are edited through the minting route, so their stored row wins.
  const fromExternalIssuer = payload.iss !== devIssuer(project.service_id);
  return ensureUser(env, project.service_id, userFromClaims(payload), fromExternalIssuer);
}
