/**
 * The event inspector's search of a ticket's log and one consumption in full (issue 37 item 4, extensions):
 * owner key only; unknown query keys; inverted, non-integer or negative times (a huge range is fine: pages
 * bound the work); a `where` that escapes its path; `equals` over 1,000 characters or without `where`; an
 * unknown outcome; a code in lower case; paging; log keys that are malformed or of no entry.
 */
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { pagingCases } from '../params';
import { TICKETS } from '../world';

const P = '/v1/projects/{service_id}';
const PLAIN = TICKETS.plain;
const search: Target = { route: `GET ${P}/tickets/{ticket_id}/events`, params: { ticket_id: PLAIN }, auth: 'owner' };
const one: Target = { route: `GET ${P}/tickets/{ticket_id}/events/{log_key}`, params: { ticket_id: PLAIN, log_key: 'aaaaaaaa' }, auth: 'owner' };

const searchCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...search, input, query, expect: invalidParameter(field, true) });
  const badWhere = (input: string, where: string): BadInputCase => bad(input, `where=${encodeURIComponent(where)}&equals=x`, 'where');
  return [
    ...credentialCases(search, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('an unknown query key', 'colour=red', 'colour'),
    bad('an unknown outcome', 'outcome=succeeded', 'outcome'),
    bad('an outcome in upper case', 'outcome=OK', 'outcome'),
    bad('a code in lower case', 'code=action_failed', 'code'),
    bad('an empty code', 'code=', 'code'),
    bad('a code of 65 characters', `code=${'A'.repeat(65)}`, 'code'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a negative from', 'from=-1', 'from'),
    bad('a fractional to', 'to=1.5', 'to'),
    bad('a to of 16 digits', `to=${'9'.repeat(16)}`, 'to'),
    bad('a to before from (an inverted range)', 'from=2000&to=1000', 'to'),
    badWhere('a where that climbs out of its root', 'body..a'),
    badWhere('a where reaching the prototype', 'body.__proto__'),
    badWhere('a where reaching a constructor', 'body.a.constructor'),
    badWhere('a where in brackets', 'body["a"]'),
    badWhere('a where with quotes', "body.'a'"),
    badWhere('a where with a $', 'body.$where'),
    badWhere('a where of a JSONPath', '$.body.a'),
    badWhere('a where rooted elsewhere', 'description.outcome'),
    badWhere('a where of the root alone', 'body'),
    badWhere('a where 11 deep', `body.${Array.from({ length: 11 }, (_, i) => `k${i}`).join('.')}`),
    badWhere('a where of a header with a second segment', 'headers.x-a.b'),
    badWhere('a where with a slash', 'body.a/b'),
    badWhere('a where with a space', 'body.a b'),
    badWhere('a where with a segment of 65 characters', `body.${'a'.repeat(65)}`),
    bad('equals over 1,000 characters', `where=body.a&equals=${'x'.repeat(1_001)}`, 'equals'),
    bad('where without equals', 'where=body.a', 'equals'),
    bad('equals without where', 'equals=pi_1', 'where'),
    ...pagingCases(search),
    {
      ...search,
      input: 'a huge time range (pages bound the work)',
      query: `from=0&to=${'9'.repeat(15)}`,
      expect: { status: 200, json: { list: [], startKey: null, endOfList: true, scanned_to: null } },
    },
  ];
};

const oneCases = (): BadInputCase[] => [
  ...credentialCases(one, undefined, OWNER_ROUTE_CREDENTIALS),
  ...[
    ['not a key', 'a log key with spaces'],
    ['a'.repeat(33), 'a log key of 33 characters'],
    ['aaaaaaaa:XYZ', 'a log key with another suffix than :CHK'],
    ['../aaaaaaaa', 'a log key with a path'],
  ].map(([key, input]): BadInputCase => ({ ...one, params: { ...one.params, log_key: key }, input, expect: invalidParameter('log_key', true) })),
  { ...one, input: 'a log key of no entry', expect: { status: 404, code: 'NOT_FOUND' } },
  { ...one, input: "a dry run's log key of no entry", params: { ...one.params, log_key: 'aaaaaaaa:CHK' }, expect: { status: 404, code: 'NOT_FOUND' } },
];

/** The valid requests the cases above each break in one way. */
export const ticketEventControls = (): BadInputCase[] => [
  {
    ...search,
    input: 'a search by outcome, code, time and a body value',
    query: 'outcome=failed&code=ACTION_FAILED&from=0&to=1000&where=body.data.object.id&equals=pi_1&limit=5',
    expect: { status: 200 },
  },
];

export const ticketEventCases = (): BadInputCase[] => [...searchCases(), ...oneCases()];
