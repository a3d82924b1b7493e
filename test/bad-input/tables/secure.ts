/**
 * secureRequest (POST …/secure-request): every credential but a project user's id token; malformed bodies;
 * urls that are not http(s), relative, over 8 KiB or with control characters; wrong types; too many
 * requests. Every case aims at a path of its own on the loopback server; secure.test.ts checks that
 * nothing arrived there.
 */
import { inject } from 'vitest';
import { MAX_FORWARD_URL } from '../../../schemas/forward-rules';
import { MAX_SECURE_ITEMS } from '../../../schemas/secure-rules';
import { bodyShapeCases, type BodyRules, described, missingFieldCases, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Target } from '../case';
import type { CredentialRule } from '../credentials';
import { credentialCases } from '../credentials';

const P = '/v1/projects/{service_id}';
const origin = inject('loopbackOrigin');

/** Where every refused call of the table would have gone. */
export const SECURE_CASES_PATH = '/echo/bad-input-secure-cases';
const url = `${origin}${SECURE_CASES_PATH}`;

const target: Target = { route: `POST ${P}/secure-request`, auth: 'user' };
const base = { url, data: { a: 1 }, sync: false };
const SECURE_BODY: BodyRules = { notAnObject: invalidParameter('body', true), unknownField: (field) => invalidParameter(field, true) };

const authRequired = { status: 401, code: 'AUTH_REQUIRED' } as const;
/** Anything but a project user's id token is AUTH_REQUIRED: secureRequest mirrors the information of a signed-in user. */
const SECURE_CREDENTIALS: readonly CredentialRule[] = [
  { auth: 'none', input: 'no credential', expect: authRequired },
  { auth: 'empty-bearer', input: 'an empty Bearer credential', expect: authRequired },
  { auth: 'owner', input: 'the owner key', expect: { ...authRequired, message: /owner key is not a user/ } },
  { auth: 'wrong-owner-key', input: 'an owner key no project has', expect: authRequired },
  { auth: 'other-owner', input: "another project's owner key", expect: authRequired },
  { auth: 'malformed', input: 'a malformed token', expect: authRequired },
  { auth: 'control-chars', input: 'a credential with control characters', expect: authRequired },
  { auth: 'other-user', input: "an id token of another project's user", expect: authRequired },
  { auth: 'operator', input: 'the operator token', expect: authRequired },
];

export const secureCases = (): BadInputCase[] => [
  ...credentialCases(target, { json: base }, SECURE_CREDENTIALS),
  ...bodyShapeCases(target, SECURE_BODY, base, 'data'),
  ...missingFieldCases(target, base, ['url'], true),
  ...wrongValueCases(
    target,
    base,
    {
      url: [
        described('javascript:alert(1)', 'a javascript: url'),
        described('ftp://example.com/x', 'not http(s)'),
        described('/echo/relative', 'relative'),
        described('https://', 'without a host'),
        described(`${url}?${'a'.repeat(MAX_FORWARD_URL)}`, 'over 8 KiB'),
        described(`${url}\r\nx-injected: 1`, 'with CR LF'),
        described(`${url}\u0000`, 'with NUL'),
        described(url.replace('http://', 'http://name:pw@'), 'with user info'),
        5,
        null,
        [url],
      ],
      sync: ['yes', 1, null],
    },
    true,
  ),
  {
    ...target,
    input: `${MAX_SECURE_ITEMS * 2} requests`,
    body: { json: Array.from({ length: MAX_SECURE_ITEMS * 2 }, () => base) },
    expect: { ...invalidParameter('body', true), message: /at most 50 requests/ },
  },
  {
    ...target,
    input: 'an array whose second request is not an object',
    body: { json: [base, 'x'] },
    expect: invalidParameter('[1]', true),
  },
  {
    ...target,
    input: 'an array whose last request has a javascript: url',
    body: { json: [base, base, { url: 'javascript:alert(1)' }] },
    expect: invalidParameter('[2].url', true),
  },
];
