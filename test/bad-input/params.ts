/** Builders of the path and query cases: lookalike ids in the path, the paging parameters of listings. */
import type { BadInputCase, Expected, Target } from './case';
import { LOOKALIKES, fullwidth, tenThousandKeys } from './payloads';
import type { World } from './world';
/**
 * One case per lookalike of a real id (`of` the world: its service id, an existing ticket…) put in
 * path parameter `param`: each must miss the real thing. `what` names the id in the test name.
 */
export function lookalikeCases(
  target: Target,
  param: string,
  what: string,
  of: string | ((world: World) => string),
  expected: Expected,
  extra: Partial<BadInputCase> = {},
): BadInputCase[] {
  const original = (world: World) => (typeof of === 'function' ? of(world) : of);
  return LOOKALIKES.map(([transform, words]) => ({
    ...target,
    ...extra,
    input: `${what} ${words}`,
    params: { ...target.params, [param]: (world: World) => transform(original(world)) },
    expect: expected,
  }));
}
/**
 * The paging parameters of a listing (src/wire/paging.ts): a limit outside 1..100 or not an integer,
 * a startKey the listing never handed out, and 10,000 query keys around a bad limit.
 */
export function pagingCases(target: Target, okQuery = ''): BadInputCase[] {
  const and = okQuery ? `${okQuery}&` : '';
  const badLimit = { status: 400, code: 'INVALID_PARAMETER', field: 'limit' } as const;
  const badKey = { status: 400, code: 'INVALID_PARAMETER', field: 'startKey' } as const;
  const limits: Array<[string, string]> = [
    ['0', 'a limit of 0'],
    ['101', 'a limit of 101'],
    ['-1', 'a negative limit'],
    ['1.5', 'a fractional limit'],
    ['ten', 'a limit that is not a number'],
    [encodeURIComponent(fullwidth('5')), 'a limit in fullwidth digits'],
    ['5%00', 'a limit with a NUL character'],
  ];
  const keys: Array<[string, string]> = [
    ['not%20base64!', 'a startKey that is not base64'],
    [btoa('{}'), 'a startKey of the wrong shape'],
    [btoa('null'), 'a startKey holding null'],
    ['A'.repeat(10_000), 'a startKey of 10,000 characters'],
    ['%00', 'a startKey that is a NUL character'],
  ];
  return [
    ...limits.map(([value, input]): BadInputCase => ({ ...target, input, query: `${and}limit=${value}`, expect: badLimit })),
    ...keys.map(([value, input]): BadInputCase => ({ ...target, input, query: `${and}startKey=${value}`, expect: badKey })),
    { ...target, input: '10,000 query keys around a limit of 0', query: `${and}${tenThousandKeys}&limit=0`, expect: badLimit },
  ];
}

/** 10,000 query keys the listing does not read: ignored, the listing answers as usual. */
export function ignoredQueryKeysCase(target: Target, json: Record<string, unknown> = {}): BadInputCase {
  return { ...target, input: '10,000 query keys it does not read', query: tenThousandKeys, expect: { status: 200, json } };
}
