import { describe, expect, it } from 'vitest';
import { mergeLegacyPage, type LegacyEntry } from './legacy-log';
import type { LogListingRow } from './log-rows';

const listed = (log_key: string, timestamp: number): LogListingRow => ({
  ticket_id: 'T',
  log_key,
  consume_id: log_key,
  user_id: 'u',
  is_check: 0,
  failed: 0,
  timestamp,
  description: '{}',
  action_facts: '[]',
  request: null,
  replay_of: null,
});

const old = (log_key: string, timestamp: number): LegacyEntry => ({
  row: {
    service_id: 's',
    ticket_id: 'T',
    log_key,
    consume_id: log_key,
    user_id: 'u',
    signed: false,
    is_check: false,
    failed: false,
    code: null,
    timestamp,
    description: {},
  },
  actions: [],
});

describe('a log page merged with D1 rows not yet taken in', () => {
  it('without old rows the page is as read', () => {
    const rows = [listed('b', 2), listed('a', 1)];
    expect(mergeLegacyPage('T', rows, [], 1)).toBe(rows);
  });

  it('newest first (ties by log key, descending), a row in both kept once, cut to the page size', () => {
    const rows = [listed('c', 3), listed('a', 1)];
    const merged = mergeLegacyPage('T', rows, [old('c', 3), old('b', 3), old('d', 2)], 3);
    expect(merged.map((r) => [r.log_key, r.timestamp])).toEqual([
      ['c', 3],
      ['b', 3],
      ['d', 2],
    ]);
    expect(merged[0]).toBe(rows[0]);
  });
});
