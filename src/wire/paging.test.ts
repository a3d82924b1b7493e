import { describe, expect, it } from 'vitest';
import { type PageRequest, pageOf, pageRequest } from './paging';

/** A listing over the numbers 1..total, in order; it records how many rows each read asked for. */
function numbers(total: number) {
  const asked: number[] = [];
  const listing = {
    isPosition: (value: unknown): value is number => typeof value === 'number',
    rows: async (after: number | null, count: number) => {
      asked.push(count);
      const start = after ?? 0;
      return Array.from({ length: Math.max(0, Math.min(count, total - start)) }, (_, i) => start + i + 1);
    },
    position: (n: number) => n,
    shape: (n: number) => `#${n}`,
  };
  return { listing, asked };
}

async function walk(total: number, limit: number): Promise<{ pages: string[][]; asked: number[] }> {
  const { listing, asked } = numbers(total);
  const pages: string[][] = [];
  let request: PageRequest = { limit, startKey: undefined };
  for (;;) {
    const page = await pageOf(request, listing);
    pages.push(page.list);
    expect(page.endOfList).toBe(page.startKey === null);
    if (page.endOfList) return { pages, asked };
    request = { limit, startKey: page.startKey ?? undefined };
  }
}

describe('pageOf: startKey paging of every listing', () => {
  it('hands out every row once, in order, in pages of `limit`, reading one row more than the page', async () => {
    const { pages, asked } = await walk(7, 3);
    expect(pages).toEqual([['#1', '#2', '#3'], ['#4', '#5', '#6'], ['#7']]);
    expect(asked).toEqual([4, 4, 4]);
  });

  it('ends the list on a page that is exactly full when no row follows', async () => {
    const { pages } = await walk(6, 3);
    expect(pages).toEqual([
      ['#1', '#2', '#3'],
      ['#4', '#5', '#6'],
    ]);
  });

  it('answers an empty listing with one empty last page', async () => {
    const { listing } = numbers(0);
    expect(await pageOf({ limit: 5, startKey: undefined }, listing)).toEqual({ list: [], startKey: null, endOfList: true });
  });

  it('refuses a startKey it did not hand out with INVALID_PARAMETER, before reading any row', async () => {
    for (const startKey of ['not base64 json!', btoa('"a string, not a number"'), btoa('{')]) {
      const { listing, asked } = numbers(10);
      await expect(pageOf({ limit: 2, startKey }, listing)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', status: 400 });
      expect(asked).toEqual([]);
    }
  });
});

describe('pageRequest', () => {
  const query = (values: Record<string, string>) => ({ query: (name: string) => values[name] });

  it('reads limit (default 50) and passes startKey on as sent', () => {
    expect(pageRequest(query({}))).toEqual({ limit: 50, startKey: undefined });
    expect(pageRequest(query({ limit: '100', startKey: 'abc' }))).toEqual({ limit: 100, startKey: 'abc' });
  });

  it('refuses a limit outside 1..100 or not an integer with INVALID_PARAMETER', () => {
    for (const limit of ['0', '101', '1.5', 'ten', '-1']) {
      expect(() => pageRequest(query({ limit }))).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER' }));
    }
  });
});
