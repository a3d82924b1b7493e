import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKey, readPath, writePath } from './paths';

describe('parseKey', () => {
  it('reads a bracketed key as a path', () => {
    expect(parseKey('order[id]')).toEqual(['order', 'id']);
    expect(parseKey('a[b][c]')).toEqual(['a', 'b', 'c']);
    expect(parseKey('items[0][sku]')).toEqual(['items', '0', 'sku']);
  });

  it('reads a plain key as one field', () => {
    expect(parseKey('id')).toEqual(['id']);
    expect(parseKey('x-token')).toEqual(['x-token']);
  });

  it('reads the empty key as the whole target', () => {
    expect(parseKey('')).toEqual([]);
  });

  it('reads a key that is not head[seg]... as one literal field name', () => {
    expect(parseKey('a[b')).toEqual(['a[b']);
    expect(parseKey('a[b]c')).toEqual(['a[b]c']);
    expect(parseKey('[a]')).toEqual(['[a]']);
  });

  it('keeps ${...} as plain text (keys are never templated)', () => {
    expect(parseKey('${body}')).toEqual(['${body}']);
  });
});

describe('readPath', () => {
  const body = { order: { id: 7, tags: ['a', 'b'], note: null }, list: [{ sku: 'x' }] };

  it('reads a field at any depth, array positions included', () => {
    expect(readPath(body, ['order', 'id'])).toEqual({ found: true, value: 7 });
    expect(readPath(body, ['order', 'tags', '1'])).toEqual({ found: true, value: 'b' });
    expect(readPath(body, ['list', '0', 'sku'])).toEqual({ found: true, value: 'x' });
  });

  it('finds a present null', () => {
    expect(readPath(body, ['order', 'note'])).toEqual({ found: true, value: null });
  });

  it('does not find a missing field or a path through a scalar', () => {
    expect(readPath(body, ['order', 'missing']).found).toBe(false);
    expect(readPath(body, ['order', 'id', 'x']).found).toBe(false);
    expect(readPath(body, ['order', 'note', 'x']).found).toBe(false);
    expect(readPath('text body', ['x']).found).toBe(false);
  });

  it('reads only own fields and real array positions (no length, no prototype)', () => {
    expect(readPath(body, ['order', 'tags', 'length']).found).toBe(false);
    expect(readPath(body, ['order', 'tags', '2']).found).toBe(false);
    expect(readPath(body, ['order', 'tags', '01']).found).toBe(false);
    expect(readPath(body, ['toString']).found).toBe(false);
    expect(readPath(body, ['__proto__']).found).toBe(false);
  });

  it('counts a field holding undefined as missing', () => {
    expect(readPath({ a: undefined }, ['a']).found).toBe(false);
  });

  it('reads the whole root with the empty path', () => {
    expect(readPath('raw text', [])).toEqual({ found: true, value: 'raw text' });
    expect(readPath(undefined, []).found).toBe(false);
  });
});

describe('writePath', () => {
  it('returns a new root and never mutates the input', () => {
    const body = { order: { id: 7, other: 1 }, keep: { x: 1 } };
    const snapshot = structuredClone(body);
    const written = writePath(body, ['order', 'id'], 8) as typeof body;
    expect(body).toEqual(snapshot);
    expect(written).toEqual({ order: { id: 8, other: 1 }, keep: { x: 1 } });
    expect(written.keep).toBe(body.keep);
  });

  it('creates missing fields on the way as objects', () => {
    expect(writePath({}, ['a', 'b'], 1)).toEqual({ a: { b: 1 } });
    expect(writePath(undefined, ['a'], 1)).toEqual({ a: 1 });
  });

  it('replaces an existing array position without mutating the array', () => {
    const body = { list: [1, 2, 3] };
    expect(writePath(body, ['list', '1'], 9)).toEqual({ list: [1, 9, 3] });
    expect(body.list).toEqual([1, 2, 3]);
  });

  it('leaves the root unchanged when the path runs through a scalar, null or a missing array position', () => {
    const body = { s: 'text', n: null, list: [1] };
    expect(writePath(body, ['s', 'x'], 1)).toBe(body);
    expect(writePath(body, ['n', 'x'], 1)).toBe(body);
    expect(writePath(body, ['list', '5'], 1)).toBe(body);
    expect(writePath(body, ['list', '0', 'x'], 1)).toBe(body);
    expect(writePath('raw text', ['x'], 1)).toBe('raw text');
  });

  it('replaces the whole root with the empty path', () => {
    expect(writePath({ a: 1 }, [], 'new')).toBe('new');
  });

  it('writes a __proto__ key as a plain field, never as the prototype', () => {
    const written = writePath({}, ['__proto__', 'polluted'], true) as Record<string, unknown>;
    expect(Object.getPrototypeOf(written)).toBe(Object.prototype);
    expect(readPath(written, ['__proto__', 'polluted'])).toEqual({ found: true, value: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('property: what is written at a path of objects is read back there', () => {
    const segment = fc.stringMatching(/^[a-z]{1,4}$/);
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(segment, { minLength: 1, maxLength: 4 }), fc.jsonValue(), (root, path, value) => {
        const before = JSON.stringify(root);
        const written = writePath(root, path, value);
        expect(JSON.stringify(root)).toBe(before);
        if (written !== root) expect(readPath(written, path)).toEqual({ found: true, value });
      }),
    );
  });
});
