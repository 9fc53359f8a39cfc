import { DomainError } from '../domain/errors.js';
import type { Principal } from '../domain/context.js';

/** More uploads in flight than the caller's (or the server's) share: 429, retry shortly. */
export class TooManyUploadsError extends DomainError {
  readonly code = 'too_many_uploads';
  readonly status = 429;
}

export interface UploadSlotLimits {
  /** Uploads one principal (a user, or an application) may have in flight at once. */
  readonly perPrincipal: number;
  /** Uploads in flight in this process, all principals together. */
  readonly total: number;
}

/**
 * Counts uploads in flight, per principal and in total, so that a few callers cannot fill the
 * staging area or hold every connection. Per process: N server processes admit N times the
 * total. A slot is taken after the caller was authenticated and authorised, before the body is
 * read, and given back when the request is done with it (answered, failed or abandoned).
 */
export class UploadSlots {
  private readonly held = new Map<string, number>();
  private inFlight = 0;

  constructor(readonly limits: UploadSlotLimits) {}

  /** Takes a slot for the principal, or throws TooManyUploadsError; returns the release (idempotent). */
  acquire(principal: Principal): () => void {
    const key = principalKey(principal);
    const mine = this.held.get(key) ?? 0;
    if (mine >= this.limits.perPrincipal) {
      throw new TooManyUploadsError(`You already have ${mine} uploads in progress (at most ${this.limits.perPrincipal}); wait for one to finish.`);
    }
    if (this.inFlight >= this.limits.total) throw new TooManyUploadsError('The server is receiving as many uploads as it accepts at once; retry shortly.');
    this.held.set(key, mine + 1);
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** Uploads in flight right now (for tests and metrics). */
  get active(): number {
    return this.inFlight;
  }
}

/** A user counts as the user, whatever client or profile they call through; an application as its client. */
function principalKey(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user.id}` : `client:${principal.client.id}`;
}
