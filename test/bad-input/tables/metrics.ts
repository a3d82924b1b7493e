/**
 * Metrics over time (issue 37 item 1, an extension): owner key only; every query member with a wrong value —
 * an unknown field, an inverted or huge range, a bucket finer than a minute or giving too many points, a
 * range older than what is kept — answers INVALID_PARAMETER naming the field; a range with no data is
 * answered with zeros, not an error.
 */
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { TICKETS } from '../world';

const P = '/v1/projects/{service_id}';
const DAY = 86_400_000;

const project: Target = { route: `GET ${P}/metrics`, params: {}, auth: 'owner' };
const ticket: Target = { route: `GET ${P}/tickets/{ticket_id}/metrics`, params: { ticket_id: TICKETS.plain }, auth: 'owner' };
const forward: Target = { route: `GET ${P}/forward/metrics`, params: {}, auth: 'owner' };

/** The range cases every metrics route shares. */
function rangeCases(target: Target): BadInputCase[] {
  const now = Date.now();
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...target, input, query, expect: invalidParameter(field, true) });
  return [
    ...credentialCases(target, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('an unknown field', 'range=24h', 'range'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a negative from', 'from=-5', 'from'),
    bad('a fractional to', 'to=1.5', 'to'),
    bad('a from of 16 digits', `from=${'9'.repeat(16)}`, 'from'),
    bad('a to before from', `from=${now - 1_000}&to=${now - 60_000}`, 'to'),
    bad('a bucket finer than a minute', 'bucket=30s', 'bucket'),
    bad('a bucket in milliseconds', 'bucket=60000', 'bucket'),
    bad('a range of ten years', `from=${now - 3_650 * DAY}&to=${now}&bucket=1d`, 'from'),
    bad('a range far in the future', `from=${now}&to=${now + 30 * DAY}&bucket=1d`, 'to'),
    bad('a 1m bucket over 2 days of points (at most 1,500 points)', `from=${now - 2 * DAY + 60_000}&to=${now}&bucket=1m`, 'bucket'),
    bad('a 1m bucket over minutes no longer kept', `from=${now - 3 * DAY}&to=${now - 3 * DAY + 3_600_000}&bucket=1m`, 'bucket'),
    bad('a repeated bucket', 'bucket=1h&bucket=1d', 'bucket'),
    bad('a hostile bucket', `bucket=${encodeURIComponent("1h' OR 1=1 --")}`, 'bucket'),
    {
      ...target,
      input: 'a range with no data',
      query: `from=${now - 3 * 3_600_000}&to=${now - 2 * 3_600_000}&bucket=15m`,
      expect: { status: 200 },
    },
  ];
}

export const metricsCases = (): BadInputCase[] => [
  ...rangeCases(project),
  ...rangeCases(ticket),
  { ...ticket, params: { ticket_id: 'not a ticket id' }, input: 'a ticket id with spaces', expect: invalidParameter('ticket_id', true) },
  ...rangeCases(forward),
  { ...forward, input: 'an unknown series kind', query: 'by=caller', expect: invalidParameter('by', true) },
  { ...forward, input: 'a hostile series kind', query: `by=${encodeURIComponent('key:__proto__')}`, expect: invalidParameter('by', true) },
];

/** The valid requests the cases above each break in one way. */
export const metricsControls = (): BadInputCase[] => [
  { ...project, input: "the project's metrics", query: 'bucket=1h', expect: { status: 200 } },
  { ...ticket, input: "a ticket's metrics", query: `from=${Date.now() - 3_600_000}&bucket=1m`, expect: { status: 200 } },
  { ...forward, input: "forwarding's metrics by destination", query: 'by=destination&bucket=1d', expect: { status: 200 } },
];
