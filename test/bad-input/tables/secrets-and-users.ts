/** Owner routes: development users, secret keys, and the records tickets wrote. */
import { expect } from 'vitest';
import { bodyShapeCases, described, missingFieldCases, wrongValueCases } from '../bodies';
import { BROKEN_ESCAPES, invalidParameter, type BadInputCase, type PathParam, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { ignoredQueryKeysCase, lookalikeCases, pagingCases } from '../params';
import { cyrillic, fullwidth } from '../payloads';
import { SECRET } from '../world';
import { PLATFORM_BODY } from './platform-body';

const P = '/v1/projects/{service_id}';
const notFound = { status: 404, code: 'NOT_FOUND' } as const;

/** Path-parameter names of resources: 1 to 64 letters, digits, _ or - (RESOURCE_NAME_PATTERN). */
export function resourceNameCases(target: Target, param: string, existing: string, extra: Partial<BadInputCase> = {}): BadInputCase[] {
  const refused = invalidParameter(param, true);
  const named = (input: string, value: PathParam): BadInputCase => ({
    ...target,
    ...extra,
    input,
    params: { ...target.params, [param]: value },
    expect: refused,
  });
  return [
    ...lookalikeCases(target, param, `the name of an existing resource ("${existing}")`, existing, refused, extra),
    named(`a ${param} of 65 characters`, 'n'.repeat(65)),
    named(`a ${param} of 10,000 characters`, 'n'.repeat(10_000)),
    named(`a ${param} with an encoded slash`, `${existing}/x`),
    named(`a ${param} with a #`, `${existing}#`),
    ...BROKEN_ESCAPES.map(([value, words]) => named(`a ${param} with ${words}`, value)),
  ];
}

// --- development users ---

const devUsers: Target = { route: `POST ${P}/dev/users`, auth: 'owner' };
const devUserBase = { email: 'new@example.com', attributes: { plan: 'gold' }, access_group: 5, user_id: '00000000-0000-4000-8000-000000000001' };

const devUserCases = (): BadInputCase[] => [
  ...credentialCases(devUsers, { json: devUserBase }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(devUsers, { ...PLATFORM_BODY, emptyIsValid: true }, devUserBase, 'email'),
  ...wrongValueCases(
    devUsers,
    devUserBase,
    {
      email: [
        1,
        'not-an-address',
        described(cyrillic('new@example.com'), 'as an address with a Cyrillic lookalike letter'),
        described(`${'x'.repeat(250)}@e.co`, 'over 254 characters'),
        null,
      ],
      attributes: ['plan=gold', [], 5, described({ big: 'x'.repeat(8193) }, 'as an object over 8192 characters as JSON')],
      access_group: [0, 100, '5', 1.5, null],
      user_id: ['not-a-uuid', 5, described(fullwidth('00000000-0000-4000-8000-000000000001'), 'as a uuid in fullwidth digits')],
    },
    true,
  ),
  ...[
    ['exp', 'a reserved claim name (exp)'],
    ['email', 'the reserved name email'],
    ['bad key', 'a key with a space'],
    [fullwidth('plan'), 'a key in fullwidth letters'],
    ['k\u0000', 'a key with a NUL character'],
    ['k'.repeat(65), 'a key of 65 characters'],
  ].map(
    ([key, words]): BadInputCase => ({
      ...devUsers,
      input: `an attribute with ${words}`,
      body: { json: { attributes: { [key]: 1 } } },
      expect: { ...invalidParameter(`attributes.${key}`, true), message: /reserved claim name/ },
    }),
  ),
];

// --- secret keys ---

const secrets: Target = { route: `GET ${P}/secrets`, auth: 'owner' };
const secret: Target = { route: `GET ${P}/secrets/{name}`, params: { name: SECRET }, auth: 'owner' };
const putSecret: Target = { route: `PUT ${P}/secrets/{name}`, params: { name: SECRET }, auth: 'owner' };
const deleteSecret: Target = { route: `DELETE ${P}/secrets/{name}`, params: { name: SECRET }, auth: 'owner' };
const secretBase = { value: 'replaced', destinations: ['https://api.example/'], access_group: 1, locked: false };

const secretCases = (): BadInputCase[] => [
  ...credentialCases(secrets, undefined, OWNER_ROUTE_CREDENTIALS),
  ignoredQueryKeysCase(secrets, { list: [expect.objectContaining({ name: SECRET })] }),

  ...credentialCases(secret, undefined, OWNER_ROUTE_CREDENTIALS),
  ...resourceNameCases(secret, 'name', SECRET),
  { ...secret, input: 'the name of no secret key', params: { name: 'nothing-here' }, expect: notFound },

  // Each refused write aims at the world's existing key: it must keep its value and settings.
  ...credentialCases(putSecret, { json: secretBase }, OWNER_ROUTE_CREDENTIALS),
  ...resourceNameCases(putSecret, 'name', SECRET, { body: { json: secretBase } }),
  ...bodyShapeCases(putSecret, PLATFORM_BODY, secretBase, 'value'),
  ...missingFieldCases(putSecret, secretBase, ['value'], true),
  ...wrongValueCases(
    putSecret,
    secretBase,
    {
      value: [1, '', described('x'.repeat(4097), 'over 4096 characters'), null, ['v']],
      destinations: [
        'https://api.example/',
        described([1], 'as a list holding a number', 'destinations[0]'),
        described(['ftp://api.example/'], 'as an ftp:// URL', 'destinations[0]'),
        described(['api.example'], 'as a URL without a scheme', 'destinations[0]'),
        described(['https://api.example/\u0000'], 'as a URL with a NUL character', 'destinations[0]'),
        described(['https://api.example/\u0001x'], 'as a URL with a control character', 'destinations[0]'),
        described(['https://api.example/\u202ex'], 'as a URL with a right-to-left override', 'destinations[0]'),
        described(['https://api.example/ x'], 'as a URL with a space', 'destinations[0]'),
        described(
          Array.from({ length: 101 }, (_, i) => `https://api${i}.example/`),
          'as 101 URLs',
        ),
        described([`https://api.example/${'x'.repeat(2048)}`], 'as a URL over 2048 characters', 'destinations[0]'),
        described(['https://name@api.example/'], 'as a URL with a user name', 'destinations[0]'),
        described(['https://:pw@api.example/'], 'as a URL with a password', 'destinations[0]'),
        described(['https://api.example/v1?key=1'], 'as a URL with a query', 'destinations[0]'),
        described(['https://api.example/v1#top'], 'as a URL with a fragment', 'destinations[0]'),
        described(['https://api.*.example/'], 'as a URL with * inside the host', 'destinations[0]'),
        described(['https://*api.example/'], 'as a URL with * in part of the first label', 'destinations[0]'),
        described(['https://api.example/v1/*'], 'as a URL with * in the path', 'destinations[0]'),
        described(['https://api.example\\v1'], 'as a URL with a backslash', 'destinations[0]'),
        described(['https://api.example/v1/../v2'], 'as a URL with a .. segment', 'destinations[0]'),
        described(['https://api.example/v1/%2E%2e'], 'as a URL with an encoded .. segment', 'destinations[0]'),
        described(['https://$CLIENT_SECRET.api.example/'], 'as a URL with the token in the host', 'destinations[0]'),
        described(['https://api.example:99999/'], 'as a URL with a port out of range', 'destinations[0]'),
        described(['https://api.example/v1', 'https://u@api.example/'], 'with a valid URL then one with user info', 'destinations[1]'),
      ],
      access_group: [-1, 100, '1', 1.5, null],
      locked: ['true', 1, null],
    },
    true,
  ),

  ...credentialCases(deleteSecret, undefined, OWNER_ROUTE_CREDENTIALS),
  ...resourceNameCases(deleteSecret, 'name', SECRET),
  { ...deleteSecret, input: 'the name of no secret key', params: { name: 'nothing-here' }, expect: notFound },
];

// --- records ---

const records: Target = { route: `GET ${P}/records`, auth: 'owner' };
const record: Target = { route: `GET ${P}/records/{record_id}`, params: { record_id: 'r' }, auth: 'owner' };

const recordCases = (): BadInputCase[] => [
  ...credentialCases(records, undefined, OWNER_ROUTE_CREDENTIALS),
  ...pagingCases(records),
  { ...records, input: 'an empty table name', query: 'table=', expect: invalidParameter('table', true) },
  ignoredQueryKeysCase(records, { list: [], endOfList: true }),
  ...credentialCases(record, undefined, OWNER_ROUTE_CREDENTIALS),
  ...lookalikeCases(record, 'record_id', 'a record id', '0LlZJbT2x4AbCdEfGh', notFound),
  { ...record, input: 'a record id of 10,000 characters', params: { record_id: 'r'.repeat(10_000) }, expect: notFound },
];

/** The valid requests the cases above each break in one way (controls.test.ts checks they are accepted). */
export const secretsAndUsersControls = (): BadInputCase[] => [
  { ...devUsers, input: 'a valid dev user', body: { json: devUserBase }, expect: { status: 200 } },
  { ...devUsers, input: 'a dev user with an attribute', body: { json: { attributes: { plan: 1 } } }, expect: { status: 200 } },
  { ...putSecret, input: 'a valid secret key', body: { json: secretBase }, expect: { status: 200 } },
  {
    ...putSecret,
    input: 'a secret key whose destinations use a wildcard host, ports, an IPv6 host and paths',
    body: { json: { ...secretBase, destinations: ['https://*.api.example:8443/v1', 'http://[2001:db8::1]:8080/v1/', 'https://api.example'] } },
    expect: { status: 200 },
  },
  { ...secrets, input: 'the secret keys', expect: { status: 200 } },
  { ...secret, input: 'the secret key', expect: { status: 200 } },
  { ...records, input: 'the records', query: 'limit=5&table=t', expect: { status: 200 } },
  { ...deleteSecret, input: 'the secret key', expect: { status: 200 } },
];

export const secretsAndUsersCases = (): BadInputCase[] => [...devUserCases(), ...secretCases(), ...recordCases()];
