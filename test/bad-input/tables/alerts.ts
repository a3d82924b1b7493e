/**
 * Alert rules and incidents (issue 37 item 5, an extension): owner key only; rule and incident ids of the
 * wrong shape or of nothing; every member of a rule with a wrong value, a member of another kind, a rule
 * without a channel or without its kind's bound; listings with unknown parameters and bad paging.
 */
import { bodyShapeCases, described, missingFieldCases, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { pagingCases } from '../params';
import { TICKETS } from '../world';
import { PLATFORM_BODY } from './platform-body';

const P = '/v1/projects/{service_id}';
const NO_RULE = 'ar_0000000000000000';
const NO_INCIDENT = 'inc_0000000000000000';
const NOT_FOUND = { status: 404, code: 'NOT_FOUND' } as const;

const create: Target = { route: `POST ${P}/alert-rules`, auth: 'owner' };
const list: Target = { route: `GET ${P}/alert-rules`, auth: 'owner' };
const one: Target = { route: `GET ${P}/alert-rules/{rule_id}`, params: { rule_id: NO_RULE }, auth: 'owner' };
const update: Target = { route: `PATCH ${P}/alert-rules/{rule_id}`, params: { rule_id: NO_RULE }, auth: 'owner' };
const remove: Target = { route: `DELETE ${P}/alert-rules/{rule_id}`, params: { rule_id: NO_RULE }, auth: 'owner' };
const secret: Target = { route: `GET ${P}/alert-rules/{rule_id}/webhook-secret`, params: { rule_id: NO_RULE }, auth: 'owner' };
const rotate: Target = { route: `POST ${P}/alert-rules/{rule_id}/webhook-secret/rotate`, params: { rule_id: NO_RULE }, auth: 'owner' };
const incidents: Target = { route: `GET ${P}/incidents`, auth: 'owner' };
const acknowledge: Target = { route: `POST ${P}/incidents/{incident_id}/acknowledge`, params: { incident_id: NO_INCIDENT }, auth: 'owner' };

const valid = {
  kind: 'failure_rate',
  threshold_percent: 25,
  min_volume: 5,
  window_minutes: 5,
  cooldown_minutes: 30,
  name: 'Stripe failing',
  channels: { email: ['ops@example.com'], webhook: { url: 'https://alerts.example.com/hook' } },
};

const badRuleIds = (target: Target): BadInputCase[] =>
  [
    ['not-an-id', 'a rule id of the wrong shape'],
    ['ar_000', 'a rule id too short'],
    ['ar_../../../etc', 'a rule id with a path'],
  ].map(([id, input]): BadInputCase => ({ ...target, params: { ...target.params, rule_id: id }, input, expect: invalidParameter('rule_id', true) }));

const memberValues = {
  name: [1, described('n'.repeat(101), 'of 101 characters')],
  threshold_percent: [0, -1, 100.5, '25', null],
  min_volume: [0, 1.5, '5', 1_000_001],
  window_minutes: [0, 1.5, 1441, '5'],
  cooldown_minutes: [-1, 0.5, 10_081, '30'],
  enabled: ['yes', 1],
  channels: ['ops@example.com', []],
  'channels.email': [
    [],
    'ops@example.com',
    described(['not an address'], 'with a word that is no address', 'channels.email[0]'),
    described(
      Array.from({ length: 6 }, (_, i) => `ops${i}@example.com`),
      'of 6 addresses',
    ),
  ],
  'channels.webhook': ['https://alerts.example.com/hook', 1],
  'channels.webhook.url': ['', described('https://a.example.com/'.padEnd(2049, 'x'), 'of 2,049 characters')],
};
/** URLs the outbound layer refuses (checked after the body's shape, so a change of no rule answers 404 first). */
const refusedUrls = ['not a url', 'ftp://alerts.example.com/hook', 'https://user:pw@alerts.example.com/hook'];

const createCases = (): BadInputCase[] => [
  ...credentialCases(create, { json: valid }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(create, PLATFORM_BODY, valid, 'name'),
  ...missingFieldCases(create, valid, ['kind'], true),
  ...wrongValueCases(create, valid, { kind: ['failure', 'FAILURE_RATE', 1, null], ticket_id: ['no spaces allowed', 7, '../x'], ...memberValues }, true),
  ...refusedUrls.map(
    (url): BadInputCase => ({
      ...create,
      input: `a webhook url ${JSON.stringify(url)} the outbound layer refuses`,
      body: { json: { ...valid, channels: { webhook: { url } } } },
      expect: invalidParameter('channels.webhook.url', true),
    }),
  ),
  {
    ...create,
    input: 'a failure_rate rule without threshold_percent',
    body: { json: { ...valid, threshold_percent: undefined } },
    expect: invalidParameter('threshold_percent', true),
  },
  {
    ...create,
    input: 'a failure_streak rule without failures',
    body: { json: { kind: 'failure_streak', channels: valid.channels } },
    expect: invalidParameter('failures', true),
  },
  {
    ...create,
    input: 'a p95_latency rule without p95_ms',
    body: { json: { kind: 'p95_latency', channels: valid.channels } },
    expect: invalidParameter('p95_ms', true),
  },
  {
    ...create,
    input: 'a failure_rate rule with failures (another kind’s bound)',
    body: { json: { ...valid, failures: 3 } },
    expect: invalidParameter('failures', true),
  },
  {
    ...create,
    input: 'a dead_letter rule with p95_ms',
    body: { json: { kind: 'dead_letter', p95_ms: 10, channels: valid.channels } },
    expect: invalidParameter('p95_ms', true),
  },
  { ...create, input: 'a rule without channels', body: { json: { kind: 'dead_letter' } }, expect: invalidParameter('channels', true) },
  { ...create, input: 'a rule with empty channels', body: { json: { kind: 'dead_letter', channels: {} } }, expect: invalidParameter('channels', true) },
  {
    ...create,
    input: 'a rule with only a null webhook',
    body: { json: { kind: 'dead_letter', channels: { webhook: null } } },
    expect: invalidParameter('channels', true),
  },
  {
    ...create,
    input: 'a rule of a ticket that does not exist',
    body: { json: { ...valid, ticket_id: 'no-such-ticket' } },
    expect: { status: 404, code: 'TICKET_NOT_FOUND' },
  },
];

const listCases = (): BadInputCase[] => [
  ...credentialCases(list, undefined, OWNER_ROUTE_CREDENTIALS),
  ...pagingCases(list),
  { ...list, input: 'an unknown parameter', query: 'kind=failure_rate', expect: invalidParameter('kind', true) },
  { ...list, input: 'a ticket_id that is no ticket id', query: 'ticket_id=a%20b', expect: invalidParameter('ticket_id', true) },
];

const ruleCases = (): BadInputCase[] => [
  ...credentialCases(one, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badRuleIds(one),
  { ...one, input: 'a rule id of no rule', expect: NOT_FOUND },
  ...credentialCases(update, { json: { enabled: false } }, OWNER_ROUTE_CREDENTIALS),
  ...badRuleIds(update),
  ...bodyShapeCases(update, { ...PLATFORM_BODY, emptyIsValid: true }, { enabled: false }, 'name'),
  ...wrongValueCases(update, { enabled: false, channels: valid.channels }, { ...memberValues, kind: ['dead_letter'], ticket_id: [TICKETS.plain] }, true),
  { ...update, input: 'a change of a rule id of no rule', body: { json: { enabled: false } }, expect: NOT_FOUND },
  ...credentialCases(remove, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badRuleIds(remove),
  { ...remove, input: 'deleting a rule id of no rule', expect: NOT_FOUND },
  ...credentialCases(secret, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badRuleIds(secret),
  { ...secret, input: 'the secret of a rule id of no rule', expect: NOT_FOUND },
  ...credentialCases(rotate, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badRuleIds(rotate),
  { ...rotate, input: 'rotating the secret of a rule id of no rule', expect: NOT_FOUND },
];

const incidentCases = (): BadInputCase[] => [
  ...credentialCases(incidents, undefined, OWNER_ROUTE_CREDENTIALS),
  ...pagingCases(incidents),
  { ...incidents, input: 'an unknown state', query: 'state=closed', expect: invalidParameter('state', true) },
  { ...incidents, input: 'a rule_id of the wrong shape', query: 'rule_id=nope', expect: invalidParameter('rule_id', true) },
  { ...incidents, input: 'an unknown parameter', query: 'from=0', expect: invalidParameter('from', true) },
  ...credentialCases(acknowledge, undefined, OWNER_ROUTE_CREDENTIALS),
  ...[
    ['not-an-id', 'an incident id of the wrong shape'],
    ['inc_../x', 'an incident id with a path'],
  ].map(([id, input]): BadInputCase => ({ ...acknowledge, params: { incident_id: id }, input, expect: invalidParameter('incident_id', true) })),
  { ...acknowledge, input: 'an incident id of no incident', expect: NOT_FOUND },
];

export const alertCases = (): BadInputCase[] => [...createCases(), ...listCases(), ...ruleCases(), ...incidentCases()];

/** The valid requests the cases above each break in one way. */
export const alertControls = (): BadInputCase[] => [
  { ...create, input: 'a failure-rate rule with e-mail and a webhook', body: { json: valid }, expect: { status: 200 } },
  {
    ...create,
    input: 'a failure-streak rule of a ticket',
    body: { json: { kind: 'failure_streak', failures: 3, ticket_id: TICKETS.plain, channels: { email: ['ops@example.com'] } } },
    expect: { status: 200 },
  },
  { ...list, input: 'the rules of a ticket', query: `ticket_id=${TICKETS.plain}&limit=5`, expect: { status: 200 } },
  { ...incidents, input: 'the open incidents', query: 'state=open&limit=5', expect: { status: 200 } },
];
