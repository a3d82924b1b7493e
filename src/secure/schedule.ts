import { OPEN_CONNECTIONS } from '../platform/open-connections';

/**
 * The order of a call's requests: a request with `sync` starts once the request before it has settled
 * (answered or failed); every other request starts at once, but no more than OPEN_CONNECTIONS wait for
 * their answers' headers at a time (one invocation has at most 6 connections waiting for headers; a
 * 50-request call would otherwise wait on the platform's queue with its time limits running). A request
 * gives its place to the next when it calls `answered` (its headers arrived) or settles. Results come
 * back in the requests' order.
 */
export function runScheduled<I extends { sync?: boolean }, R>(
  items: readonly I[],
  run: (item: I, index: number, answered: () => void) => Promise<R>,
): Promise<R[]> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async <T>(task: (answered: () => void) => Promise<T>): Promise<T> => {
    if (running >= OPEN_CONNECTIONS) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      running--;
      waiting.shift()?.();
    };
    try {
      return await task(free);
    } finally {
      free();
    }
  };
  const runs: Promise<R>[] = [];
  items.forEach((item, index) => {
    const previous = runs[index - 1];
    const start =
      item.sync && previous !== undefined
        ? previous.then(
            () => undefined,
            () => undefined,
          )
        : Promise.resolve();
    runs.push(start.then(() => slot((answered) => run(item, index, answered))));
  });
  return Promise.all(runs);
}
