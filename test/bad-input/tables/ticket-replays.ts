/**
 * A ticket's dead letters and bulk replays (issue 36 items 3 and 4, extensions): owner key only; ids of no
 * ticket, consumption or replay; every filter and member with a wrong value; a bulk replay's body of the
 * wrong shape, of 10 million ids, or of a range past the bound.
 */
import { bodyShapeCases, described, missingFieldCases, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { pagingCases } from '../params';
import { TICKETS } from '../world';
import { PLATFORM_BODY } from './platform-body';

const P = '/v1/projects/{service_id}';
const PLAIN = TICKETS.plain;
const EMPTY = { status: 200, json: { list: [], startKey: null, endOfList: true } };

const deadLetters: Target = { route: `GET ${P}/tickets/{ticket_id}/dead-letters`, params: { ticket_id: PLAIN }, auth: 'owner' };
const replayOne: Target = {
  route: `POST ${P}/tickets/{ticket_id}/dead-letters/{consume_id}/replay`,
  params: { ticket_id: PLAIN, consume_id: 'aaaaaaaa' },
  auth: 'owner',
};
const deleteOne: Target = {
  route: `DELETE ${P}/tickets/{ticket_id}/dead-letters/{consume_id}`,
  params: { ticket_id: PLAIN, consume_id: 'aaaaaaaa' },
  auth: 'owner',
};
const start: Target = { route: `POST ${P}/tickets/{ticket_id}/replays`, params: { ticket_id: PLAIN }, auth: 'owner' };
const list: Target = { route: `GET ${P}/tickets/{ticket_id}/replays`, params: { ticket_id: PLAIN }, auth: 'owner' };
const one: Target = { route: `GET ${P}/tickets/{ticket_id}/replays/{replay_id}`, params: { ticket_id: PLAIN, replay_id: '999999' }, auth: 'owner' };
const cancel: Target = { route: `POST ${P}/tickets/{ticket_id}/replays/{replay_id}/cancel`, params: { ticket_id: PLAIN, replay_id: '999999' }, auth: 'owner' };

const NOT_FOUND = { status: 404, code: 'NOT_FOUND' } as const;
const badConsumeIds = (target: Target): BadInputCase[] =>
  [
    ['not an id', 'a consume id with spaces'],
    ['a'.repeat(33), 'a consume id of 33 characters'],
  ].map(([id, input]): BadInputCase => ({ ...target, params: { ...target.params, consume_id: id }, input, expect: invalidParameter('consume_id', true) }));
const badReplayIds = (target: Target): BadInputCase[] =>
  [
    ['abc', 'a replay id that is not a number'],
    ['-1', 'a negative replay id'],
    ['1.5', 'a fractional replay id'],
    ['9'.repeat(16), 'a replay id of 16 digits'],
  ].map(([id, input]): BadInputCase => ({ ...target, params: { ...target.params, replay_id: id }, input, expect: invalidParameter('replay_id', true) }));

const deadLetterCases = (): BadInputCase[] => {
  const bad = (input: string, query: string, field: string): BadInputCase => ({ ...deadLetters, input, query, expect: invalidParameter(field, true) });
  return [
    ...credentialCases(deadLetters, undefined, OWNER_ROUTE_CREDENTIALS),
    bad('an unknown reason', 'reason=gone', 'reason'),
    bad('a from that is not a number', 'from=yesterday', 'from'),
    bad('a to before from', 'from=2000&to=1000', 'to'),
    bad('a caller (forwarding dead letters have one, a ticket not)', 'caller=u1', 'caller'),
    ...pagingCases(deadLetters),
    { ...deadLetters, input: 'a ticket without dead letters', expect: EMPTY },
    ...credentialCases(replayOne, undefined, OWNER_ROUTE_CREDENTIALS),
    ...badConsumeIds(replayOne),
    ...wrongValueCases(replayOne, {}, { full: ['yes', 1, null] }, true),
    { ...replayOne, input: 'a consumption that is not a dead letter', expect: NOT_FOUND },
    ...credentialCases(deleteOne, undefined, OWNER_ROUTE_CREDENTIALS),
    ...badConsumeIds(deleteOne),
    { ...deleteOne, input: 'a consumption that is not a dead letter', expect: NOT_FOUND },
  ];
};

const valid = { filter: {}, dry_run: true };
const replayCases = (): BadInputCase[] => [
  ...credentialCases(start, { json: valid }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(start, PLATFORM_BODY, valid, 'filter'),
  ...missingFieldCases(start, valid, ['filter'], true),
  ...wrongValueCases(
    start,
    valid,
    {
      filter: ['all', [], null],
      'filter.outcome': ['check', 'FAILED'],
      'filter.code': ['lower', '', 1, described('A'.repeat(65), 'of 65 characters')],
      'filter.from': [-1, 1.5, '0', described(9e18, 'past the year 275,000')],
      'filter.to': [-1, 'now'],
      'filter.consume_ids': [
        [],
        'abcdef',
        described(['../etc'], 'with a path', 'filter.consume_ids[0]'),
        described(
          Array.from({ length: 1_001 }, (_, i) => `abcde${i}`),
          'of 1,001 ids',
        ),
      ],
      'filter.dead_letters': ['yes'],
      per_minute: [0, 601, 1.5, '60'],
      full: ['yes'],
      dry_run: [1],
    },
    true,
  ),
  { ...start, input: 'a to before from', body: { json: { filter: { from: 2_000, to: 1_000 }, dry_run: true } }, expect: invalidParameter('filter.to', true) },
  {
    ...start,
    input: 'dead letters filtered by outcome',
    body: { json: { filter: { dead_letters: true, outcome: 'ok' }, dry_run: true } },
    expect: invalidParameter('filter.outcome', true),
  },
  { ...start, input: 'an unknown filter key', body: { json: { filter: { bogus: 1 }, dry_run: true } }, expect: invalidParameter('filter.bogus', true) },
  {
    ...start,
    params: { ticket_id: 'no-such-ticket' },
    input: 'a ticket that does not exist',
    body: { json: valid },
    expect: { status: 404, code: 'TICKET_NOT_FOUND' },
  },
  ...credentialCases(list, undefined, OWNER_ROUTE_CREDENTIALS),
  ...credentialCases(one, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badReplayIds(one),
  { ...one, input: 'a replay id of no replay', expect: NOT_FOUND },
  ...credentialCases(cancel, undefined, OWNER_ROUTE_CREDENTIALS),
  ...badReplayIds(cancel),
  { ...cancel, input: 'cancelling a replay id of no replay', expect: NOT_FOUND },
];

/** The valid requests the cases above each break in one way. */
export const ticketReplayControls = (): BadInputCase[] => [
  { ...deadLetters, input: 'the dead letters', query: 'reason=timeout&limit=5', expect: { status: 200 } },
  {
    ...start,
    input: 'a dry run of a filter',
    body: { json: { filter: { outcome: 'any', code: 'REQUEST_FAILED', from: 0, to: 1_000 }, dry_run: true } },
    expect: { status: 200 },
  },
  { ...list, input: 'the replays', expect: { status: 200 } },
];

export const ticketReplayCases = (): BadInputCase[] => [...deadLetterCases(), ...replayCases()];
