import { describe, expect, it } from 'vitest';
import { consumeAnswer } from '../src/answers.js';
import { SvcError } from '../src/errors.js';
import { RequestLimiter } from '../src/limiter.js';
import { toQueryString } from '../src/query.js';
import { consumeIdTime, receiptOf } from '../src/receipt.js';
import { bodyOf, reshape } from '../src/responses.js';
import { retryAfterMs, withJitter } from '../src/retry.js';

describe('receipt from the wire body { tkid, hash }', () => {
  it('splits tkid #<ticket_id>#<consume_id>#<consumer> and decodes the timestamp from the base62 consume_id', () => {
    // 'VVrda3v' is base62 of 1_790_000_000_123 (the server's receipt test value); 'x1Yz' the random part.
    expect(consumeIdTime('VVrda3vx1Yz')).toBe(1_790_000_000_123);
    expect(receiptOf({ tkid: '#t1#VVrda3vx1Yz#203.0.113.9(curl/8)', hash: 'ab' })).toEqual({
      ticket_id: 't1',
      consume_id: 'VVrda3vx1Yz',
      user_id: '203.0.113.9(curl/8)',
      is_test: false,
      timestamp: 1_790_000_000_123,
      hash: 'ab',
    });
  });

  it('keeps a # inside the consumer (a user agent may hold one)', () => {
    expect(receiptOf({ tkid: '#t#VVrda3vx1Yz#1.2.3.4(agent #2)', hash: 'h' })?.user_id).toBe('1.2.3.4(agent #2)');
  });

  it('a body that is not a receipt is not turned into one', () => {
    for (const body of [{ greeting: 'hi' }, { tkid: 'plain text', hash: 'h' }, { tkid: '#t#VVrda3vx1Yz#c' }, [1], 'text', null]) {
      expect(receiptOf(body)).toBeNull();
    }
  });
});

describe('GET data as a query string the server reads back as given', () => {
  const readBack = (query: string) =>
    Object.fromEntries(
      [...new URLSearchParams(query)].map(([k, v]) => {
        try {
          return [k, v === '' ? '' : JSON.parse(v)];
        } catch {
          return [k, v];
        }
      }),
    );

  it('numbers, booleans, null, arrays and objects are sent as JSON; strings keep their type', () => {
    const data = { qty: 2, gift: true, note: null, tags: ['a', 1], box: { w: 3 }, name: 'bob smith', code: '2', flag: 'true', empty: '', quoted: '"x"' };
    const query = toQueryString(data);
    expect(query.startsWith('?')).toBe(true);
    expect(readBack(query)).toEqual(data);
  });

  it('undefined values are left out and no data is no query string', () => {
    expect(toQueryString({ a: undefined })).toBe('');
    expect(toQueryString(undefined)).toBe('');
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates as ms, and nothing else', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0')).toBe(0);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('the wait is the server wait plus a bounded jitter', () => {
    expect(withJitter(2000, 0)).toBe(2000);
    expect(withJitter(2000, 0.999)).toBeLessThan(2000 + 250 + 200);
    expect(withJitter(2000, 0.5)).toBeGreaterThan(2000);
  });
});

describe('request batch', () => {
  it('runs at most size tasks at once and the rest in call order', async () => {
    const limiter = new RequestLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const gates: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((n) =>
      limiter.run(async () => {
        started.push(n);
        peak = Math.max(peak, ++running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return n;
      }),
    );
    while ((await Promise.race([Promise.all(tasks).then(() => true), new Promise((r) => setTimeout(() => r(false), 5))])) === false) {
      gates.shift()?.();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('consumption answers without a body', () => {
  const answer = (status: number, text: string, contentType = '') => ({ status, text, contentType, headers: new Headers() });
  const thrown = (run: () => unknown): SvcError => {
    try {
      run();
    } catch (err) {
      expect(err).toBeInstanceOf(SvcError);
      return err as SvcError;
    }
    throw new Error('expected a throw');
  };

  it('no body on 204, 205 or 304 (a resp status that answers without one) is a success that resolves undefined', () => {
    for (const status of [204, 205, 304]) {
      expect(consumeAnswer(answer(status, ''))).toBeUndefined();
      expect(consumeAnswer(answer(status, '', 'application/json'))).toBeUndefined();
    }
  });

  it('an empty body on any other status is INVALID_RESPONSE naming the status, not a success', () => {
    for (const status of [200, 201, 202, 400, 502]) {
      const err = thrown(() => consumeAnswer(answer(status, '', 'application/json')));
      expect(err).toMatchObject({ code: 'INVALID_RESPONSE', status });
      expect(err.message).toContain(`answered ${status} with an empty body`);
    }
  });

  it('a resp body of JSON null resolves null, distinguishable from no body', () => {
    expect(consumeAnswer(answer(200, 'null', 'application/json'))).toBeNull();
    expect(consumeAnswer(answer(402, 'null', 'application/json'))).toBeNull();
  });
});

describe('responseType (spec 4.3)', () => {
  it("'text' stringifies a value that is not a string; 'json' parses a string and hands it back unchanged when it does not parse; absent, as it is", () => {
    expect(reshape({ a: 1 }, 'text')).toBe('{"a":1}');
    expect(reshape(null, 'text')).toBe('null');
    expect(reshape('already', 'text')).toBe('already');
    expect(reshape('{"a":1}', 'json')).toEqual({ a: 1 });
    expect(reshape('not json', 'json')).toBe('not json');
    expect(reshape({ a: 1 }, 'json')).toEqual({ a: 1 });
    expect(reshape('{"a":1}', undefined)).toBe('{"a":1}');
  });

  it("a direct body is JSON when it parses, else its text; 'text' keeps the text exactly", () => {
    expect(bodyOf('{ "a": 1 }', undefined)).toEqual({ a: 1 });
    expect(bodyOf('hello', undefined)).toBe('hello');
    expect(bodyOf('', undefined)).toBe('');
    expect(bodyOf('{ "a": 1 }', 'text')).toBe('{ "a": 1 }');
  });
});
