/**
 * The consume routes of spec 4.1. A request the platform refuses (service, ticket id, X-Svc-Ticket,
 * body or query too big or too deep, a signed-in GET) answers before the ticket is read and leaves
 * no log row; a request that reaches the ticket and fails its checks or condition is logged as one
 * failed consumption (spec 2.6), and never uses up a count.
 */
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_QUERY_KEYS } from '../../../src/limits';
import { BROKEN_ESCAPES, type BadInputCase, type Credential, type Expected, type PathParam, type Target } from '../case';
import { LOOKALIKES, cyrillic, deepArray, deepObject, deepUnder, fullwidth, nul, overMiB, oversizeUnder, rtl, tenThousandKeys, zeroWidth } from '../payloads';
import { TICKETS } from '../world';

interface ConsumeRoute {
  method: 'GET' | 'POST';
  path: string;
  /** Signed-in: an id token identifies the consumer. */
  signed: boolean;
  /** The dry run: logged as a check. */
  check: boolean;
  /** The older long form, with the owner id in the path. */
  long: boolean;
}

const ROUTES: ConsumeRoute[] = [
  { method: 'POST', path: '/tp/{service_id}/{ticket_id}', signed: false, check: false, long: false },
  { method: 'GET', path: '/tg/{service_id}/{ticket_id}', signed: false, check: false, long: false },
  { method: 'POST', path: '/tpa/{service_id}/{ticket_id}', signed: true, check: false, long: false },
  { method: 'GET', path: '/tpa/{service_id}/{ticket_id}', signed: true, check: false, long: false },
  { method: 'GET', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', signed: false, check: true, long: true },
  { method: 'POST', path: '/publ/check/{service_id}/{owner_id}/{ticket_id}', signed: false, check: true, long: true },
  { method: 'GET', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', signed: false, check: false, long: true },
  { method: 'POST', path: '/publ/consume/{service_id}/{owner_id}/{ticket_id}', signed: false, check: false, long: true },
  { method: 'POST', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', signed: true, check: false, long: true },
  { method: 'GET', path: '/auth/consume/{service_id}/{owner_id}/{ticket_id}', signed: true, check: false, long: true },
];

const refusedAtTicket = (code: Expected['code'], message?: string | RegExp): Expected => ({
  status: 400,
  code,
  stage: 'ticket',
  ...(message === undefined ? {} : { message }),
});
const noService = refusedAtTicket('INVALID_SERVICE');
const noTicket = refusedAtTicket('TICKET_NOT_FOUND', 'The ticket does not exist.');
const tooDeep = refusedAtTicket('INVALID_REQUEST', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
const tooBig = refusedAtTicket('INVALID_REQUEST', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
const tooManyKeys = refusedAtTicket('INVALID_REQUEST', `The query string has more than ${MAX_QUERY_KEYS} keys.`);
const postOnly = refusedAtTicket('INVALID_PARAMETER', 'Signed-in consumption is POST only.');

/** What a route refuses before it reads the ticket: each case leaves no log row. */
function platformCases(route: ConsumeRoute): BadInputCase[] {
  const target: Target = {
    route: `${route.method} ${route.path}`,
    params: { ticket_id: TICKETS.plain },
    auth: route.signed ? 'user' : 'none',
  };
  const body = route.method === 'POST' ? { body: { json: {} } } : {};
  if (route.signed && route.method === 'GET') {
    return [
      { ...target, input: 'a signed-in GET', expect: postOnly },
      { ...target, input: 'a signed-in GET with 10,000 query keys', query: tenThousandKeys, expect: postOnly },
    ];
  }
  const cases: BadInputCase[] = [
    ...LOOKALIKES.map(
      ([transform, words]): BadInputCase => ({
        ...target,
        ...body,
        input: `the project's service id ${words}`,
        params: { ...target.params, service_id: (w) => transform(w.project.service_id) },
        expect: noService,
      }),
    ),
    {
      ...target,
      ...body,
      input: 'the service id in upper case',
      params: { ...target.params, service_id: (w) => w.project.service_id.toUpperCase() },
      expect: noService,
    },
    { ...target, ...body, input: 'a service id of 10,000 characters', params: { ...target.params, service_id: 's'.repeat(10_000) }, expect: noService },
    ...BROKEN_ESCAPES.map(
      ([id, words]): BadInputCase => ({
        ...target,
        ...body,
        input: `a service id with ${words}`,
        params: { ...target.params, service_id: id },
        expect: noService,
      }),
    ),
    ...[
      ...LOOKALIKES.map(([transform, words]): [PathParam, string] => [transform(TICKETS.plain), `an existing ticket's id ${words}`]),
      [`${fullwidth('#')}${TICKETS.plain}`, "an id starting with a fullwidth '＃'"],
      [`#${TICKETS.plain}`, 'an id starting with #'],
      [`!${TICKETS.plain}`, 'an id starting with !'],
      [TICKETS.plain.toUpperCase(), "an existing ticket's id in upper case"],
      [`${TICKETS.plain} `, "an existing ticket's id with a trailing space"],
      ['t'.repeat(65), 'an id of 65 characters'],
      ['t'.repeat(10_000), 'an id of 10,000 characters'],
      ...BROKEN_ESCAPES.map(([id, words]): [PathParam, string] => [id, `an id with ${words}`]),
    ].map(([id, input]): BadInputCase => ({ ...target, ...body, input, params: { ...target.params, ticket_id: id }, expect: noTicket })),
    { ...target, ...body, input: 'an X-Svc-Ticket header', headers: { 'x-svc-ticket': TICKETS.plain }, expect: refusedAtTicket('INVALID_REQUEST') },
    {
      ...target,
      ...body,
      input: 'an X-Svc-Ticket header holding control characters',
      headers: { 'x-svc-ticket': '\u0001\u007f' },
      expect: refusedAtTicket('INVALID_REQUEST'),
    },
    { ...target, ...body, input: `10,000 query keys (more than ${MAX_QUERY_KEYS})`, query: tenThousandKeys, expect: tooManyKeys },
  ];
  if (route.long) {
    cases.push(
      ...LOOKALIKES.map(
        ([transform, words]): BadInputCase => ({
          ...target,
          ...body,
          input: `the owner id ${words}`,
          params: { ...target.params, owner_id: (w) => transform(w.project.owner_id) },
          expect: noTicket,
        }),
      ),
      { ...target, ...body, input: "another project's owner id", params: { ...target.params, owner_id: (w) => w.other.owner_id }, expect: noTicket },
    );
  }
  if (route.method === 'POST') {
    cases.push(
      { ...target, input: 'a body nested 100,000 levels deep (arrays)', body: deepArray, expect: tooDeep },
      { ...target, input: 'a body nested 100,000 levels deep (objects)', body: deepObject, expect: tooDeep },
      { ...target, input: 'a body field nested 100,000 levels deep', body: deepUnder('order'), expect: tooDeep },
      { ...target, input: `a body of ${MAX_BODY_BYTES + 1} bytes (not JSON)`, body: overMiB, expect: tooBig },
      { ...target, input: 'a JSON body over 1 MiB', body: oversizeUnder('order'), expect: tooBig },
      // The ticket is not read, so its return200 does not apply.
      { ...target, input: 'a deep body on a return200 ticket', params: { ticket_id: TICKETS.quiet }, body: deepArray, expect: tooDeep },
    );
  }
  return cases;
}

const conditionFailed = (field: string, keys: string[], status = 400): Expected => ({
  status,
  code: 'CONDITION_FAILED',
  stage: 'condition',
  detail: { field, keys },
});

/** Bodies that are not `{ order: 'A1' }`, however close: the guarded ticket's body row fails. */
const BAD_BODIES: Array<[string, BadInputCase['body']]> = [
  ['a body that is not valid JSON (read as text)', '{"order": "A1"'],
  ['an empty body', ''],
  ['a JSON array body', { json: [{ order: 'A1' }] }],
  ['a JSON string body', { json: 'A1' }],
  ['a JSON number body', '1'],
  ['a JSON null body', 'null'],
  ['"order" as the number 1', { json: { order: 1 } }],
  ['"order" as a list', { json: { order: ['A1'] } }],
  ['"order" as null', { json: { order: null } }],
  ['"order" as an object', { json: { order: { A1: true } } }],
  ['"order" as a boolean', { json: { order: true } }],
  ['"order" in fullwidth letters', { json: { order: fullwidth('A1') } }],
  ['"order" with a Cyrillic lookalike letter', { json: { order: cyrillic('A1') } }],
  ['"order" with a right-to-left override', { json: { order: rtl('A1') } }],
  ['"order" with a zero-width space', { json: { order: zeroWidth('A1') } }],
  ['"order" with a NUL character', { json: { order: nul('A1') } }],
  ['the key "order" with a Cyrillic lookalike letter', { json: { [cyrillic('order')]: 'A1' } }],
  ['"order" nested 64 levels deep (within the limit)', { json: { order: JSON.parse('['.repeat(63) + '"A1"' + ']'.repeat(63)) } }],
];

/** Query strings that are not `order=A1`, however close: the lookup ticket's params row fails. */
const BAD_QUERIES: Array<[string, string]> = [
  ['no query string', ''],
  ['"order" as the number 1', 'order=1'],
  ['"order" given twice (a list)', 'order=A1&order=A1'],
  ['"order" in fullwidth letters', `order=${encodeURIComponent(fullwidth('A1'))}`],
  ['"order" with a Cyrillic lookalike letter', `order=${encodeURIComponent(cyrillic('A1'))}`],
  ['"order" with a right-to-left override', `order=${encodeURIComponent(rtl('A1'))}`],
  ['"order" with a NUL character', 'order=A%001'],
  ['"order" with a broken percent escape', 'order=A1%ZZ'],
  ['the key "order" with a Cyrillic lookalike letter', `${encodeURIComponent(cyrillic('order'))}=A1`],
  ['"order" nested 100,000 levels deep (kept as text)', `order=${encodeURIComponent(deepArray)}`],
];

/**
 * Headers that are not `x-token: letmein`: the guarded ticket's header row fails first. (Surrounding
 * whitespace is not among them: HTTP strips it. Non-ASCII header values are left to the body cases.)
 */
const BAD_HEADERS: Array<[string, Record<string, string>]> = [
  ['no x-token header', {}],
  ['an x-token with a control character', { 'x-token': 'let\u0001me\u007fin' }],
  ['an x-token with a tab inside', { 'x-token': 'let\tmein' }],
  ['an x-token in upper case', { 'x-token': 'LETMEIN' }],
  ['two x-token headers (read as one joined value)', { 'x-token': 'letmein, letmein' }],
];

const GOOD_HEADERS = { 'x-token': 'letmein' };

/** What reaches the ticket and fails its condition: one failed log row, the count unchanged. */
function conditionCases(route: ConsumeRoute): BadInputCase[] {
  if (route.signed && route.method === 'GET') return [];
  const auth: Credential = route.signed ? 'user' : 'none';
  const base = { route: `${route.method} ${route.path}`, auth };
  const logged = (ticket: string) => ({ logged: { ticket, code: 'CONDITION_FAILED' as const, check: route.check } });
  if (route.method === 'GET') {
    return BAD_QUERIES.map(
      ([input, query]): BadInputCase => ({
        ...base,
        params: { ticket_id: TICKETS.lookup },
        input,
        ...(query ? { query } : {}),
        expect: conditionFailed('params', ['order']),
        trace: logged(TICKETS.lookup),
      }),
    );
  }
  return [
    ...BAD_BODIES.map(
      ([input, body]): BadInputCase => ({
        ...base,
        params: { ticket_id: TICKETS.guarded },
        input,
        headers: GOOD_HEADERS,
        body,
        expect: conditionFailed('body', ['order']),
        trace: logged(TICKETS.guarded),
      }),
    ),
    ...BAD_HEADERS.map(
      ([input, headers]): BadInputCase => ({
        ...base,
        params: { ticket_id: TICKETS.guarded },
        input,
        headers,
        body: { json: { order: 'A1' } },
        expect: conditionFailed('headers', ['x-token']),
        trace: logged(TICKETS.guarded),
      }),
    ),
    {
      ...base,
      params: { ticket_id: TICKETS.quiet },
      input: 'a body that is not valid JSON on a return200 ticket',
      body: '{"order": ',
      expect: conditionFailed('body', ['order'], 200),
      trace: logged(TICKETS.quiet),
    },
  ];
}

const authRequired = refusedAtTicket('AUTH_REQUIRED');

/** Credentials a signed-in route refuses once the ticket is read: logged, like every consumption of a ticket. */
const SIGNED_IN_CREDENTIALS: Array<[Credential, string, Expected]> = [
  ['none', 'no credential', authRequired],
  ['empty-bearer', 'an empty Bearer credential', authRequired],
  ['malformed', 'a malformed token', authRequired],
  ['control-chars', 'a credential with control characters', authRequired],
  ['other-user', "an id token of another project's user", authRequired],
  ['wrong-owner-key', 'an owner key no project has', authRequired],
  ['other-owner', "another project's owner key", authRequired],
  ['operator', 'the operator token', authRequired],
  ['owner', "the project owner's key (the issuer)", refusedAtTicket('ISSUER_CANNOT_CONSUME')],
];

function credentialCases(route: ConsumeRoute): BadInputCase[] {
  if (!route.signed || route.method === 'GET') return [];
  return SIGNED_IN_CREDENTIALS.map(([auth, input, expected]) => ({
    route: `${route.method} ${route.path}`,
    params: { ticket_id: TICKETS.plain },
    auth,
    input,
    body: { json: {} },
    expect: expected,
    trace: { logged: { ticket: TICKETS.plain, code: expected.code! } },
  }));
}

export const consumeCases = (): BadInputCase[] => ROUTES.flatMap((route) => [...platformCases(route), ...conditionCases(route), ...credentialCases(route)]);

/** The valid consumptions the cases above each break in one way (controls.test.ts checks they are accepted). */
export const consumeControls = (): BadInputCase[] =>
  ROUTES.filter((route) => !(route.signed && route.method === 'GET')).flatMap((route): BadInputCase[] => {
    const base = { route: `${route.method} ${route.path}`, auth: (route.signed ? 'user' : 'none') as Credential, expect: { status: 200 } };
    if (route.method === 'GET') return [{ ...base, input: 'order=A1', params: { ticket_id: TICKETS.lookup }, query: 'order=A1' }];
    return [
      { ...base, input: 'the guarded ticket', params: { ticket_id: TICKETS.guarded }, headers: GOOD_HEADERS, body: { json: { order: 'A1' } } },
      { ...base, input: 'the plain ticket', params: { ticket_id: TICKETS.plain }, body: { json: {} } },
    ];
  });
