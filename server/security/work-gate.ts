/**
 * A bounded concurrency gate for expensive work that runs on libuv's thread pool (scrypt).
 *
 * Node runs scrypt, file-system calls, DNS lookups and zlib on one pool of
 * `UV_THREADPOOL_SIZE` threads (4 by default). Without a gate, a flood of requests that each
 * cost a scrypt fills every thread, and a normal login, a file upload or a static read queues
 * behind all of them. The gate lets at most `maxActive` jobs run (fewer than the pool, so the
 * rest of the pool stays free for everything else) and at most `maxQueued` wait; beyond that
 * the caller is refused at once (GateBusyError: answer 503 with Retry-After) rather than queued.
 */
export class WorkGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxActive: number,
    readonly maxQueued: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.maxActive) {
      if (this.waiting.length >= this.maxQueued) throw new GateBusyError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active += 1;
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so `active` never drops and rises again.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  /** Jobs running and waiting (for tests and metrics). */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.waiting.length };
  }
}

export class GateBusyError extends Error {
  constructor() {
    super('Too much credential verification in progress; try again shortly.');
  }
}
