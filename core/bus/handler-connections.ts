/**
 * How many of a process's database connections its bus handlers may hold at once.
 *
 * Every handler runs in a transaction, which holds a pool connection until it commits,
 * and some handlers wait on the outside world meanwhile (a flow's HTTP step, up to its
 * timeout). Without a bound, the consumers of one process together (each with its own
 * concurrency) could hold every connection of the pool, and the process's HTTP
 * requests, its relay and the prepares would wait for one until the pool's acquire
 * timeout, then fail: a slow remote endpoint would turn the API into 503s. So handler
 * transactions take a slot first, and a few connections always stay free for the rest.
 */
export class HandlerConnections {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`handler connections must be a positive integer, got ${size}`);
  }

  /** Runs `transaction` once a slot is free (first come, first served), and frees the slot when it settles. */
  async run<T>(transaction: () => Promise<T>): Promise<T> {
    if (this.held < this.size) this.held++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await transaction();
    } finally {
      // The slot passes straight to the next waiter, so `held` counts it still.
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}

/** Connections kept free of handlers when the operator sets no number: HTTP requests, the relay, prepares, progress writes. */
export const CONNECTIONS_KEPT_FREE = 2;

/** The slots for a pool of `poolMax` connections: the configured number, or all but CONNECTIONS_KEPT_FREE of them (at least one). */
export function handlerConnectionsFor(poolMax: number, configured: number): number {
  return Math.max(1, configured > 0 ? configured : poolMax - CONNECTIONS_KEPT_FREE);
}
