import { describe, expect, it } from 'vitest';
import { mapWithin, OPEN_CONNECTIONS } from './open-connections';

/** A task that records how many of its kind run at once. */
export function tracked() {
  let now = 0;
  let most = 0;
  const task = async <T>(value: T): Promise<T> => {
    now++;
    most = Math.max(most, now);
    await new Promise((resolve) => setTimeout(resolve, 2));
    now--;
    return value;
  };
  return { task, most: () => most };
}

describe('work that fans out stays within the open connections of an invocation', () => {
  it('mapWithin runs at most `width` at once and answers in the items\' order', async () => {
    const { task, most } = tracked();
    const items = Array.from({ length: 40 }, (_, i) => i);
    expect(await mapWithin(items, OPEN_CONNECTIONS, (i) => task(i * 2))).toEqual(items.map((i) => i * 2));
    expect(most()).toBe(OPEN_CONNECTIONS);
  });
});
