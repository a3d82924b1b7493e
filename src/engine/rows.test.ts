import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionRow } from '../../schemas/ticket-types';
import { evaluateRows } from './rows';

describe('rows with the same key are alternatives, rows with different keys must all pass', () => {
  it('passes when one of the rows on a key matches', () => {
    const rows: ConditionRow[] = [
      { key: 'status', operator: '=', value: 'paid' },
      { key: 'status', operator: '=', value: 'settled' },
    ];
    expect(evaluateRows(rows, { status: 'settled' }).failedKeys).toEqual([]);
    expect(evaluateRows(rows, { status: 'open' }).failedKeys).toEqual(['status']);
  });

  it('fails when any key has no matching row', () => {
    const rows: ConditionRow[] = [
      { key: 'status', operator: '=', value: 'paid' },
      { key: 'amount', operator: '>', value: 0 },
    ];
    expect(evaluateRows(rows, { status: 'paid', amount: 5 }).failedKeys).toEqual([]);
    expect(evaluateRows(rows, { status: 'paid', amount: 0 }).failedKeys).toEqual(['amount']);
  });
});

describe('failedKeys lists every key that failed (all rows are read, no short-circuit)', () => {
  it('reports each failing key once, in order of first appearance', () => {
    const rows: ConditionRow[] = [
      { key: 'a', operator: '=', value: 1 },
      { key: 'b', operator: '=', value: 2 },
      { key: 'a', operator: '=', value: 3 },
      { key: 'c', operator: '=', value: 4 },
    ];
    expect(evaluateRows(rows, { a: 0, b: 0, c: 4 }).failedKeys).toEqual(['a', 'b']);
  });

  it('still fills capture-only placeholders after a failed key', () => {
    const rows: ConditionRow[] = [
      { key: 'a', operator: '=', value: 1 },
      { key: 'b', placeholder: 'B' },
    ];
    expect(evaluateRows(rows, { a: 0, b: 'x' })).toMatchObject({ failedKeys: ['a'], placeholders: { B: 'x' } });
  });
});

describe('a field the request does not carry is a mismatch (except rows comparing with null or undefined)', () => {
  it('fails = and != rows on a missing field', () => {
    expect(evaluateRows([{ key: 'x', operator: '=', value: 1 }], {}).failedKeys).toEqual(['x']);
    expect(evaluateRows([{ key: 'x', operator: '!=', value: 1 }], {}).failedKeys).toEqual(['x']);
    expect(evaluateRows([{ key: 'x', operator: '>=', value: 'a' }], 'raw text').failedKeys).toEqual(['x']);
  });

  it('passes != null and = undefined (a match row without value) on a missing field', () => {
    expect(evaluateRows([{ key: 'x', operator: '!=', value: null }], {}).failedKeys).toEqual([]);
    expect(evaluateRows([{ key: 'x', operator: '=' }], {}).failedKeys).toEqual([]);
    expect(evaluateRows([{ key: 'x', operator: '=' }], { x: null }).failedKeys).toEqual(['x']);
    expect(evaluateRows([{ key: 'x', operator: '!=' }], { x: null }).failedKeys).toEqual([]);
  });
});

describe('keys are paths relative to the target', () => {
  it("reads 'order[id]' as order.id and '' as the whole target", () => {
    expect(evaluateRows([{ key: 'order[id]', operator: '=', value: 7 }], { order: { id: 7 } }).failedKeys).toEqual([]);
    expect(evaluateRows([{ key: '', operator: '>=', value: 'ok' }], 'ok: done').failedKeys).toEqual([]);
  });

  it('keeps ${...} in keys and values as plain text in a ticket condition', () => {
    const rows: ConditionRow[] = [{ key: '${x}', operator: '=', value: '${placeholder[A]}', placeholder: 'P' }];
    const outcome = evaluateRows(rows, { '${x}': '${placeholder[A]}' });
    expect(outcome).toMatchObject({ failedKeys: [], placeholders: { P: '${placeholder[A]}' } });
  });

  it('reads JSON-parsed query values by type (?qty=2 is the number 2, not the string)', () => {
    expect(evaluateRows([{ key: 'qty', operator: '=', value: 2 }], { qty: 2 }).failedKeys).toEqual([]);
    expect(evaluateRows([{ key: 'qty', operator: '=', value: '2' }], { qty: 2 }).failedKeys).toEqual(['qty']);
  });
});

describe('capture-only rows never pass or fail anything and fill their placeholder whenever the path exists', () => {
  it('captures a present value, null included, and leaves the placeholder unset on a missing path', () => {
    const rows: ConditionRow[] = [
      { key: 'a', placeholder: 'A' },
      { key: 'n', placeholder: 'N' },
      { key: 'missing[deep]', placeholder: 'M' },
    ];
    const outcome = evaluateRows(rows, { a: { b: 1 }, n: null });
    expect(outcome.failedKeys).toEqual([]);
    expect(outcome.placeholders).toEqual({ A: { b: 1 }, N: null });
    expect(Object.hasOwn(outcome.placeholders, 'M')).toBe(false);
  });

  it('does not count as an alternative for a match row on the same key', () => {
    const rows: ConditionRow[] = [
      { key: 'a', placeholder: 'A' },
      { key: 'a', operator: '=', value: 2 },
    ];
    expect(evaluateRows(rows, { a: 1 })).toEqual({ target: { a: 1 }, placeholders: { A: 1 }, failedKeys: ['a'] });
  });
});

describe('for each key the first matching match-row wins; later match rows on that key are skipped', () => {
  it('captures and replaces by the first match only', () => {
    const rows: ConditionRow[] = [
      { key: 'kind', operator: '=', value: 'x', placeholder: 'FIRST' },
      { key: 'kind', operator: '>=', value: 'a', placeholder: 'SECOND', setValueWhenMatch: 'second' },
      { key: 'kind', operator: '>=', value: 'ab', placeholder: 'THIRD', setValueWhenMatch: 'third' },
    ];
    const outcome = evaluateRows(rows, { kind: 'abc' });
    expect(outcome.placeholders).toEqual({ SECOND: 'second' });
    expect(outcome.target).toEqual({ kind: 'second' });
  });

  it('skips later rows on a matched key without evaluating them', () => {
    let evaluated = 0;
    const resolve = (value: unknown) => {
      evaluated += 1;
      return value;
    };
    const rows: ConditionRow[] = [
      { key: 'a', operator: '=', value: 1 },
      { key: 'a', operator: '=', value: 2 },
      { key: 'a', operator: '=', value: 3 },
    ];
    evaluateRows(rows, { a: 1 }, resolve);
    expect(evaluated).toBe(1);
  });
});

describe('a match row that does not match captures nothing', () => {
  it('leaves its placeholder unset and replaces nothing', () => {
    const rows: ConditionRow[] = [{ key: 'a', operator: '=', value: 2, placeholder: 'A', setValueWhenMatch: 9 }];
    const outcome = evaluateRows(rows, { a: 1 });
    expect(outcome.placeholders).toEqual({});
    expect(outcome.target).toEqual({ a: 1 });
  });
});

describe('setValueWhenMatch replaces the value at key when its row is the first to match', () => {
  it('returns the replaced target without mutating the input, and the placeholder holds the replacement', () => {
    const body = { order: { id: 7, status: 'new' } };
    const rows: ConditionRow[] = [{ key: 'order[status]', operator: '=', value: 'new', setValueWhenMatch: 'accepted', placeholder: 'S' }];
    const outcome = evaluateRows(rows, body);
    expect(outcome.target).toEqual({ order: { id: 7, status: 'accepted' } });
    expect(outcome.placeholders).toEqual({ S: 'accepted' });
    expect(body.order.status).toBe('new');
  });

  it('lets a later row on another key whose path runs through the replaced field read the replacement', () => {
    const rows: ConditionRow[] = [
      { key: 'order', operator: '!=', value: null, setValueWhenMatch: { id: 42, paid: true } },
      { key: 'order[id]', operator: '=', value: 42, placeholder: 'ID' },
      { key: 'order[paid]', placeholder: 'PAID' },
    ];
    const outcome = evaluateRows(rows, { order: { id: 1 } });
    expect(outcome.failedKeys).toEqual([]);
    expect(outcome.placeholders).toEqual({ ID: 42, PAID: true });
  });

  it('lets an earlier capture-only row keep the value from before the replacement', () => {
    const rows: ConditionRow[] = [
      { key: 'a', placeholder: 'BEFORE' },
      { key: 'a', operator: '=', value: 1, setValueWhenMatch: 2 },
      { key: 'a', placeholder: 'AFTER' },
    ];
    expect(evaluateRows(rows, { a: 1 }).placeholders).toEqual({ BEFORE: 1, AFTER: 2 });
  });

  it('creates the field when the row matched a missing field (= undefined)', () => {
    const rows: ConditionRow[] = [{ key: 'meta[source]', operator: '=', setValueWhenMatch: 'webhook', placeholder: 'SRC' }];
    const outcome = evaluateRows(rows, { id: 1 });
    expect(outcome.target).toEqual({ id: 1, meta: { source: 'webhook' } });
    expect(outcome.placeholders).toEqual({ SRC: 'webhook' });
  });

  it('replaces nothing when setValueWhenMatch is null', () => {
    const rows: ConditionRow[] = [{ key: 'a', operator: '=', value: 1, setValueWhenMatch: null, placeholder: 'A' }];
    expect(evaluateRows(rows, { a: 1 })).toEqual({ target: { a: 1 }, placeholders: { A: 1 }, failedKeys: [] });
  });

  it('leaves the placeholder unset when a matched field is still missing', () => {
    expect(evaluateRows([{ key: 'x', operator: '=', placeholder: 'X' }], {}).placeholders).toEqual({});
  });
});

describe('resolveValue (cond action) resolves value and setValueWhenMatch before use', () => {
  it('compares with and writes the resolved values', () => {
    const resolve = (value: unknown) => (value === '${placeholder[WANT]}' ? 'ok' : value === '${response[id]}' ? 5 : value);
    const rows: ConditionRow[] = [
      { key: 'body[status]', operator: '=', value: '${placeholder[WANT]}', setValueWhenMatch: '${response[id]}', placeholder: 'S' },
    ];
    const outcome = evaluateRows(rows, { body: { status: 'ok' } }, resolve);
    expect(outcome).toEqual({ target: { body: { status: 5 } }, placeholders: { S: 5 }, failedKeys: [] });
  });

  it('treats a value resolving to an array as a list', () => {
    const rows: ConditionRow[] = [{ key: 'status', operator: '=', value: '${placeholder[ALLOWED]}' }];
    expect(evaluateRows(rows, { status: 'b' }, () => ['a', 'b']).failedKeys).toEqual([]);
  });
});

describe('placeholder names are plain fields', () => {
  it('stores a placeholder named __proto__ as an own field', () => {
    const outcome = evaluateRows([{ key: 'a', placeholder: '__proto__' }], { a: { polluted: true } });
    expect(Object.hasOwn(outcome.placeholders, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(outcome.placeholders)).toBe(Object.prototype);
  });
});

describe('property: reading rows is order-independent for different keys', () => {
  it('gives the same failed keys and placeholders whatever the order of rows on distinct keys', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null));
    const operator = fc.constantFrom('=', '!=', '>', '>=', '<', '<=' as const);
    const keyRows = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1, maxLength: 5 }).chain((keys) =>
      fc.tuple(
        ...keys.map((key) =>
          fc.record({
            key: fc.constant(key),
            operator: fc.option(operator, { nil: undefined }),
            value: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
            placeholder: fc.constant(`P_${key}`),
          }),
        ),
      ),
    );
    const target = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), scalar);
    fc.assert(
      fc.property(keyRows, target, fc.infiniteStream(fc.nat()), (rows, body, randoms) => {
        const cleanRows = rows.map((row) => {
          const { operator, ...rest } = row;
          return operator === undefined ? { key: rest.key, placeholder: rest.placeholder } : { ...rest, operator };
        }) as ConditionRow[];
        const shuffled = [...cleanRows].sort(() => (randoms.next().value % 3) - 1);
        const a = evaluateRows(cleanRows, body);
        const b = evaluateRows(shuffled, body);
        expect([...b.failedKeys].sort()).toEqual([...a.failedKeys].sort());
        expect(b.placeholders).toEqual(a.placeholders);
      }),
    );
  });

  it('property: a key fails iff none of its match rows passes on its own', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 2 }), fc.integer({ min: -2, max: 2 }), fc.constant(null));
    const row = fc.record({
      key: fc.constantFrom('a', 'b'),
      operator: fc.constantFrom('=', '!=', '>=', '<' as const),
      value: scalar,
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 6 }), fc.dictionary(fc.constantFrom('a', 'b'), scalar), (rows, body) => {
        const failed = evaluateRows(rows, body).failedKeys;
        for (const key of new Set(rows.map((r) => r.key))) {
          const anyPasses = rows.filter((r) => r.key === key).some((r) => evaluateRows([r], body).failedKeys.length === 0);
          expect(failed.includes(key)).toBe(!anyPasses);
        }
      }),
    );
  });
});
