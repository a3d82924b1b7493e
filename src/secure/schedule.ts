import { OPEN_CONNECTIONS } from '../platform/open-connections';

/**
 * The order of a call's requests: a request with `sync` starts once the request before it has settled
 * (answered or failed); every other request starts at once, but no more than OPEN_CONNECTIONS run at a
 * time (one invocation holds 6 connections open; a 50-request call would otherwise wait on the
 * platform's queue with its time limits running). Results come back in the requests' order.
 */
export function runScheduled<I extends { sync?: boolean }, R>(items: readonly I[], run: (item: I, index: number) => Promise<R>): Promise<R[]> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= OPEN_CONNECTIONS) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
  const runs: Promise<R>[] = [];
  items.forEach((item, index) => {
    const previous = runs[index - 1];
    const start = item.sync && previous ? previous.then(() => undefined, () => undefined) : Promise.resolve();
    runs.push(start.then(() => slot(() => run(item, index))));
  });
  return Promise.all(runs);
}
