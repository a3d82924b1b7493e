/**
 * The owner's forwarding history (issue 15): owner key only; every filter with a wrong value; unknown query
 * keys; paging; request ids that are malformed, of no request, or broken escapes. The dead letters and the
 * paused destinations (issue 36 extensions) the same way.
 */
import { invalidParameter, BROKEN_ESCAPES, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { pagingCases } from '../params';

const P = '/v1/projects/{service_id}';
const listing: Target = { route: `GET ${P}/forward/requests`, auth: 'owner' };
const one: Target = { route: `GET ${P}/forward/requests/{id}`, params: { id: '1a:AAAAAAAAAAAAAAAA' }, auth: 'owner' };
const EMPTY = { status: 200, json: { list: [], startKey: null, endOfList: true } };

const listingCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...listing, input, query, expect: invalidParameter(field, true) });
  return [
    ...credentialCases(listing, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('a relative url', 'url=%2Fecho', 'url'),
    bad('a url with a control character', `url=${encodeURIComponent('https://a.example/\u0007')}`, 'url'),
    bad('a method in lower case', 'method=post', 'method'),
    bad('an unknown method', 'method=OPTIONS', 'method'),
    bad('an unknown status', 'status=done', 'status'),
    bad('an empty caller', 'caller=', 'caller'),
    bad('a caller with a control character', 'caller=u%01x', 'caller'),
    bad('a caller of 257 characters', `caller=${'u'.repeat(257)}`, 'caller'),
    bad('queue_exact that is not a boolean', 'queue=a&queue_exact=maybe', 'queue_exact'),
    bad('stream that is not a boolean', 'stream=2', 'stream'),
    bad('compact that is not a boolean', 'compact=yes%00', 'compact'),
    bad('an empty queue', 'queue=', 'queue'),
    bad('a queue_exclude with a NUL character', 'queue_exclude=q%00', 'queue_exclude'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a negative from', 'from=-1', 'from'),
    bad('a fractional to', 'to=1.5', 'to'),
    bad('a to of 16 digits', `to=${'9'.repeat(16)}`, 'to'),
    bad('a to before from', 'from=2000&to=1000', 'to'),
    bad('an unknown query key', 'colour=red', 'colour'),
    ...pagingCases(listing),
    { ...listing, input: 'a caller who made no request', query: 'caller=visitor%3Anobody', expect: EMPTY },
    { ...listing, input: 'a time range in the far future', query: `from=${'9'.repeat(15)}`, expect: EMPTY },
  ];
};

const idCases = (): BadInputCase[] => {
  const id = (input: string, raw: string): BadInputCase => ({ ...one, input, params: { id: raw }, expect: invalidParameter('id', true) });
  return [
    ...credentialCases(one, undefined, OWNER_ROUTE_CREDENTIALS),
    id('an id that is neither a public nor a full id', 'not-an-id'),
    id('a full id with a lower-case method', 'post:1a:AAAAAAAAAAAAAAAA:https://a.example/'),
    id('a full id with an ftp url', 'POST:1a:AAAAAAAAAAAAAAAA:ftp://a.example/'),
    id('an id of 10,000 characters', 'a'.repeat(10_000)),
    ...BROKEN_ESCAPES.map(
      ([raw, words]): BadInputCase => ({ ...one, input: `an id with ${words}`, params: { id: raw }, expect: invalidParameter('id', true) }),
    ),
    { ...one, input: 'the public id of no request', expect: { status: 404, code: 'NOT_FOUND' } },
    {
      ...one,
      input: 'the full id of no request',
      params: { id: 'GET:1a:AAAAAAAAAAAAAAAA:https://a.example/x?y=1' },
      expect: { status: 404, code: 'NOT_FOUND' },
    },
  ];
};

const deadLetters: Target = { route: `GET ${P}/forward/dead-letters`, auth: 'owner' };
const destinations: Target = { route: `GET ${P}/destinations`, auth: 'owner' };

const deadLetterCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...deadLetters, input, query, expect: invalidParameter(field, true) });
  return [
    ...credentialCases(deadLetters, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('an unknown reason', 'reason=gone', 'reason'),
    bad('a reason in upper case', 'reason=TIMEOUT', 'reason'),
    bad('an empty caller', 'caller=', 'caller'),
    bad('a caller with a control character', 'caller=u%01x', 'caller'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a to before from', 'from=2000&to=1000', 'to'),
    bad('a status filter (the history has one, the dead letters not)', 'status=failed', 'status'),
    ...pagingCases(deadLetters),
    { ...deadLetters, input: 'a caller who made no request', query: 'caller=visitor%3Anobody', expect: EMPTY },
  ];
};

const destinationCases = (): BadInputCase[] => [
  ...credentialCases(destinations, undefined, OWNER_ROUTE_CREDENTIALS),
  { ...destinations, input: 'a project whose destinations never failed', expect: { status: 200, json: { list: [] } } },
];

export const ownerForwardCases = (): BadInputCase[] => [...listingCases(), ...idCases(), ...deadLetterCases(), ...destinationCases()];
