/** The credentials each kind of route refuses, and the cases that send them. */
import type { BadInputCase, Credential, Expected, Target } from './case';

export interface CredentialRule {
  auth: Credential;
  input: string;
  expect: Expected;
}

const unauthorized = { status: 401, code: 'UNAUTHORIZED' } as const;
const authRequired = { status: 401, code: 'AUTH_REQUIRED' } as const;

/** The credentials an owner route refuses, and how (docs/api.md: 401 UNAUTHORIZED / AUTH_REQUIRED, 403 INVALID_REQUEST). */
export const OWNER_ROUTE_CREDENTIALS: readonly CredentialRule[] = [
  { auth: 'none', input: 'no credential', expect: unauthorized },
  { auth: 'empty-bearer', input: 'an empty Bearer credential', expect: unauthorized },
  { auth: 'wrong-owner-key', input: 'an owner key no project has', expect: unauthorized },
  { auth: 'other-owner', input: "another project's owner key", expect: unauthorized },
  { auth: 'malformed', input: 'a malformed token', expect: authRequired },
  { auth: 'control-chars', input: 'a credential with control characters', expect: authRequired },
  { auth: 'other-user', input: "an id token of another project's user", expect: authRequired },
  { auth: 'operator', input: 'the operator token', expect: authRequired },
  { auth: 'admin', input: 'a signed-in admin (access group 99)', expect: { status: 403, code: 'INVALID_REQUEST' } },
];

/** The credentials the operator routes refuse: anything but the operator token is 401 UNAUTHORIZED. */
export const OPERATOR_ROUTE_CREDENTIALS: readonly CredentialRule[] = [
  { auth: 'none', input: 'no credential', expect: unauthorized },
  { auth: 'empty-bearer', input: 'an empty Bearer credential', expect: unauthorized },
  { auth: 'owner', input: 'an owner key', expect: unauthorized },
  { auth: 'user', input: "a project user's id token", expect: unauthorized },
  { auth: 'malformed', input: 'a malformed token', expect: unauthorized },
  { auth: 'control-chars', input: 'a credential with control characters', expect: unauthorized },
];

/** The credentials GET /v1/owner refuses: it takes an owner key only, and anything else is 401 UNAUTHORIZED. */
export const OWNER_KEY_ONLY_CREDENTIALS: readonly CredentialRule[] = [
  { auth: 'none', input: 'no credential', expect: unauthorized },
  { auth: 'empty-bearer', input: 'an empty Bearer credential', expect: unauthorized },
  { auth: 'wrong-owner-key', input: 'an owner key no project has', expect: unauthorized },
  { auth: 'malformed', input: 'a malformed token', expect: unauthorized },
  { auth: 'control-chars', input: 'a credential with control characters', expect: unauthorized },
  { auth: 'user', input: "a project user's id token", expect: unauthorized },
  { auth: 'operator', input: 'the operator token', expect: unauthorized },
];

/** One case per refused credential, each with a request that the right credential would carry out. */
export function credentialCases(target: Omit<Target, 'auth'>, body: BadInputCase['body'], rules: readonly CredentialRule[]): BadInputCase[] {
  return rules.map((rule) => ({ ...target, auth: rule.auth, input: rule.input, ...(body === undefined ? {} : { body }), expect: rule.expect }));
}
