/**
 * Writes that contend on one row (a tenant's serial counter), gathered per key: group commit
 * inside the process.
 *
 * Contract: at most one write of a key is in flight from this process. Writes of that key that
 * arrive meanwhile wait, and when it settles they go together, in arrival order, as one batch
 * (at most `maxBatch`; the rest wait for the next). A batch is all or nothing; when a batch of
 * more than one fails, each of its writes is retried alone, so every caller gets the outcome of
 * its own write (a duplicate id fails only the write that carries it). A write that arrives
 * while nothing of its key is in flight starts at once: an idle server adds no latency.
 *
 * Why: concurrent transactions that update one row queue on its lock in the database, and every
 * commit wakes all of them to retry (CPU spent on the database for nothing). One statement for
 * a batch takes the lock once for all of its writes.
 */
export class KeyedWriteBatches<T, R> {
  private readonly waiting = new Map<string, Array<Pending<T, R>>>();

  constructor(
    private readonly write: (key: string, items: readonly T[]) => Promise<R[]>,
    private readonly maxBatch = 64,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.waiting.set(key, []);
      void this.drain(key, [{ item, resolve, reject }]);
    });
  }

  /** Writes `first`, then whatever gathered meanwhile, until nothing of the key waits. */
  private async drain(key: string, first: Array<Pending<T, R>>): Promise<void> {
    let batch = first;
    for (;;) {
      await this.settle(key, batch);
      const queue = this.waiting.get(key)!;
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      batch = queue.splice(0, this.maxBatch);
    }
  }

  private async settle(key: string, batch: Array<Pending<T, R>>): Promise<void> {
    try {
      const results = await this.write(key, batch.map((pending) => pending.item));
      batch.forEach((pending, i) => pending.resolve(results[i]!));
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    for (const pending of batch) {
      try {
        pending.resolve((await this.write(key, [pending.item]))[0]!);
      } catch (error) {
        pending.reject(error);
      }
    }
  }
}

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}
