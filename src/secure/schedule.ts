/**
 * The order of a call's requests: a request with `sync` starts once the request before it has settled
 * (answered or failed); every other request starts at once. Results come back in the requests' order.
 */
export function runScheduled<I extends { sync?: boolean }, R>(items: readonly I[], run: (item: I, index: number) => Promise<R>): Promise<R[]> {
  const runs: Promise<R>[] = [];
  items.forEach((item, index) => {
    const previous = runs[index - 1];
    const start = item.sync && previous ? previous.then(() => undefined, () => undefined) : Promise.resolve();
    runs.push(start.then(() => run(item, index)));
  });
  return Promise.all(runs);
}
