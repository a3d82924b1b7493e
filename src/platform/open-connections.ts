/**
 * One invocation holds at most 6 connections open at once (Workers limits, "Simultaneous open
 * connections"): a D1, R2 or Queue call while it runs, a fetch until its answer's headers arrive. Past
 * that, calls wait for a free one: work that fans out keeps itself under the limit instead.
 */
export const OPEN_CONNECTIONS = 6;

/** Runs `run` over the items with at most `width` in flight at once; the results in the items' order. */
export async function mapWithin<T, R>(items: readonly T[], width: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await run(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
