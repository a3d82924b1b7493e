/**
 * Request forwarding (dispatch, poll, cancel, withdraw, queue count, history): urls that are not http(s),
 * relative, over 8 KiB or with control characters; methods in the wrong case or unknown; headers with
 * CR/LF/NUL or outside Latin-1, Host, hop-by-hop, x-svc-*; data with GET; multipart with data, with GET or
 * one character over the cap; malformed request addresses; unknown ids. The dispatch cases aim at a path of
 * their own on the loopback server; forward.test.ts checks that nothing arrived there.
 */
import { inject } from 'vitest';
import { MAX_FORWARD_URL, MAX_MULTIPART_CHARS, MAX_QUEUE_NAME } from '../../../schemas/forward-rules';
import { bodyShapeCases, type BodyRules, described, missingFieldCases, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Credential, type Expected, type Target } from '../case';
import { pagingCases } from '../params';
import { SECRET } from '../world';
import { ownerForwardCases } from './forward-owner';
import { PLATFORM_BODY } from './platform-body';

const P = '/v1/projects/{service_id}';
const origin = inject('loopbackOrigin');

/** Where every refused dispatch of the table would have gone. */
export const FORWARD_CASES_PATH = '/echo/bad-input-forward-cases';
/** Where the control dispatch goes (controls.test.ts; a test file of its own, so counts stay apart). */
const FORWARD_CONTROL_PATH = '/echo/bad-input-forward-control';
const url = `${origin}${FORWARD_CASES_PATH}`;

const dispatch: Target = { route: `POST ${P}/forward`, auth: 'none' };
const dispatchBase = { url, method: 'POST', data: { a: 1 }, secretName: SECRET, headers: { authorization: 'Bearer $CLIENT_SECRET' } };
const headerField = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `headers.${name}` : `headers[${JSON.stringify(name)}]`);
const multipart = (base64: string) => ({ content_type: 'multipart/form-data; boundary=xyz', base64 });

/** A dispatch body is refused as a platform body, an unknown field named by the dispatch schema's own words. */
const DISPATCH_BODY: BodyRules = { ...PLATFORM_BODY, unknownField: (field) => invalidParameter(field, true) };

/** Signed-in credentials that are not valid: refused before anything else (a visitor sends none). */
const BAD_CREDENTIALS: Array<[Credential, string, Expected]> = [
  ['malformed', 'a malformed token', { status: 401, code: 'AUTH_REQUIRED' }],
  ['control-chars', 'a credential with control characters', { status: 401, code: 'AUTH_REQUIRED' }],
  ['other-user', "an id token of another project's user", { status: 401, code: 'AUTH_REQUIRED' }],
];

const headerCases = (): BadInputCase[] =>
  (
    [
      ['x-a', 'a\rb', 'a header value with CR'],
      ['x-a', 'a\nb', 'a header value with LF'],
      ['x-a', 'a\u0000b', 'a header value with NUL'],
      ['x-a', 'caf\u00e9 \u20ac', 'a header value outside Latin-1'],
      ['Host', 'evil.example', 'a Host header'],
      ['Connection', 'close', 'a Connection header'],
      ['Keep-Alive', 'timeout=5', 'a Keep-Alive header'],
      ['Transfer-Encoding', 'chunked', 'a Transfer-Encoding header'],
      ['TE', 'trailers', 'a TE header'],
      ['Upgrade', 'websocket', 'an Upgrade header'],
      ['Proxy-Authorization', 'Basic x', 'a Proxy-Authorization header'],
      ['Content-Length', '5', 'a Content-Length header'],
      ['x-svc-user', 'someone', 'an x-svc-user header'],
      ['X-Svc-Service', 'other', 'an X-Svc-Service header (any case)'],
      ['x a', 'v', 'a header name with a space'],
      ['x-a', 'x'.repeat(8193), 'a header value over 8192 characters'],
    ] as const
  ).map(
    ([name, value, input]): BadInputCase => ({
      ...dispatch,
      input,
      body: { json: { ...dispatchBase, headers: { [name]: value } } },
      expect: invalidParameter(headerField(name), true),
    }),
  );

const dispatchCases = (): BadInputCase[] => [
  ...BAD_CREDENTIALS.map(([auth, input, expected]): BadInputCase => ({ ...dispatch, auth, input, body: { json: dispatchBase }, expect: expected })),
  ...bodyShapeCases(dispatch, DISPATCH_BODY, dispatchBase, 'queue').filter((c) => !c.input.startsWith('a body over 1 MiB')),
  {
    ...dispatch,
    input: 'a body over the dispatch cap (2,200,000 bytes)',
    body: { json: { ...dispatchBase, queue: 'x'.repeat(2_200_001) } },
    expect: { ...invalidParameter('body', true), message: /2200000/ },
  },
  ...missingFieldCases(dispatch, dispatchBase, ['url'], true),
  ...wrongValueCases(
    dispatch,
    dispatchBase,
    {
      url: [
        described('ftp://example.com/x', 'not http(s)'),
        described('/echo/relative', 'relative'),
        described('//example.com/x', 'scheme-relative'),
        described('https://', 'without a host'),
        described(`${url}?${'a'.repeat(MAX_FORWARD_URL)}`, 'over 8 KiB'),
        described(`${url}/a\u0001b`, 'with a control character'),
        described(`${url}\r\nx: y`, 'with CR LF'),
        described(`${url}\u0000`, 'with NUL'),
        5,
        null,
      ],
      method: ['get', 'Post', 'OPTIONS', 'TRACE', 'CONNECT', 'FETCH', '', 1],
      headers: ['authorization: x', ['x'], described({ 'x-a': 5 }, 'with a number value', 'headers["x-a"]')],
      params: ['a=1', [1]],
      secretName: ['', described('s'.repeat(65), 'over 64 characters'), 5],
      clientSecretName: ['', 5],
      queue: ['', described('q'.repeat(MAX_QUEUE_NAME + 1), `over ${MAX_QUEUE_NAME} characters`), described('q\u0001', 'with a control character'), 5],
      poll: [-1, '1', true],
      expires: [0, 1.5, described(365 * 24 * 3600 + 1, 'over a year'), '60'],
      svcHeaders: [
        'yes',
        1,
        described({ user: 'yes' }, 'as { user: "yes" }', 'svcHeaders.user'),
        described({ admin: true }, 'with an unknown member', 'svcHeaders.admin'),
      ],
      check: ['yes', 1],
      stream: ['yes', 1, null],
      realtime: ['yes', 1],
    },
    true,
  ),
  ...headerCases(),
  // 1e999 is JSON text, but it parses to Infinity, which JSON.stringify would send on as null.
  {
    ...dispatch,
    input: 'data with a number out of range (1e999)',
    body: `{"url":${JSON.stringify(url)},"data":{"n":[1e999]}}`,
    expect: invalidParameter('data', true),
  },
  {
    ...dispatch,
    input: 'params with a number out of range (-1e999)',
    body: `{"url":${JSON.stringify(url)},"method":"GET","params":{"n":-1e999}}`,
    expect: invalidParameter('params', true),
  },
  { ...dispatch, input: 'data with GET', body: { json: { ...dispatchBase, method: 'GET' } }, expect: invalidParameter('data', true) },
  { ...dispatch, input: 'data with HEAD', body: { json: { ...dispatchBase, method: 'HEAD' } }, expect: invalidParameter('data', true) },
  {
    ...dispatch,
    input: 'data over 1 MiB as JSON',
    body: { json: { ...dispatchBase, data: 'x'.repeat(1_048_577) } },
    expect: invalidParameter('data', true),
  },
  { ...dispatch, input: 'multipart with data', body: { json: { ...dispatchBase, multipart: multipart('AAAA') } }, expect: invalidParameter('multipart', true) },
  {
    ...dispatch,
    input: 'multipart with GET',
    body: { json: { url, method: 'GET', multipart: multipart('AAAA') } },
    expect: invalidParameter('multipart', true),
  },
  {
    ...dispatch,
    input: 'a multipart body one character over the cap',
    body: { json: { url, multipart: multipart('A'.repeat(MAX_MULTIPART_CHARS + 1)) } },
    expect: { ...invalidParameter('multipart', true), message: new RegExp(`${MAX_MULTIPART_CHARS + 1}`) },
  },
  {
    ...dispatch,
    input: 'multipart that is not base64',
    body: { json: { url, multipart: multipart('not base64!') } },
    expect: invalidParameter('multipart.base64', true),
  },
  {
    ...dispatch,
    input: 'multipart with a content type that is not multipart',
    body: { json: { url, multipart: { content_type: 'application/json', base64: 'AAAA' } } },
    expect: invalidParameter('multipart.content_type', true),
  },
  {
    ...dispatch,
    input: 'a url with user info',
    body: { json: { ...dispatchBase, url: url.replace('http://', 'http://name:pw@') } },
    expect: invalidParameter('url', true),
  },
  {
    ...dispatch,
    input: 'an unknown client secret with the token in use',
    body: { json: { ...dispatchBase, secretName: 'no-such-secret' } },
    expect: { status: 400, code: 'INVALID_REQUEST', message: 'No client secret is named "no-such-secret".' },
  },
];

const PUBLIC_ID = '1a:AAAAAAAAAAAAAAAA';
const address = `id=${encodeURIComponent(PUBLIC_ID)}&url=${encodeURIComponent(url)}&method=POST`;

/** A request address that is wrong in one way; `found` answers the address of no request. */
function addressCases(method: 'GET' | 'DELETE' | 'POST', path: string, found: Expected): BadInputCase[] {
  const target: Target = { route: `${method} ${P}/forward/${path}`, auth: 'none' };
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...target, input, query, expect: invalidParameter(field, true) });
  const enc = encodeURIComponent;
  return [
    ...BAD_CREDENTIALS.map(([auth, input, expected]): BadInputCase => ({ ...target, auth, input, query: address, expect: expected })),
    bad('no id', `url=${enc(url)}&method=POST`, 'id'),
    bad('an empty id', `id=&url=${enc(url)}&method=POST`, 'id'),
    bad('an id that is no request id', `id=not-an-id&url=${enc(url)}&method=POST`, 'id'),
    bad('an id of 10,000 characters', `id=${'a'.repeat(10_000)}&url=${enc(url)}&method=POST`, 'id'),
    bad('an id with a NUL character', `id=1a%00:AAAAAAAAAAAAAAAA&url=${enc(url)}&method=POST`, 'id'),
    bad('a public id without url', `id=${enc(PUBLIC_ID)}&method=POST`, 'url'),
    bad('a public id without method', `id=${enc(PUBLIC_ID)}&url=${enc(url)}`, 'method'),
    bad('a method in lower case', `id=${enc(PUBLIC_ID)}&url=${enc(url)}&method=post`, 'method'),
    bad('an unknown method', `id=${enc(PUBLIC_ID)}&url=${enc(url)}&method=OPTIONS`, 'method'),
    bad('a url that is not http(s)', `id=${enc(PUBLIC_ID)}&url=${enc('ftp://example.com/x')}&method=POST`, 'url'),
    bad('a relative url', `id=${enc(PUBLIC_ID)}&url=${enc('/echo/x')}&method=POST`, 'url'),
    bad('a url with a control character', `id=${enc(PUBLIC_ID)}&url=${enc(`${url}\u0001`)}&method=POST`, 'url'),
    bad('a url over 8 KiB', `id=${enc(PUBLIC_ID)}&url=${enc(`${url}?${'a'.repeat(MAX_FORWARD_URL)}`)}&method=POST`, 'url'),
    { ...target, input: 'the address of no request', query: address, expect: found },
    { ...target, input: 'the full id of no request', query: `id=${enc(`POST:${PUBLIC_ID}:${url}`)}`, expect: found },
  ];
}

const NOT_FOUND: Expected = { status: 404, code: 'NOT_FOUND', message: 'Request not found.' };
const NOTHING_REMOVED: Expected = { status: 200, json: { removed: false, message: 'Request not found.' } };

const queue: Target = { route: `GET ${P}/forward/queue`, auth: 'none' };
const historyTarget: Target = { route: `GET ${P}/forward/history`, auth: 'none' };
const historyQuery = `url=${encodeURIComponent(url)}&method=POST`;

const queueCountCases = (): BadInputCase[] => [
  ...BAD_CREDENTIALS.map(([auth, input, expected]): BadInputCase => ({ ...queue, auth, input, query: 'queue=q', expect: expected })),
  { ...queue, input: 'no queue', expect: invalidParameter('queue', true) },
  { ...queue, input: 'an empty queue', query: 'queue=', expect: invalidParameter('queue', true) },
  { ...queue, input: 'a queue no request used', query: 'queue=nothing-here', expect: { status: 200, json: { queue_name: 'nothing-here', in_queue: 0 } } },
  { ...queue, input: 'a queue of 10,000 characters', query: `queue=${'q'.repeat(10_000)}`, expect: invalidParameter('queue', true) },
  { ...queue, input: 'a queue with a NUL character', query: 'queue=q%00', expect: invalidParameter('queue', true) },
];

const historyCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...historyTarget, input, query, expect: invalidParameter(field, true) });
  return [
    ...BAD_CREDENTIALS.map(([auth, input, expected]): BadInputCase => ({ ...historyTarget, auth, input, query: historyQuery, expect: expected })),
    bad('no url', 'method=POST', 'url'),
    bad('no method', `url=${encodeURIComponent(url)}`, 'method'),
    bad('a method in lower case', `url=${encodeURIComponent(url)}&method=post`, 'method'),
    bad('a relative url', 'url=%2Fecho&method=POST', 'url'),
    bad('a url with a control character', `url=${encodeURIComponent(`${url}\u0007`)}&method=POST`, 'url'),
    bad('an unknown status', `${historyQuery}&status=done`, 'status'),
    bad('queue_exact that is not a boolean', `${historyQuery}&queue=a&queue_exact=maybe`, 'queue_exact'),
    bad('compact that is not a boolean', `${historyQuery}&compact=2`, 'compact'),
    bad('an empty queue', `${historyQuery}&queue=`, 'queue'),
    bad('a queue over 128 characters', `${historyQuery}&queue=${'q'.repeat(129)}`, 'queue'),
    bad('a queue_exclude with a NUL character', `${historyQuery}&queue_exclude=q%00`, 'queue_exclude'),
    ...pagingCases(historyTarget, historyQuery),
    { ...historyTarget, input: 'the url of no request', query: historyQuery, expect: { status: 200, json: { list: [], startKey: null, endOfList: true } } },
  ];
};

const finalizeTarget: Target = { route: `POST ${P}/forward/request/finalize`, auth: 'none' };
const finalizeBase = { id: PUBLIC_ID, url, method: 'POST', data: { kept: true } };
const NOT_FINALIZED: Expected = { status: 200, json: { finalized: false, message: 'Request not found.' } };

/** forwardRequestFinalize: its body's shape, its address, and data over the limit (10 MB among them). */
const finalizeCases = (): BadInputCase[] => [
  ...BAD_CREDENTIALS.map(([auth, input, expected]): BadInputCase => ({ ...finalizeTarget, auth, input, body: { json: finalizeBase }, expect: expected })),
  // The body may pass 1 MiB by the address: the data's own limit and the body's cap are checked below.
  ...bodyShapeCases(finalizeTarget, DISPATCH_BODY, finalizeBase, 'data').filter((c) => !c.input.startsWith('a body over 1 MiB')),
  ...missingFieldCases(finalizeTarget, finalizeBase, ['id', 'url', 'method'], true),
  ...wrongValueCases(
    finalizeTarget,
    finalizeBase,
    {
      id: ['', 'not-an-id', described('a'.repeat(10_000), 'of 10,000 characters'), 5],
      url: ['ftp://example.com/x', '/echo/x', described(`${url}\u0001`, 'with a control character'), 5],
      method: ['post', 'OPTIONS', 5],
    },
    true,
  ),
  {
    ...finalizeTarget,
    input: 'data with a number out of range (1e999)',
    body: `{"id":"${PUBLIC_ID}","url":${JSON.stringify(url)},"method":"POST","data":1e999}`,
    expect: invalidParameter('data', true),
  },
  {
    ...finalizeTarget,
    input: 'data over 1 MiB as JSON',
    body: { json: { ...finalizeBase, data: 'x'.repeat(1_048_577) } },
    expect: invalidParameter('data', true),
  },
  {
    ...finalizeTarget,
    input: 'data of 10 MB',
    body: { json: { ...finalizeBase, data: 'x'.repeat(10 * 1024 * 1024) } },
    expect: invalidParameter('body', true),
  },
  { ...finalizeTarget, input: 'the address of no request', body: { json: finalizeBase }, expect: NOT_FINALIZED },
  { ...finalizeTarget, input: 'the full id of no request', body: { json: { id: `POST:${PUBLIC_ID}:${url}`, data: 1 } }, expect: NOT_FINALIZED },
];

/** A poll's cursor: a whole number of 0 or more. */
const sinceCases = (): BadInputCase[] =>
  ['-1', '1.5', 'abc', '', '1e3', '0x10', '9'.repeat(30), '%00'].map(
    (since): BadInputCase => ({
      route: `GET ${P}/forward/request`,
      auth: 'none',
      input: `since ${JSON.stringify(since)}`,
      query: `${address}&since=${since}`,
      expect: invalidParameter('since', true),
    }),
  );

export const forwardCases = (): BadInputCase[] => [
  ...dispatchCases(),
  ...finalizeCases(),
  ...sinceCases(),
  ...addressCases('GET', 'request', NOT_FOUND),
  ...addressCases('DELETE', 'request', NOTHING_REMOVED),
  ...addressCases('POST', 'request/withdraw', NOTHING_REMOVED),
  ...queueCountCases(),
  ...historyCases(),
  ...ownerForwardCases(),
];

/** The valid requests the cases above each break in one way (controls.test.ts checks they are accepted). */
export const forwardControls = (): BadInputCase[] => [
  { ...dispatch, input: 'a valid dispatch', body: { json: { ...dispatchBase, url: `${origin}${FORWARD_CONTROL_PATH}` } }, expect: { status: 200 } },
  { ...dispatch, input: 'a valid dry run', body: { json: { ...dispatchBase, check: true } }, expect: { status: 200 } },
  {
    ...historyTarget,
    input: 'a page of the history',
    query: `${historyQuery}&limit=5&queue=a&queue_exact=true&status=resolved&compact=true`,
    expect: { status: 200 },
  },
  { ...queue, input: 'a queue count', query: 'queue=q', expect: { status: 200 } },
  {
    ...dispatch,
    input: 'a valid streamed dispatch',
    body: { json: { ...dispatchBase, url: `${origin}${FORWARD_CONTROL_PATH}`, stream: true, realtime: true } },
    expect: { status: 200 },
  },
  { ...finalizeTarget, input: 'a valid finalize', body: { json: finalizeBase }, expect: { status: 200 } },
];
