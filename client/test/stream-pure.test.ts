import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cursorAnswerOf, isStatusEnvelope } from '../src/cursor-answers.js';
import { checkFinalizeData, checkStreamReadOptions } from '../src/stream-options.js';
import { StreamSequencer, type StreamDelivery } from '../src/stream-sequencer.js';

const envelope = { id: 'S1:abcdefgh', status: 'running', queue_name: 'q', in_queue: 1, created: 1, updated: 1 };

describe('the sequencer of a streamed read', () => {
  it('hands over pieces in order, each once, naming the transport that brought it first', () => {
    const s = new StreamSequencer(0);
    expect(s.offer(1, 'a', 'socket')).toEqual([{ seq: 1, txt: 'a', via: 'socket' }]);
    expect(s.offer(1, 'a', 'poll')).toEqual([]);
    expect(s.offer(2, 'b', 'poll')).toEqual([{ seq: 2, txt: 'b', via: 'poll' }]);
    expect(s.offer(2, 'b', 'socket')).toEqual([]);
    expect(s.delivered).toBe(2);
  });

  it('holds a piece that arrives ahead of a gap until the gap is filled, then hands over the run', () => {
    const s = new StreamSequencer(0);
    expect(s.offer(3, 'c', 'socket')).toEqual([]);
    expect(s.offer(4, 'd', 'socket')).toEqual([]);
    expect(s.waiting).toBe(true);
    expect(s.offer(1, 'a', 'poll')).toEqual([{ seq: 1, txt: 'a', via: 'poll' }]);
    expect(s.waiting).toBe(true);
    // The poll brings 2, 3 and 4: 3 and 4 were the socket's first.
    const run = [...s.offer(2, 'b', 'poll'), ...s.offer(3, 'c', 'poll'), ...s.offer(4, 'd', 'poll')];
    expect(run).toEqual([
      { seq: 2, txt: 'b', via: 'poll' },
      { seq: 3, txt: 'c', via: 'socket' },
      { seq: 4, txt: 'd', via: 'socket' },
    ]);
    expect(s.waiting).toBe(false);
    expect(s.delivered).toBe(4);
  });

  it('starts after `since`: earlier pieces are skipped, a held duplicate keeps its first arrival, a seq that is not a whole number is ignored', () => {
    const s = new StreamSequencer(5);
    expect(s.offer(5, 'old', 'poll')).toEqual([]);
    expect(s.offer(7, 'g', 'socket')).toEqual([]);
    expect(s.offer(7, 'g', 'poll')).toEqual([]);
    expect(s.offer(6.5, 'x', 'socket')).toEqual([]);
    expect(s.offer(6, 'f', 'poll').map((d) => [d.seq, d.via])).toEqual([
      [6, 'poll'],
      [7, 'socket'],
    ]);
  });

  it('whatever the arrival order and duplication, every seq after since comes out once, in order (seeded)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 200 }),
        (since, n, noise) => {
          const s = new StreamSequencer(since);
          const out: StreamDelivery[] = [];
          // Socket pieces in a scrambled order with repeats, then the poll's full in-order pass.
          for (const [pick, socket] of noise) if (socket) out.push(...s.offer(since + 1 + (pick % n), `t${since + 1 + (pick % n)}`, 'socket'));
          for (let seq = since + 1; seq <= since + n; seq++) out.push(...s.offer(seq, `t${seq}`, 'poll'));
          expect(out.map((d) => d.seq)).toEqual(Array.from({ length: n }, (_, i) => since + 1 + i));
          expect(out.every((d) => d.txt === `t${d.seq}`)).toBe(true);
          expect(s.waiting).toBe(false);
        },
      ),
      { seed: 12, numRuns: 300 },
    );
  });
});

describe('the answer of a poll with a cursor', () => {
  it('a value without status, id and in_queue together is a finalized body, even with a status of its own', () => {
    expect(isStatusEnvelope(envelope)).toBe(true);
    for (const body of [{ status: 'resolved', id: 'x' }, { id: 'x', in_queue: 0 }, { status: 'ok', in_queue: 1 }, 'text', null, 3, [envelope]]) {
      expect(isStatusEnvelope(body)).toBe(false);
      expect(cursorAnswerOf(body)).toEqual({ kind: 'finalized', body });
    }
  });

  it('tells a capped page (read again at once), a degraded read (nothing learnt) and a caught-up read apart', () => {
    const chunk = { seq: 3, txt: 'c' };
    expect(cursorAnswerOf({ ...envelope, stream: true, chunks: [chunk], last_seq: 3, more: true })).toMatchObject({
      kind: 'stream',
      chunks: [chunk],
      next: 'page',
    });
    expect(cursorAnswerOf({ ...envelope, stream: true, chunks: [], last_seq: 2, more: true })).toMatchObject({ kind: 'stream', chunks: [], next: 'degraded' });
    expect(cursorAnswerOf({ ...envelope, stream: true, chunks: [chunk], last_seq: 3, more: false })).toMatchObject({ kind: 'stream', next: 'caught-up' });
  });

  it('a request sent without stream is plain; the envelope never keeps the page fields', () => {
    const answer = cursorAnswerOf({ ...envelope, stream: false, chunks: [], last_seq: 0, more: false });
    expect(answer).toEqual({ kind: 'plain', envelope });
    const streamed = cursorAnswerOf({
      ...envelope,
      stream: true,
      chunks: [
        { seq: 1, txt: 'a' },
        { seq: 'x', txt: 'b' },
      ],
      last_seq: 1,
      more: false,
    });
    expect(streamed).toEqual({ kind: 'stream', envelope, chunks: [{ seq: 1, txt: 'a' }], next: 'caught-up' });
  });
});

describe('forwardRequestStream and forwardRequestFinalize options', () => {
  it('defaults: since 0, poll 1000 ms', () => {
    expect(checkStreamReadOptions(undefined)).toMatchObject({ since: 0, poll: 1000, location: {} });
  });

  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ['a negative since', { since: -1 }, 'since: must be a whole number, 0 or more.'],
    ['a fractional since', { since: 1.5 }, 'since: must be a whole number, 0 or more.'],
    ['a since that is text', { since: '3' }, 'since: must be a whole number, 0 or more.'],
    ['an infinite poll', { poll: Infinity }, 'poll: must be a finite number of ms.'],
    ['a negative poll', { poll: -5 }, 'poll: must not be negative.'],
    ['onStream that is not a function', { onStream: 'print' }, 'onStream: must be a function.'],
    ['a made-up realtimeGroup', { realtimeGroup: 'room-1' }, "realtimeGroup: must be the dispatch reply's realtime_group (22 letters and digits)."],
    ['a misspelt option', { onstream: () => 1 }, 'onstream: is not an option of forwardRequestStream.'],
  ];
  for (const [what, options, message] of refusals) {
    it(`${what} is INVALID_PARAMETER`, () => {
      expect(() => checkStreamReadOptions(options)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', message }));
    });
  }

  it('finalize data: absent keeps null, JSON is sent as given, the rest is refused', () => {
    expect(checkFinalizeData(undefined)).toBeNull();
    expect(checkFinalizeData({ status: 'mine' })).toEqual({ status: 'mine' });
    const notJson = 'data: must be JSON-serializable (no cycles, BigInt, functions, NaN or Infinity).';
    expect(() => checkFinalizeData({ n: 1n })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', message: notJson }));
    // JSON.stringify would write these as null: the kept version would not be what the page kept.
    expect(() => checkFinalizeData({ n: Infinity })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', message: notJson }));
    expect(() => checkFinalizeData([NaN])).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', message: notJson }));
    expect(() => checkFinalizeData('é'.repeat(524_288))).toThrow(expect.objectContaining({ message: 'data: must be at most 1048576 bytes as JSON.' }));
    expect(checkFinalizeData('é'.repeat(524_286))).toHaveLength(524_286);
  });
});
