/**
 * Admission of batched pushes (issue 26 §4): nothing is queued past the limits; a batch that
 * cannot run now is refused with how long to wait, one that can never run without it.
 *
 * - more than `MAX_PUSH_ENTRIES` entries: refused for good (the client halves its batch);
 * - a principal's second batch while its first runs: wait 1 s (its entries depend on the first's);
 * - more than `concurrency` batches running in this process: wait about one batch's duration,
 *   the mean of the last 20, in whole seconds from 1 to 30.
 *
 * Per process: with `--workers`, each worker admits its own.
 */
import { MAX_PUSH_ENTRIES } from '../../../protocol/push.js';

const RECENT = 20;
const MIN_WAIT_S = 1;
const MAX_WAIT_S = 30;

export type Refusal =
  | { reason: 'too_large'; maxEntries: number }
  | { reason: 'principal_busy'; retryAfterSeconds: number }
  | { reason: 'server_busy'; retryAfterSeconds: number };

/** A batch admitted: `done()` frees its place and records how long it ran. */
export interface Admitted {
  readonly startedAt: number;
  done(): void;
}

export class PushAdmission {
  private running = 0;
  private readonly principals = new Set<string>();
  private readonly durations: number[] = [];

  /** `now`: a monotonic clock in ms (performance.now; tests may pass their own). */
  constructor(
    private readonly limits: { concurrency: number; maxEntries?: number },
    private readonly now: () => number = () => performance.now(),
  ) {}

  get maxEntries(): number {
    return this.limits.maxEntries ?? MAX_PUSH_ENTRIES;
  }

  /** Refuses a batch that can never fit; null when its size is fine. */
  checkSize(entries: number): Refusal | null {
    return entries > this.maxEntries ? { reason: 'too_large', maxEntries: this.maxEntries } : null;
  }

  /** Takes a place for the principal's batch, or says why not now. */
  enter(principal: string): Admitted | Refusal {
    if (this.principals.has(principal)) return { reason: 'principal_busy', retryAfterSeconds: MIN_WAIT_S };
    if (this.running >= this.limits.concurrency) return { reason: 'server_busy', retryAfterSeconds: this.retryAfterSeconds() };
    this.principals.add(principal);
    this.running++;
    const startedAt = this.now();
    let open = true;
    return {
      startedAt,
      done: () => {
        if (!open) return;
        open = false;
        this.principals.delete(principal);
        this.running--;
        this.durations.push(this.now() - startedAt);
        if (this.durations.length > RECENT) this.durations.shift();
      },
    };
  }

  /** clamp(ceil(mean of the last 20 batch durations in s), 1, 30); 1 before any batch ended. */
  retryAfterSeconds(): number {
    if (this.durations.length === 0) return MIN_WAIT_S;
    const meanMs = this.durations.reduce((sum, ms) => sum + ms, 0) / this.durations.length;
    return Math.min(MAX_WAIT_S, Math.max(MIN_WAIT_S, Math.ceil(meanMs / 1000)));
  }

  /** Milliseconds since `startedAt` on this admission's clock (the batch's time budget). */
  elapsed(startedAt: number): number {
    return this.now() - startedAt;
  }
}

export function isRefusal(value: Admitted | Refusal): value is Refusal {
  return 'reason' in value;
}
