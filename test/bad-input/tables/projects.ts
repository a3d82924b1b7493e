/** Operator routes: create and change a project (Authorization: Bearer OPERATOR_TOKEN); the owner key's project and settings. */
import { bodyShapeCases, described, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OPERATOR_ROUTE_CREDENTIALS, OWNER_KEY_ONLY_CREDENTIALS, OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { lookalikeCases } from '../params';
import { fullwidth } from '../payloads';
import { PLATFORM_BODY } from './platform-body';

const create: Target = { route: 'POST /v1/projects', auth: 'operator' };
const change: Target = { route: 'PATCH /v1/projects/{service_id}', auth: 'operator' };
const ownerProject: Target = { route: 'GET /v1/owner', auth: 'owner' };
const settings: Target = { route: 'PATCH /v1/projects/{service_id}/settings', auth: 'owner' };

const identity = { issuer: 'https://idp.example', audience: 'aud', jwks_url: 'https://idp.example/jwks' };
const changeBase = {
  name: 'renamed',
  active: false,
  plan: 'standard',
  identity,
  secure_request_key: 'k',
  secure_request_destinations: ['https://api.example/v1'],
};
const settingsBase = { name: 'renamed', identity, secure_request_key: 'k', secure_request_destinations: ['https://api.example/v1'] };
const noSuchProject = { status: 400, code: 'INVALID_SERVICE' } as const;

/** The valid requests the cases above each break in one way (controls.test.ts checks they are accepted). */
export const projectControls = (): BadInputCase[] => [
  { ...ownerProject, input: "the owner key's project", expect: { status: 200 } },
  { ...settings, input: 'a valid settings change', body: { json: settingsBase }, expect: { status: 200 } },
  { ...create, input: 'a valid project', body: { json: { name: 'n', plan: 'free' } }, expect: { status: 201 } },
  // Last: it disables the world's project.
  { ...change, input: 'a valid change', body: { json: changeBase }, expect: { status: 200 } },
];

/** Wrong values of the fields both the operator's change and the owner's settings take (one schema, so one table). */
const settingsWrongValues: Record<string, Array<unknown>> = {
  name: [3, described('x'.repeat(101), 'over 100 characters')],
  identity: ['https://idp.example', [], 5],
  'identity.issuer': [1, '', 'svc-dev:x'],
  'identity.audience': [[], ''],
  'identity.jwks_url': [
    'http://idp.example/jwks',
    'https://',
    7,
    described('https://idp.example/\u0000', 'as a URL with a NUL character'),
    described('https://idp.example/\u202e/jwks', 'as a URL with a right-to-left override'),
  ],
  secure_request_key: [7, '', described('x'.repeat(4097), 'over 4096 characters')],
  // The Secret Key Destinations rules (secrets-and-users.ts), under the project's field name.
  secure_request_destinations: [
    'https://api.example/',
    described([1], 'as a list holding a number', 'secure_request_destinations[0]'),
    described(['ftp://api.example/'], 'as an ftp:// URL', 'secure_request_destinations[0]'),
    described(['api.example'], 'as a URL without a scheme', 'secure_request_destinations[0]'),
    described(['https://api.example/\u0000'], 'as a URL with a NUL character', 'secure_request_destinations[0]'),
    described(['https://api.example/\u202ex'], 'as a URL with a right-to-left override', 'secure_request_destinations[0]'),
    described(
      Array.from({ length: 101 }, (_, i) => `https://api${i}.example/`),
      'as 101 URLs',
    ),
    described([`https://api.example/${'x'.repeat(2048)}`], 'as a URL over 2048 characters', 'secure_request_destinations[0]'),
    described(['https://name@api.example/'], 'as a URL with a user name', 'secure_request_destinations[0]'),
    described(['https://api.example/v1?key=1'], 'as a URL with a query', 'secure_request_destinations[0]'),
    described(['https://api.*.example/'], 'as a URL with * inside the host', 'secure_request_destinations[0]'),
    described(['https://api.example/v1/../v2'], 'as a URL with a .. segment', 'secure_request_destinations[0]'),
    described(['https://api.example/v1', 'https://u@api.example/'], 'with a valid URL then one with user info', 'secure_request_destinations[1]'),
  ],
};

export const projectCases = (): BadInputCase[] => [
  ...credentialCases(ownerProject, undefined, OWNER_KEY_ONLY_CREDENTIALS),
  ...credentialCases(create, { json: { name: 'would-be' } }, OPERATOR_ROUTE_CREDENTIALS),
  ...bodyShapeCases(create, { ...PLATFORM_BODY, emptyIsValid: true }, { name: 'n' }, 'name'),
  ...wrongValueCases(
    create,
    { name: 'n', plan: 'free' },
    { name: [3, true, null, [], {}, described('x'.repeat(101), 'over 100 characters')], plan: ['gold', 1, null, 'FREE', fullwidth('free')] },
    true,
  ),
  { ...create, input: 'an owner_id chosen by the caller', body: { json: { owner_id: 'mine' } }, expect: invalidParameter('owner_id', true) },

  ...credentialCases(change, { json: { active: false } }, OPERATOR_ROUTE_CREDENTIALS),
  ...bodyShapeCases(change, PLATFORM_BODY, { active: false }, 'name'),
  ...wrongValueCases(
    change,
    changeBase,
    {
      ...settingsWrongValues,
      active: ['false', 0, null],
      plan: ['gold', null, ''],
    },
    true,
  ),
  {
    ...change,
    input: 'an unknown field inside identity',
    body: { json: { identity: { ...identity, extra: 1 } } },
    expect: invalidParameter('identity.extra', true),
  },
  // A project that only looks like the world's must not be the one disabled.
  ...lookalikeCases(change, 'service_id', "the project's service id", (w) => w.project.service_id, noSuchProject, { body: { json: { active: false } } }),
  {
    ...change,
    input: 'the service id in upper case',
    params: { service_id: (w) => w.project.service_id.toUpperCase() },
    body: { json: { active: false } },
    expect: noSuchProject,
  },
  {
    ...change,
    input: 'a service id of 10,000 characters',
    params: { service_id: 'a'.repeat(10_000) },
    body: { json: { active: false } },
    expect: noSuchProject,
  },

  ...credentialCases(settings, { json: { name: 'would-be' } }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(settings, PLATFORM_BODY, { name: 'n' }, 'name'),
  ...wrongValueCases(settings, settingsBase, settingsWrongValues, true),
  {
    ...settings,
    input: 'an unknown field inside identity',
    body: { json: { identity: { ...identity, extra: 1 } } },
    expect: invalidParameter('identity.extra', true),
  },
  // Billing and suspension stay the operator's: refused as unknown fields, the message says who changes them.
  ...(['plan', 'active'] as const).map(
    (field): BadInputCase => ({
      ...settings,
      input: `"${field}" (the operator changes it)`,
      body: { json: { name: 'n', [field]: field === 'plan' ? 'premium' : true } },
      expect: { ...invalidParameter(field, true), message: /^Unknown field "(plan|active)": plan and active are changed by the operator/ },
    }),
  ),
  ...lookalikeCases(settings, 'service_id', "the project's service id", (w) => w.project.service_id, noSuchProject, { body: { json: { name: 'n' } } }),
];
