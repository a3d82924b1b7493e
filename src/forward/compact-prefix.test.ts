import { describe, expect, it } from 'vitest';
import { COMPACT_PREFIX_CHARS, compactTextsOf, compactTextsOfPrefixes } from './record';

/** A body's prefix as the compact read takes it (SQLite's substr counts code points) and whether that was all of it. */
const cut = (json: string | undefined): [string | null, boolean] => {
  if (json === undefined) return [null, true];
  const points = [...json];
  return [points.slice(0, COMPACT_PREFIX_CHARS).join(''), points.length <= COMPACT_PREFIX_CHARS];
};

describe('compact texts from the first characters of the bodies', () => {
  const bodies: Array<string | undefined> = [
    undefined,
    JSON.stringify('short'),
    JSON.stringify('x'.repeat(5000)),
    JSON.stringify('\u0001'.repeat(400)),
    JSON.stringify(`"quoted" \\ back\nslash\t😀é€ ${'ü'.repeat(300)}`),
    JSON.stringify('a\u0001'.repeat(100)),
    JSON.stringify('a\u0001'.repeat(101)),
    JSON.stringify({ nested: ['x'.repeat(3000)] }),
    JSON.stringify(12345),
    JSON.stringify('😀'.repeat(700)),
  ];
  it('are the texts of the whole bodies, for every pair', () => {
    for (const request of bodies) {
      for (const response of bodies) {
        const [q, qWhole] = cut(request);
        const [s, sWhole] = cut(response);
        expect(compactTextsOfPrefixes(q, qWhole, s, sWhole), `${request?.slice(0, 40)} / ${response?.slice(0, 40)}`).toEqual(compactTextsOf(request, response));
      }
    }
  });
});
