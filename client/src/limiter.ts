/** Lets at most `size` tasks run at once; the rest wait in call order (the client's request batch). */
export class RequestLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so running never exceeds size.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
