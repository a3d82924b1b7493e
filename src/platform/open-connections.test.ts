import { describe, expect, it } from 'vitest';
import { tracked } from '../../test/helpers/concurrency';
import { mapWithin, OPEN_CONNECTIONS } from './open-connections';

describe('work that fans out stays within the open connections of an invocation', () => {
  it("mapWithin runs at most `width` at once and answers in the items' order", async () => {
    const { task, most } = tracked();
    const items = Array.from({ length: 40 }, (_, i) => i);
    expect(await mapWithin(items, OPEN_CONNECTIONS, (i) => task(i * 2))).toEqual(items.map((i) => i * 2));
    expect(most()).toBe(OPEN_CONNECTIONS);
  });
});
