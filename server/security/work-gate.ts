/**
 * A bounded, fair concurrency gate for expensive work that runs on libuv's thread pool (scrypt).
 *
 * Node runs scrypt, file-system calls, DNS lookups and zlib on one pool of
 * `UV_THREADPOOL_SIZE` threads (4 by default). Without a gate, a flood of requests that each
 * cost a scrypt fills every thread, and a normal login, a file upload or a static read queues
 * behind all of them. The gate lets at most `maxActive` jobs run (fewer than the pool, so the
 * rest of the pool stays free for everything else) and at most `maxQueued` wait, at most
 * `maxQueuedPerKey` of them for one key (the client address); beyond that the caller is
 * refused at once (GateBusyError: answer 503 with Retry-After) rather than queued. Waiters are
 * served round-robin across keys, so a flood from one address delays another address's login
 * by at most about one job, not by the flood's length.
 */
export class WorkGate {
  private active = 0;
  private queued = 0;
  /** Waiters per key; a Map keeps the round-robin order (a served key moves to the end). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    readonly maxActive: number,
    readonly maxQueued: number,
    readonly maxQueuedPerKey = 4,
  ) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.active >= this.maxActive) {
      const line = this.waiting.get(key) ?? [];
      if (this.queued >= this.maxQueued || line.length >= this.maxQueuedPerKey) throw new GateBusyError();
      await new Promise<void>((resolve) => {
        line.push(resolve);
        this.waiting.set(key, line);
        this.queued += 1;
      });
    } else {
      this.active += 1;
    }
    try {
      return await work();
    } finally {
      this.handOver();
    }
  }

  /** Jobs running and waiting (for tests and metrics). */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.queued };
  }

  /** Gives the freed slot straight to the next key's first waiter, or frees it. */
  private handOver(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.active -= 1;
      return;
    }
    const [key, line] = next.value;
    const resolve = line.shift()!;
    this.waiting.delete(key);
    if (line.length > 0) this.waiting.set(key, line);
    this.queued -= 1;
    resolve();
  }
}

export class GateBusyError extends Error {
  constructor() {
    super('Too much credential verification in progress; try again shortly.');
  }
}
