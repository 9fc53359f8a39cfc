import type { Principal } from '../context.js';

/**
 * A short-lived cache of resolved bearer tokens, so that the hot path (a 304 revalidation)
 * does not read the token, the user and the permissions from the database on every request.
 *
 * Contract: an entry lives at most `ttlMs` (and never past the token's own expiry, checked on
 * every hit). Revocations and permission changes made through this process clear the cache at
 * once; made through another process, they take effect here within `ttlMs`. `ttlMs = 0` turns
 * the cache off.
 *
 * Invalidation is by generation: `clear()` (called AFTER a revocation or a change of rights is
 * written) starts a new generation, and `set` refuses an entry whose load began in an older
 * one. So a request that read the token before the revocation committed, and finishes after the
 * clear, cannot put the revoked token back for the cache's lifetime.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; tokenExpiresAt: number; cachedAt: number }>();
  private current = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now: number): Principal | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (now - entry.cachedAt >= this.ttlMs || now >= entry.tokenExpiresAt) {
      this.entries.delete(key);
      return null;
    }
    return entry.principal;
  }

  /** Read before loading what will be cached, and passed to `set`. */
  generation(): number {
    return this.current;
  }

  /** Caches what was loaded in generation `loadedIn`, unless a clear happened since. */
  set(key: string, principal: Principal, tokenExpiresAt: number, now: number, loadedIn: number): void {
    if (this.ttlMs <= 0 || loadedIn !== this.current) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { principal, tokenExpiresAt, cachedAt: now });
  }

  /** Called on every revocation and every change of users' rights made in this process. */
  clear(): void {
    this.current += 1;
    this.entries.clear();
  }
}
