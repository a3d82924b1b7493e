/**
 * The event inspector's search of the forwarding history (issue 37 item 4, an extension): owner key only;
 * unknown keys; inverted or malformed times; an unknown status class; a lower-case error code; a destination
 * that is not an origin; a `where` that escapes its path or names the query; `equals` over 1,000 characters.
 */
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { pagingCases } from '../params';

const P = '/v1/projects/{service_id}';
const search: Target = { route: `GET ${P}/forward/events`, auth: 'owner' };

export const forwardEventCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...search, input, query, expect: invalidParameter(field, true) });
  const badWhere = (input: string, where: string): BadInputCase => bad(input, `where=${encodeURIComponent(where)}&equals=x`, 'where');
  return [
    ...credentialCases(search, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('an unknown query key', 'colour=red', 'colour'),
    bad('an unknown status class', 'status_class=2XX', 'status_class'),
    bad('a status code instead of a class', 'status_class=200', 'status_class'),
    bad('an error code in lower case', 'error_code=request_failed', 'error_code'),
    bad('a destination with a path', `destination=${encodeURIComponent('https://a.example/hook')}`, 'destination'),
    bad('a destination without a scheme', 'destination=a.example', 'destination'),
    bad('a destination with a quote', `destination=${encodeURIComponent("https://a.example'")}`, 'destination'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a negative from', 'from=-1', 'from'),
    bad('a to before from', 'from=2000&to=1000', 'to'),
    bad('an empty caller', 'caller=', 'caller'),
    badWhere('a where reaching the prototype', 'body.__proto__'),
    badWhere('a where in brackets', 'body["a"]'),
    badWhere('a where with a $', 'body.$a'),
    badWhere('a where that climbs out', 'body..a'),
    badWhere('a where on the query (a forwarded request has none to search)', 'query.k'),
    badWhere('a where 11 deep', `body.${Array.from({ length: 11 }, (_, i) => `k${i}`).join('.')}`),
    bad('equals over 1,000 characters', `where=body.a&equals=${'x'.repeat(1_001)}`, 'equals'),
    bad('where without equals', 'where=body.a', 'equals'),
    bad('equals without where', 'equals=x', 'where'),
    ...pagingCases(search),
    {
      ...search,
      input: 'a huge time range',
      query: `from=0&to=${'9'.repeat(15)}`,
      expect: { status: 200, json: { list: [], startKey: null, endOfList: true } },
    },
  ];
};

/** The valid request the cases above each break in one way. */
export const forwardEventControls = (): BadInputCase[] => [
  {
    ...search,
    input: 'a search by status class, code, destination, time and a body value',
    query: 'status_class=5xx&error_code=REQUEST_FAILED&destination=https%3A%2F%2Fa.example&from=0&to=1000&where=body.a&equals=1&limit=5',
    expect: { status: 200 },
  },
];
