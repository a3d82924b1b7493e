import { describe, expect, it } from 'vitest';
import { OPEN_CONNECTIONS } from '../platform/open-connections';
import { tracked } from '../../test/helpers/concurrency';
import { runScheduled } from './schedule';

/** A run whose requests settle only when the test says so; `started` lists them in the order they began. */
function controlled() {
  const started: string[] = [];
  const settle = new Map<string, { resolve(value: string): void; reject(error: Error): void }>();
  const run = (item: { name: string }) =>
    new Promise<string>((resolve, reject) => {
      started.push(item.name);
      settle.set(item.name, { resolve, reject });
    });
  return { started, settle, run };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('sync: a request with sync starts once the one before it has settled; others start at once', () => {
  it('[a, b sync, c]: a and c start together, b after a answered; results in the requests\u2019 order', async () => {
    const { started, settle, run } = controlled();
    const all = runScheduled([{ name: 'a' }, { name: 'b', sync: true }, { name: 'c' }], run);
    await tick();
    expect(started).toEqual(['a', 'c']);
    settle.get('c')!.resolve('C');
    await tick();
    expect(started).toEqual(['a', 'c']);
    settle.get('a')!.resolve('A');
    await tick();
    expect(started).toEqual(['a', 'c', 'b']);
    settle.get('b')!.resolve('B');
    expect(await all).toEqual(['A', 'B', 'C']);
  });

  it('a chain of sync requests runs one at a time, and a failure before a sync request still lets it go', async () => {
    const { started, settle, run } = controlled();
    const all = runScheduled([{ name: 'a' }, { name: 'b', sync: true }, { name: 'c', sync: true }], (item) => run(item).catch(() => 'failed'));
    await tick();
    expect(started).toEqual(['a']);
    settle.get('a')!.reject(new Error('unreachable'));
    await tick();
    expect(started).toEqual(['a', 'b']);
    settle.get('b')!.resolve('B');
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    settle.get('c')!.resolve('C');
    expect(await all).toEqual(['failed', 'B', 'C']);
  });

  it('sync on the first request has nothing to wait for; no sync anywhere starts everything at once', async () => {
    const { started, settle, run } = controlled();
    const all = runScheduled([{ name: 'a', sync: true }, { name: 'b' }, { name: 'c', sync: false }], run);
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const name of ['c', 'b', 'a']) settle.get(name)!.resolve(name.toUpperCase());
    expect(await all).toEqual(['A', 'B', 'C']);
  });

  it('a secureRequest call of 50 requests runs at most 6 at once, in order, sync ones after the one before', async () => {
    const { task, most } = tracked();
    const started: number[] = [];
    const items = Array.from({ length: 50 }, (_, i) => ({ sync: i === 10 }));
    const results = await runScheduled(items, (_item, i) => {
      started.push(i);
      return task(i);
    });
    expect(results).toEqual(items.map((_, i) => i));
    expect(most()).toBe(OPEN_CONNECTIONS);
    expect(started.indexOf(10)).toBeGreaterThan(started.indexOf(9));
  });

  it('a request gives its place to the next once its answer\u2019s headers arrive, while its body is still read', async () => {
    const started: number[] = [];
    const bodies: Array<() => void> = [];
    const all = runScheduled(
      Array.from({ length: 8 }, () => ({})),
      (_item, i, answered) => {
        started.push(i);
        return new Promise<number>((resolve) => {
          bodies.push(() => resolve(i));
          if (i < 6) answered();
        });
      },
    );
    await tick();
    // Six answers are being read and two requests wait for their headers: all eight are under way.
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const read of bodies) read();
    expect(await all).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
