/** Owner routes of tickets: register, delete, list (getTickets), clearTicketLog, getConsumedTickets, one ticket, plan and check. */
import { expect } from 'vitest';
import { MAX_ACTIONS_PER_TICKET, MAX_DESCRIPTION, MAX_MAIL_PLACEHOLDERS } from '../../../schemas/limits';
import { bodyShapeCases, described, missingFieldCases, wrongValueCases, type BodyRules } from '../bodies';
import { BROKEN_ESCAPES, invalidParameter, type BadInputCase, type Expected, type PathParam, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { ignoredQueryKeysCase, pagingCases } from '../params';
import { LOOKALIKES, cyrillic, fullwidth, tenThousandKeys } from '../payloads';
import { FRESH_TICKET, NEWSLETTER, SECRET, TEMPLATE, TICKETS } from '../world';
import { PLATFORM_BODY } from './platform-body';

const P = '/v1/projects/{service_id}';
const PLAIN = TICKETS.plain;

/** Registration refusals name the field at the start of the message (schemas/paths.ts), without detail. */
const refused = (field: string): Expected => invalidParameter(field, false);

const REGISTRATION_BODY: BodyRules = {
  notAnObject: { status: 400, code: 'INVALID_PARAMETER', message: /^the ticket must be a JSON object/ },
  unknownField: (field) => ({ ...refused(field), message: new RegExp(`^${field}: unknown key`) }),
};

/** Ticket ids the pattern of spec 2.1 refuses: lookalikes of an existing id, reserved characters, lengths. */
const BAD_TICKET_IDS: Array<[PathParam, string]> = [
  ...LOOKALIKES.map(([transform, words]): [string, string] => [transform(PLAIN), `an existing ticket's id ${words}`]),
  [fullwidth('#') + PLAIN, "an id starting with a fullwidth '＃'"],
  [`#${PLAIN}`, 'an id starting with #'],
  [`!${PLAIN}`, 'an id starting with !'],
  [`pl/ain`, 'an id with an encoded /'],
  [`_${PLAIN}`, 'an id starting with _'],
  [`${PLAIN} `, 'an id with a trailing space'],
  ['t'.repeat(65), 'an id of 65 characters'],
  ['t'.repeat(10_000), 'an id of 10,000 characters'],
  ...BROKEN_ESCAPES.map(([id, words]): [PathParam, string] => [id, `an id with ${words}`]),
];
/** The ids of BAD_TICKET_IDS that can be written as text (in a query string). */
const BAD_TICKET_ID_TEXTS = BAD_TICKET_IDS.filter((entry): entry is [string, string] => typeof entry[0] === 'string');

// --- register ---

const register = (ticketId: PathParam): Target => ({ route: `PUT ${P}/tickets/{ticket_id}`, params: { ticket_id: ticketId }, auth: 'owner' });
const signature = {
  secretName: SECRET,
  header: 'Stripe-Signature',
  separator: ',',
  parts: ['t=${timestamp}', 'v1=${signature}'],
  signed: '${timestamp}.${body}',
  timestamp: '${timestamp}',
};
/** A valid replacement of the world's 'plain' ticket: each case breaks one thing, and 'plain' must keep its count of 5. */
const ticketBase = {
  description: 'replaced',
  count: 100,
  limit_per_user: 1,
  time_to_live: null,
  condition: { method: 'POST', params: [{ key: 'q', operator: '=', value: 1 }], signature },
  actions: [
    { act: 'mail', exe: { template: TEMPLATE, to: 'a@example.com' } },
    { act: 'nlsd', exe: { group: 'public', newsletter: NEWSLETTER } },
  ],
};
const withCondition = (condition: Record<string, unknown>) => ({ json: { ...ticketBase, condition } });
const withActions = (actions: unknown[]) => ({ json: { ...ticketBase, actions } });
const req = (url: string) => withActions([{ act: 'req', exe: { url } }]);

const registerCases = (): BadInputCase[] => [
  ...credentialCases(register(FRESH_TICKET), { json: ticketBase }, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...register(id), input, body: { json: ticketBase }, expect: refused('ticket_id') })),
  ...bodyShapeCases(register(PLAIN), REGISTRATION_BODY, ticketBase, 'description'),
  ...missingFieldCases(register(PLAIN), ticketBase, ['actions'], false),
  ...wrongValueCases(
    register(PLAIN),
    ticketBase,
    {
      ticket_id: [5, described('other', 'differing from the id of the path')],
      description: [5, true, null, [], described('x'.repeat(MAX_DESCRIPTION + 1), `over ${MAX_DESCRIPTION} characters`)],
      count: ['three', -1, 1.5, true, [], {}],
      limit_per_user: ['once', -1, 1.5, [], {}],
      time_to_live: ['tomorrow', 1.5, true, {}, described(1_000, 'in the past')],
      condition: ['POST', [], 5],
      'condition.method': ['PUT', 'post', 1, described(fullwidth('POST'), 'in fullwidth letters')],
      'condition.params': [{}, 'q=1'],
      'condition.params.0.key': [1, null],
      'condition.params.0.operator': ['~', '==', described(fullwidth('='), "as a fullwidth '＝'")],
      'condition.params.0.value': [{}, described([{}], 'as a list holding an object')],
      'condition.signature.secretName': [...LOOKALIKES.map(([transform, words]) => described(transform(SECRET), `naming an existing secret key ${words}`)), 5],
      actions: [{}, 'none', null],
      'actions.0.act': [described(fullwidth('mail'), 'in fullwidth letters'), described(cyrillic('mail'), 'with a Cyrillic lookalike letter'), 'email', 1],
      'actions.0.exe.template': [
        described(cyrillic(TEMPLATE), 'naming an existing template with a Cyrillic lookalike letter'),
        described(fullwidth(TEMPLATE), 'naming an existing template in fullwidth letters'),
        7,
      ],
      'actions.1.exe.newsletter': [
        described(fullwidth(NEWSLETTER), 'naming an existing newsletter in fullwidth letters'),
        described(`${NEWSLETTER}\u0000`, 'naming an existing newsletter with a NUL character'),
      ],
      'actions.0.exe.to': ['', 5],
      'actions.0.exe.placeholders': [
        described(Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`p${i}`, 'v'])), `with ${MAX_MAIL_PLACEHOLDERS + 1} placeholders`),
        described({ p: null }, 'with a null placeholder value', 'actions[0].exe.placeholders.p'),
        'p=v',
      ],
      'actions.1.exe.group': [1, 100, 1.5, true],
      timestamp: ['yesterday'],
      legacy: ['no'],
      // The limits of spec 8 on the signature.
      'condition.signature.header': [described('X'.repeat(257), 'over 256 characters'), 'bad header', described('X-Sig\u0000', 'with a NUL character')],
      'condition.signature.separator': ['', described('123456789', 'of 9 characters')],
      'condition.signature.parts': [
        described(
          Array.from({ length: 11 }, (_, i) => `p${i}=\${signature}`),
          'with 11 parts',
        ),
        described(['x'.repeat(257)], 'with a part over 256 characters', 'condition.signature.parts[0]'),
      ],
      'condition.signature.signed': [described('x'.repeat(513), 'over 512 characters'), ''],
      'condition.signature.secret_prefix': [described('x'.repeat(65), 'over 64 characters')],
      'condition.signature.tolerance': [0, 86_401, 1.5, '300'],
    },
    false,
  ),
  // Refused on the newsletter: none is stored under a group of that name.
  {
    ...register(PLAIN),
    input: "an nlsd group of 'public' in fullwidth letters",
    body: withActions([{ act: 'nlsd', exe: { group: fullwidth('public'), newsletter: NEWSLETTER } }]),
    expect: refused('actions[0].exe.newsletter'),
  },
  // Idempotent consumption (extension, docs/api.md): the window and the key.
  ...(
    [
      ['0s', 'an idempotency window of 0s'],
      ['-1h', 'a negative idempotency window'],
      ['8d', 'an idempotency window over 7 days'],
      ['soon', 'an idempotency window that is no duration'],
    ] as const
  ).map(
    ([window, input]): BadInputCase => ({
      ...register(PLAIN),
      input,
      body: { json: { ...ticketBase, idempotency: { key: '${headers[webhook-id]}', window } } },
      expect: refused('idempotency.window'),
    }),
  ),
  ...(
    [
      ['webhook-id', 'an idempotency key that is no reference'],
      ['${ip}', 'an idempotency key that is not of the request'],
      ['id-${body[id]}', 'an idempotency key with text around its reference'],
      [`\${body[${'k'.repeat(300)}]}`, 'an idempotency key over 256 characters'],
    ] as const
  ).map(
    ([key, input]): BadInputCase => ({
      ...register(PLAIN),
      input,
      body: { json: { ...ticketBase, idempotency: { key } } },
      expect: refused('idempotency.key'),
    }),
  ),
  // The retry schedule of the work after the answer (extension, docs/api.md): each bad member named.
  ...(
    [
      [{ delays: ['0s'] }, 'a retry delay of 0s', 'retry_schedule.delays[0]'],
      [{ delays: ['5s', '-1m'] }, 'a negative retry delay', 'retry_schedule.delays[1]'],
      [{ delays: ['25h'] }, 'a retry delay over 24 hours', 'retry_schedule.delays[0]'],
      [{ delays: ['2h'], within: '1h' }, 'a retry delay longer than its window', 'retry_schedule.delays[0]'],
      [{ within: '8d' }, 'a retry window over 7 days', 'retry_schedule.within'],
      [{ attempts: 51 }, 'more than 50 attempts', 'retry_schedule.attempts'],
      [{ attempts: 1 }, 'a schedule of one attempt', 'retry_schedule.attempts'],
      [{ on: { statuses: [200] } }, 'a retried status of 200', 'retry_schedule.on.statuses[0]'],
      [{ every: '5s' }, 'a schedule with an unknown member', 'retry_schedule.every'],
    ] as const
  ).map(
    ([retry_schedule, input, field]): BadInputCase => ({
      ...register(PLAIN),
      input,
      body: { json: { ...ticketBase, retry_schedule } },
      expect: refused(field),
    }),
  ),
  { ...register(PLAIN), input: 'a resp status of 99', body: withActions([{ act: 'resp', exe: { status: 99 } }]), expect: refused('actions[0].exe.status') },
  { ...register(PLAIN), input: 'a resp status of 600', body: withActions([{ act: 'resp', exe: { status: 600 } }]), expect: refused('actions[0].exe.status') },
  { ...register(PLAIN), input: 'an acsg group of 0', body: withActions([{ act: 'acsg', exe: { group: 0 } }]), expect: refused('actions[0].exe.group') },
  { ...register(PLAIN), input: 'an acsg group of 100', body: withActions([{ act: 'acsg', exe: { group: 100 } }]), expect: refused('actions[0].exe.group') },
  // Tabs, line breaks and other control characters in a req url are not bad input: spec 2.4 normalizes
  // the url as a browser does (removed, or percent-encoded in the path), tested in src/outbound/url.test.ts.
  { ...register(PLAIN), input: 'a req url in fullwidth letters', body: req(fullwidth('https://api.example/')), expect: refused('actions[0].exe.url') },
  { ...register(PLAIN), input: 'an action that is a number', body: { json: { ...ticketBase, actions: [1] } }, expect: refused('actions[0]') },
  {
    ...register(PLAIN),
    input: 'an unknown field in an action',
    body: { json: { ...ticketBase, actions: [{ ...ticketBase.actions[0], extra: 1 }] } },
    expect: refused('actions[0].extra'),
  },
  {
    ...register(PLAIN),
    input: `${MAX_ACTIONS_PER_TICKET + 1} actions`,
    body: { json: { ...ticketBase, actions: Array.from({ length: MAX_ACTIONS_PER_TICKET + 1 }, () => ({ act: 'acsg', exe: { group: 2 } })) } },
    expect: { ...refused('actions'), message: new RegExp(`at most ${MAX_ACTIONS_PER_TICKET} actions`) },
  },
  {
    ...register(PLAIN),
    input: 'a header row with a null value',
    body: withCondition({ headers: [{ key: 'x-token', operator: '=', value: null }] }),
    expect: refused('condition.headers[0].value'),
  },
  {
    ...register(PLAIN),
    input: 'a header row keyed by a fullwidth header name',
    body: withCondition({ headers: [{ key: fullwidth('X-Token'), operator: '=', value: 'v' }] }),
    expect: refused('condition.headers[0].key'),
  },
  {
    ...register(PLAIN),
    input: 'a header row keyed with a NUL character',
    body: withCondition({ headers: [{ key: 'x-to\u0000ken', operator: '=', value: 'v' }] }),
    expect: refused('condition.headers[0].key'),
  },
  {
    ...register(PLAIN),
    input: 'body rows on a GET ticket',
    body: withCondition({ method: 'GET', body: [{ key: 'a', operator: '=', value: 1 }] }),
    expect: refused('condition.body'),
  },
  {
    ...register(PLAIN),
    input: 'a user row with a null value',
    body: withCondition({ user: [{ key: 'email_verified', operator: '=', value: null }] }),
    expect: refused('condition.user[0].value'),
  },
  {
    ...register(PLAIN),
    input: 'the removed request condition',
    body: withCondition({ request: { url: 'https://api.example/' } }),
    expect: refused('condition.request'),
  },
];

// --- legacy import ---

const importLegacy = (ticketId: PathParam): Target => ({ route: `PUT ${P}/tickets/{ticket_id}/legacy`, params: { ticket_id: ticketId }, auth: 'owner' });
const legacyBase = { ...ticketBase, condition: { data: [{ key: 'a', operator: '=', value: 1 }] } };
const legacyWith = (extra: Record<string, unknown>) => ({ json: { ...legacyBase, ...extra } });
const reqCheck = (check: Record<string, unknown>, exe: Record<string, unknown> = {}) =>
  legacyWith({ actions: [{ act: 'req', exe: { url: 'https://api.example/', ...exe }, ...check }] });

const legacyCases = (): BadInputCase[] => [
  ...credentialCases(importLegacy(FRESH_TICKET), { json: legacyBase }, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...importLegacy(id), input, body: { json: legacyBase }, expect: refused('ticket_id') })),
  ...bodyShapeCases(importLegacy(PLAIN), REGISTRATION_BODY, legacyBase, 'description'),
  ...missingFieldCases(importLegacy(PLAIN), legacyBase, ['actions'], false),
  ...wrongValueCases(importLegacy(PLAIN), legacyBase, { rules_version: [1, 3, '2', true, {}], 'condition.data': [{}, 'a=1'] }, false),
  { ...importLegacy(PLAIN), input: 'both data and body rows', body: legacyWith({ condition: { data: [], body: [] } }), expect: refused('condition.data') },
  {
    ...importLegacy(PLAIN),
    input: '${result} in a Then chain',
    body: reqCheck({}, { actions: [{ act: 'resp', exe: { body: '${result}' } }] }),
    expect: refused('actions[0].exe.actions[0].exe.body'),
  },
  {
    ...importLegacy(PLAIN),
    input: 'a req check given as condition and match',
    body: reqCheck({ condition: [], match: [] }),
    expect: refused('actions[0].match'),
  },
  { ...importLegacy(PLAIN), input: 'a req check that is not a list', body: reqCheck({ condition: { key: 'a' } }), expect: refused('actions[0].condition') },
  {
    ...importLegacy(PLAIN),
    input: 'a req check reading the request',
    body: reqCheck({ condition: [{ key: 'a', operator: '=', value: '${body[a]}' }] }),
    expect: refused('actions[0].condition[0].value'),
  },
  {
    ...importLegacy(PLAIN),
    input: 'a request condition without url',
    body: legacyWith({ condition: { request: {} } }),
    expect: refused('condition.request.url'),
  },
  {
    ...importLegacy(PLAIN),
    input: 'a request condition with an ftp url',
    body: legacyWith({ condition: { request: { url: 'ftp://files.example/' } } }),
    expect: refused('condition.request.url'),
  },
  {
    ...importLegacy(PLAIN),
    input: 'a request condition with an unknown field',
    body: legacyWith({ condition: { request: { url: 'https://api.example/', retry: true } } }),
    expect: refused('condition.request.retry'),
  },
  {
    ...importLegacy(PLAIN),
    input: 'a request condition naming a missing secret key',
    body: legacyWith({ condition: { request: { url: 'https://api.example/', secretName: 'nope' } } }),
    expect: refused('condition.request.secretName'),
  },
];

// --- delete ---

const remove = (ticketId: PathParam): Target => ({ route: `DELETE ${P}/tickets/{ticket_id}`, params: { ticket_id: ticketId }, auth: 'owner' });
const noSuchTicket = { status: 404, code: 'TICKET_NOT_FOUND' } as const;

const deleteCases = (): BadInputCase[] => [
  ...credentialCases(remove(PLAIN), undefined, OWNER_ROUTE_CREDENTIALS),
  // An id that cannot be a ticket id is refused before any ticket object is touched: 'plain' keeps its definition and count.
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...remove(id), input, expect: invalidParameter('ticket_id', true) })),
  { ...remove(PLAIN.toUpperCase()), input: "an existing ticket's id in upper case", expect: noSuchTicket },
];

// --- getTickets ---

const list: Target = { route: `GET ${P}/tickets`, auth: 'owner' };
const unauthorized = { status: 401, code: 'UNAUTHORIZED' } as const;
const authRequired = { status: 401, code: 'AUTH_REQUIRED' } as const;
/** Listing accepts the owner key or an id token; a credential that does not verify is AUTH_REQUIRED (src/http/auth.ts resolveCaller). */
const LISTING_CREDENTIALS = [
  { auth: 'none', input: 'no credential', expect: unauthorized },
  { auth: 'empty-bearer', input: 'an empty Bearer credential', expect: unauthorized },
  { auth: 'wrong-owner-key', input: 'an owner key no project has', expect: authRequired },
  { auth: 'other-owner', input: "another project's owner key", expect: authRequired },
  { auth: 'malformed', input: 'a malformed token', expect: authRequired },
  { auth: 'control-chars', input: 'a credential with control characters', expect: authRequired },
  { auth: 'other-user', input: "an id token of another project's user", expect: authRequired },
  { auth: 'operator', input: 'the operator token', expect: authRequired },
] as const;

const badTime = (field: 'from' | 'to') => invalidParameter(field, true);
const logQuery = (extra: string) => `ticket_id=${encodeURIComponent(`#${PLAIN}#`)}&${extra}`;

const listCases = (): BadInputCase[] => [
  ...credentialCases(list, undefined, LISTING_CREDENTIALS),
  ...pagingCases(list),
  ...pagingCases(list, logQuery('from=0'))
    .filter((c) => c.expect.field === 'limit')
    .map((c) => ({ ...c, input: `${c.input} on a log listing` })),
  ...[
    ['yesterday', 'a word'],
    ['-1', 'a negative number'],
    ['1.5', 'a fraction'],
    ['1'.repeat(17), '17 digits'],
    [encodeURIComponent(fullwidth('1700000000000')), 'fullwidth digits'],
    ['1700000000000%00', 'a NUL character'],
  ].flatMap(([value, words]): BadInputCase[] => [
    { ...list, input: `a log listing "from" of ${words}`, query: logQuery(`from=${value}`), expect: badTime('from') },
    { ...list, input: `a log listing "to" of ${words}`, query: logQuery(`to=${value}`), expect: badTime('to') },
  ]),
  { ...list, input: '"to" before "from"', query: logQuery('from=2000&to=1000'), expect: { ...badTime('to'), message: '"to" is before "from".' } },
  { ...list, input: '"from" on a listing of tickets', query: 'from=1000', expect: badTime('from') },
  ...[
    ['', 'empty'],
    ['OK', 'in upper case'],
    ['dry%20run', 'the label "dry run" instead of check'],
    ['ok,failed', 'two outcomes in one'],
    [encodeURIComponent(fullwidth('ok')), 'in fullwidth letters'],
    ['ok%00', 'with a NUL character'],
  ].map(
    ([value, words]): BadInputCase => ({
      ...list,
      input: `a log listing "outcome" ${words}`,
      query: logQuery(`outcome=${value}`),
      expect: invalidParameter('outcome', true),
    }),
  ),
  { ...list, input: '"outcome" on a listing of tickets', query: 'outcome=ok', expect: invalidParameter('outcome', true) },
  {
    ...list,
    input: '"outcome" on a listing of action rows',
    query: `ticket_id=${encodeURIComponent(`@${PLAIN}#abc#`)}&outcome=failed`,
    expect: invalidParameter('outcome', true),
  },
  ...[
    [`#${PLAIN}`, 'a log id without its closing #'],
    [`#${fullwidth(PLAIN)}#`, 'a log id of a fullwidth ticket id'],
    [`#${cyrillic(PLAIN)}#`, 'a log id of a ticket id with a Cyrillic lookalike letter'],
    [`#pl\u0000ain#`, 'a log id with a NUL character'],
    [`@${PLAIN}#not an id#`, 'an action-rows id whose consume id has spaces'],
    [`@${PLAIN}#abc`, 'an action-rows id without its closing #'],
  ].map(([id, input]): BadInputCase => ({ ...list, input, query: `ticket_id=${encodeURIComponent(id)}`, expect: invalidParameter('ticket_id', true) })),
  // A signed-in user may not read logs (spec 4.2: 'Invalid ticket id.').
  ...[`#${PLAIN}#`, `@${PLAIN}#abc#`, `${PLAIN}#`].map(
    (id): BadInputCase => ({
      ...list,
      auth: 'user',
      input: `a signed-in user asking for "${id}"`,
      query: `ticket_id=${encodeURIComponent(id)}`,
      expect: { status: 400, code: 'INVALID_REQUEST', message: 'Invalid ticket id.' },
    }),
  ),
  // Ids that only look like a log id or a ticket's id name no ticket: an empty list, no log rows.
  ...[
    [`${fullwidth('#')}${PLAIN}${fullwidth('#')}`, "a log id written with fullwidth '＃'"],
    [fullwidth(PLAIN), "an existing ticket's id in fullwidth letters"],
    [cyrillic(PLAIN), "an existing ticket's id with a Cyrillic lookalike letter"],
    ['t'.repeat(10_000), 'a ticket id of 10,000 characters'],
  ].flatMap(([id, input]): BadInputCase[] =>
    (['owner', 'user'] as const).map((auth) => ({
      ...list,
      auth,
      input: `${input}, asked by the ${auth === 'owner' ? 'owner' : 'signed-in user'}`,
      query: `ticket_id=${encodeURIComponent(id)}`,
      expect: { status: 200, json: { list: [], endOfList: true } },
    })),
  ),
  ignoredQueryKeysCase(list, { list: expect.arrayContaining([expect.objectContaining({ ticket_id: PLAIN, count: 5 })]) }),
];

// --- clearTicketLog ---

const clearLog = (ticketId: PathParam): Target => ({ route: `POST ${P}/tickets/{ticket_id}/clear-log`, params: { ticket_id: ticketId }, auth: 'owner' });

const clearLogCases = (): BadInputCase[] => [
  ...credentialCases(clearLog(PLAIN), { json: {} }, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...clearLog(id), input, body: { json: {} }, expect: invalidParameter('ticket_id', true) })),
  ...bodyShapeCases(clearLog(PLAIN), { ...PLATFORM_BODY, emptyIsValid: true }, { before: 1_000 }, 'before'),
  ...wrongValueCases(clearLog(PLAIN), { before: 1_000 }, { before: ['yesterday', '1700000000000', -1, 1.5, true, [], {}] }, true),
];

// --- getConsumedTickets ---

const consumed: Target = { route: `GET ${P}/consumed`, auth: 'user' };

const consumedCases = (): BadInputCase[] => [
  ...credentialCases(consumed, undefined, LISTING_CREDENTIALS),
  ...pagingCases(consumed),
  ...BAD_TICKET_ID_TEXTS.map(
    ([id, input]): BadInputCase => ({ ...consumed, input, query: `ticket_id=${encodeURIComponent(id)}`, expect: invalidParameter('ticket_id', true) }),
  ),
  {
    ...consumed,
    input: '10,000 query keys around a ticket id of 65 characters',
    query: `${tenThousandKeys}&ticket_id=${'t'.repeat(65)}`,
    expect: invalidParameter('ticket_id', true),
  },
  ignoredQueryKeysCase(consumed, { list: [], endOfList: true }),
];

// --- one ticket, plan, check ---

const getOne = (ticketId: PathParam): Target => ({ route: `GET ${P}/tickets/{ticket_id}`, params: { ticket_id: ticketId }, auth: 'owner' });
const plan = (ticketId: PathParam): Target => ({ route: `POST ${P}/tickets/{ticket_id}/plan`, params: { ticket_id: ticketId }, auth: 'owner' });
const check = (ticketId: PathParam): Target => ({ route: `POST ${P}/tickets/{ticket_id}/check`, params: { ticket_id: ticketId }, auth: 'owner' });
const sample = { method: 'POST', headers: { 'x-a': 'b' }, body: { q: 1 }, query: { q: '1' }, ip: '203.0.113.9' };

const oneTicketCases = (): BadInputCase[] => [
  ...credentialCases(getOne(PLAIN), undefined, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...getOne(id), input, expect: invalidParameter('ticket_id', true) })),
];

// --- a ticket's flood counts (issue 26 item 6) ---

const flood = (ticketId: PathParam): Target => ({ route: `GET ${P}/tickets/{ticket_id}/flood`, params: { ticket_id: ticketId }, auth: 'owner' });

const floodCases = (): BadInputCase[] => [
  ...credentialCases(flood(PLAIN), undefined, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...flood(id), input, expect: invalidParameter('ticket_id', true) })),
  ...['yesterday', '-1', '1.5', '1e3', '', '9'.repeat(30), 'true'].map(
    (from): BadInputCase => ({
      ...flood(PLAIN),
      input: `from=${JSON.stringify(from)}`,
      query: `from=${encodeURIComponent(from)}`,
      expect: invalidParameter('from', true),
    }),
  ),
  ignoredQueryKeysCase(flood(PLAIN), { ticket_id: PLAIN, minutes: [] }),
];

// --- a ticket's scheduled and given-up jobs (issue 33) ---

const jobs = (ticketId: PathParam): Target => ({ route: `GET ${P}/tickets/{ticket_id}/jobs`, params: { ticket_id: ticketId }, auth: 'owner' });

const jobCases = (): BadInputCase[] => [
  ...credentialCases(jobs(PLAIN), undefined, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...jobs(id), input, expect: invalidParameter('ticket_id', true) })),
  ignoredQueryKeysCase(jobs(PLAIN), { ticket_id: PLAIN, scheduled: [], dead: [] }),
];

const planCases = (): BadInputCase[] => [
  ...credentialCases(plan(PLAIN), { json: ticketBase }, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...plan(id), input, body: { json: ticketBase }, expect: refused('ticket_id') })),
  ...bodyShapeCases(plan(PLAIN), REGISTRATION_BODY, ticketBase, 'description'),
  ...missingFieldCases(plan(PLAIN), ticketBase, ['actions'], false),
  ...wrongValueCases(
    plan(PLAIN),
    ticketBase,
    { count: ['three', -1], 'condition.method': ['PUT'], 'condition.signature.secretName': [described('no-such-key', 'naming no secret key')] },
    false,
  ),
];

const checkCases = (): BadInputCase[] => [
  ...credentialCases(check(PLAIN), { json: sample }, OWNER_ROUTE_CREDENTIALS),
  ...BAD_TICKET_IDS.map(([id, input]): BadInputCase => ({ ...check(id), input, body: { json: sample }, expect: invalidParameter('ticket_id', true) })),
  ...bodyShapeCases(check(PLAIN), { ...PLATFORM_BODY, emptyIsValid: true }, sample, 'body'),
  ...wrongValueCases(
    check(PLAIN),
    sample,
    {
      method: ['PUT', 'post', 1, described(fullwidth('POST'), 'in fullwidth letters')],
      headers: ['x-a: b', [], described({ 'x a': 'b' }, 'with a space in a header name', 'headers.x a')],
      'headers.x-a': [1, null, described('b\r\nx-b: c', 'with a line break')],
      query: ['q=1', []],
      'query.q': [1, null, described([1], 'as a list of numbers')],
      user_id: [5, '', described('no-such-user', 'naming no project user')],
      ip: ['localhost', '999.1.1.1', 1, described('10.0.0.1\n', 'with a line break')],
    },
    true,
  ),
  { ...check(PLAIN), input: 'a GET sample with a body', body: { json: { method: 'GET', body: 'x' } }, expect: invalidParameter('body', true) },
  {
    ...check(PLAIN),
    input: 'a sample carrying X-Svc-Ticket',
    body: { json: { headers: { 'X-Svc-Ticket': 'x' } } },
    expect: invalidParameter('headers.x-svc-ticket', true),
  },
];

// --- recheck and replay of a logged consumption ---

const replayTargets = (consumeId: PathParam, ticketId: PathParam = PLAIN): Target[] =>
  (['recheck', 'replay', 'signature'] as const).map((action) => ({
    route: `POST ${P}/tickets/{ticket_id}/log/{consume_id}/${action}`,
    params: { ticket_id: ticketId, consume_id: consumeId },
    auth: 'owner',
  }));

const replayCases = (): BadInputCase[] =>
  replayTargets('aaaaaaaa').flatMap((target): BadInputCase[] => [
    ...credentialCases(target, undefined, OWNER_ROUTE_CREDENTIALS),
    ...BAD_TICKET_IDS.map(
      ([id, input]): BadInputCase => ({ ...target, params: { ...target.params, ticket_id: id }, input, expect: invalidParameter('ticket_id', true) }),
    ),
    ...[
      ['not an id', 'a consume id with spaces'],
      ['a'.repeat(33), 'a consume id of 33 characters'],
      [`${'a'.repeat(6)}#`, 'a consume id with #'],
      [fullwidth('aaaaaaaa'), 'a consume id in fullwidth letters'],
    ].map(([id, input]): BadInputCase => ({ ...target, params: { ...target.params, consume_id: id }, input, expect: invalidParameter('consume_id', true) })),
    { ...target, input: 'a consume id the log does not have', expect: { status: 404, code: 'NOT_FOUND' } },
  ]);

/** The signature diagnosis also reads a body: { secretName? }, refused before the log is read. */
const diagnosisTarget: Target = {
  route: `POST ${P}/tickets/{ticket_id}/log/{consume_id}/signature`,
  params: { ticket_id: PLAIN, consume_id: 'aaaaaaaa' },
  auth: 'owner',
};
const diagnosisCases = (): BadInputCase[] => [
  ...bodyShapeCases(diagnosisTarget, { ...PLATFORM_BODY, emptyIsValid: true }, { secretName: SECRET }, 'secretName'),
  ...wrongValueCases(diagnosisTarget, { secretName: SECRET }, { secretName: [1, '', null, described('k'.repeat(129), 'of 129 characters')] }, true),
];

/** Scheme inference from a captured request: { secretName, headers, method?, url?, body?, received_at? }. */
const presetMatch: Target = { route: `POST ${P}/signature-presets/match`, auth: 'owner' };
const captured = { secretName: SECRET, headers: { 'x-hub-signature-256': 'sha256=00' }, body: '{}', url: 'https://hooks.example.com/x', received_at: 1_000 };
const presetMatchCases = (): BadInputCase[] => [
  ...credentialCases(presetMatch, { json: captured }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(presetMatch, PLATFORM_BODY, captured, 'headers'),
  ...missingFieldCases(presetMatch, captured, ['secretName', 'headers'], true),
  ...wrongValueCases(
    presetMatch,
    captured,
    {
      secretName: [1, '', described('no-such-key', 'naming no secret key')],
      method: ['PUT', 'post'],
      url: ['hooks.example.com/x', 'ftp://h/x', 1],
      headers: ['x: y', [], described({ 'x a': 'b' }, 'with a space in a header name', 'headers.x a')],
      'headers.x-hub-signature-256': [1, described('a\r\nb: c', 'with a line break')],
      body: [{ a: 1 }, described('x'.repeat(65_537), 'over 64 KiB')],
      received_at: [-1, 1.5, '1000'],
    },
    true,
  ),
];

/** The valid requests the cases above each break in one way (controls.test.ts checks they are accepted). */
export const ticketControls = (): BadInputCase[] => [
  { ...register(PLAIN), input: 'a valid replacement', body: { json: ticketBase }, expect: { status: 200 } },
  { ...list, input: 'a page of tickets', query: 'limit=5', expect: { status: 200 } },
  { ...list, input: 'a page of the log', query: logQuery('from=0&to=2000&limit=5'), expect: { status: 200 } },
  { ...list, input: 'a page of the failed rows of the log', query: logQuery('outcome=failed&limit=5'), expect: { status: 200 } },
  { ...list, auth: 'user', input: 'the tickets, signed in', query: `ticket_id=${PLAIN}`, expect: { status: 200 } },
  { ...clearLog(PLAIN), input: 'a valid clear', body: { json: { before: 1_000 } }, expect: { status: 200 } },
  { ...consumed, input: "the user's consumptions", query: `ticket_id=${PLAIN}&limit=5`, expect: { status: 200 } },
  { ...getOne(PLAIN), input: 'the ticket', expect: { status: 200 } },
  { ...plan(PLAIN), input: 'a valid plan', body: { json: ticketBase }, expect: { status: 200 } },
  { ...check(PLAIN), input: 'a valid sample', body: { json: sample }, expect: { status: 200 } },
  { ...presetMatch, input: 'a captured request', body: { json: captured }, expect: { status: 200 } },
  { ...remove(PLAIN), input: 'the ticket', expect: { status: 200 } },
];

export const ticketCases = (): BadInputCase[] => [
  ...registerCases(),
  ...legacyCases(),
  ...deleteCases(),
  ...listCases(),
  ...clearLogCases(),
  ...consumedCases(),
  ...oneTicketCases(),
  ...floodCases(),
  ...jobCases(),
  ...planCases(),
  ...checkCases(),
  ...replayCases(),
  ...diagnosisCases(),
  ...presetMatchCases(),
];
