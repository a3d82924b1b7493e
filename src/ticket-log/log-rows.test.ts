import { describe, expect, it } from 'vitest';
import { parseTicketsQuery, parseTimeRange } from './listing-query';
import { summarizeRetries, toActionListingRow, toOwnerLogRow } from './log-rows';

describe('getTickets ticket_id forms', () => {
  it('a plain id lists tickets, "#t#" the log, "@t#cid#" the action rows', () => {
    expect(parseTicketsQuery(undefined, false)).toEqual({ kind: 'tickets' });
    expect(parseTicketsQuery('abc', false)).toEqual({ kind: 'tickets', ticket_id: 'abc' });
    expect(parseTicketsQuery('#abc#', true)).toEqual({ kind: 'log', ticket_id: 'abc' });
    expect(parseTicketsQuery('@abc#0aZ9#', true)).toEqual({ kind: 'actions', ticket_id: 'abc', consume_id: '0aZ9' });
  });

  it("a dry run's log key ('<consume_id>:CHK') is accepted in the action-row id", () => {
    expect(parseTicketsQuery('@abc#0aZ9:CHK#', true)).toEqual({ kind: 'actions', ticket_id: 'abc', consume_id: '0aZ9' });
  });

  it('a non-owner id with # or @ is INVALID_REQUEST whatever its form', () => {
    for (const id of ['#abc#', '@abc#x#', 'a@b', '#']) expect(() => parseTicketsQuery(id, false)).toThrow('Invalid ticket id.');
  });

  it('from and to default to the whole time line; equal bounds are allowed', () => {
    expect(parseTimeRange(undefined, undefined)).toEqual({ from: 0, to: Number.MAX_SAFE_INTEGER, given: false });
    expect(parseTimeRange('5', '5')).toEqual({ from: 5, to: 5, given: true });
    expect(() => parseTimeRange('6', '5')).toThrow('"to" is before "from".');
  });
});

describe('retry facts of log rows', () => {
  it('attempts is the most tries of any action; retried and warning come from the action rows', () => {
    expect(summarizeRetries({}, [])).toEqual({ attempts: 1, retried: false });
    expect(summarizeRetries({}, [{ attempts: 1 }, { attempts: 3, retried: 1 }])).toEqual({ attempts: 3, retried: true });
    expect(summarizeRetries({}, [{ path: 'actions[2]', warning: 'not counted' }])).toEqual({ attempts: 1, retried: false, warning: 'actions[2]: not counted' });
  });

  it('facts written on the consumption description win over the action rows', () => {
    expect(summarizeRetries({ attempts: 2, retried: true, warning: 'w' }, [{ attempts: 4 }])).toEqual({ attempts: 2, retried: true, warning: 'w' });
  });

  it('unusable attempts values count as one try', () => {
    expect(summarizeRetries({}, [{ attempts: 'x' }, { attempts: 0 }, { attempts: 2.5 }])).toEqual({ attempts: 1, retried: false });
  });

  it('an owner row carries failed and check only when true', () => {
    const base = { ticket_id: 't', log_key: 'k', consume_id: 'k', user_id: 'u', is_check: 0, failed: 0, timestamp: 1, description: '{}' };
    expect(toOwnerLogRow(base, [])).toEqual({
      ticket_id: 't',
      consume_id: 'k',
      log_key: 'k',
      user_id: 'u',
      is_test: false,
      timestamp: 1,
      description: '{}',
      attempts: 1,
    });
    expect(toOwnerLogRow({ ...base, failed: 1, is_check: 1, log_key: 'k:CHK' }, [])).toMatchObject({ failed: true, check: true, log_key: 'k:CHK' });
  });

  it('an action row with unreadable detail still lists, with attempts 1', () => {
    const row = toActionListingRow({ ticket_id: 't', consume_id: 'c', seq: 0, path: 'actions[0]', act: 'req', detail: 'not json', timestamp: 1 });
    expect(row).toMatchObject({ attempts: 1, description: 'not json' });
    expect('retried' in row).toBe(false);
  });
});
