import { describe, expect, it } from 'vitest';
import { parseWherePath, type WherePath } from '../../schemas/log-search';
import type { KeptRequest } from './kept-request';
import { LOG_CLASS, type LogBody } from './log-body';
import { eventOf, valuesAt } from './log-search-match';

const kept = (body: KeptRequest['body'], extra: Partial<KeptRequest> = {}): KeptRequest => ({
  method: 'POST',
  headers: { 'X-Name': 'a', authorization: '[redacted]' },
  search: '?k=1&k=2',
  body,
  ip: '198.51.100.1',
  user_agent: 'ua',
  signed_route: false,
  long_form: false,
  received_at: 1,
  ...extra,
});
const path = (raw: string) => parseWherePath(raw) as WherePath;

describe('a value at a path of the request as received', () => {
  it('reads a JSON body by key and array index, strings as themselves and other values as JSON text', () => {
    const request = kept({ text: JSON.stringify({ a: { b: [{ c: 'x' }, 7] }, t: true, n: null, o: { p: 1 } }) });
    expect(valuesAt(request, path('body.a.b.0.c'))).toEqual(['x']);
    expect(valuesAt(request, path('body.a.b.1'))).toEqual(['7']);
    expect(valuesAt(request, path('body.t'))).toEqual(['true']);
    expect(valuesAt(request, path('body.n'))).toEqual(['null']);
    expect(valuesAt(request, path('body.o'))).toEqual(['{"p":1}']);
    expect(valuesAt(request, path('body.a.missing'))).toEqual([]);
  });

  it('reaches only own members: inherited names of objects and arrays find nothing', () => {
    const request = kept({ text: JSON.stringify({ list: [1], obj: {} }) });
    expect(valuesAt(request, path('body.list.length'))).toEqual([]);
    expect(valuesAt(request, path('body.obj.toString'))).toEqual([]);
    expect(valuesAt(request, path('body.obj.hasOwnProperty'))).toEqual([]);
  });

  it('reads a form body as its fields, a header by name in any case, every value of a query parameter', () => {
    expect(valuesAt(kept({ text: 'a=1&b=two' }), path('body.b'))).toEqual(['two']);
    expect(valuesAt(kept({ text: '{}' }), path('headers.x-name'))).toEqual(['a']);
    expect(valuesAt(kept({ text: '{}' }), path('query.k'))).toEqual(['1', '2']);
  });

  it('finds nothing in a body that was not kept as text', () => {
    expect(valuesAt(kept({ omitted_bytes: 70_000 }), path('body.a'))).toEqual([]);
    expect(valuesAt(kept({ base64: 'AAE=' }), path('body.a'))).toEqual([]);
  });
});

describe('an entry as the inspector lists it', () => {
  it('names the first failing action, counts the actions and shows a duration only when the entry has one', () => {
    const body: LogBody = {
      consume_id: 'c1',
      user_id: 'u1',
      signed: false,
      failed: true,
      code: 'ACTION_FAILED',
      description: {},
      actions: [
        { seq: 0, path: 'actions[0]', act: 'req', detail: {} },
        { seq: 1, path: 'actions[1]', act: 'req', detail: { error: { code: 'HTTP_ERROR' } } },
        { seq: 2, path: 'actions[2]', act: 'mail', detail: { error: { code: 'MAIL_FAILED' } } },
      ],
    };
    const event = eventOf({ log_key: 'c1', timestamp: 5, class: LOG_CLASS.failed }, body);
    expect(event).toEqual({
      consume_id: 'c1',
      log_key: 'c1',
      time: 5,
      outcome: 'failed',
      consumer: 'u1',
      code: 'ACTION_FAILED',
      actions_run: 3,
      first_failure: { code: 'HTTP_ERROR', path: 'actions[1]' },
    });
    expect(eventOf({ log_key: 'c1', timestamp: 5, class: LOG_CLASS.ok }, { ...body, duration_ms: 12 }).duration_ms).toBe(12);
  });
});
