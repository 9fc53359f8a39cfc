import type { Principal } from '../context.js';

/**
 * A short-lived cache of resolved bearer tokens, so that the hot path (a 304 revalidation)
 * does not read the token, the user and the permissions from the database on every request.
 *
 * Contract: an entry lives at most `ttlMs` (and never past the token's own expiry, checked on
 * every hit). Revocations and permission changes made through this process clear the cache at
 * once; made through another process, they take effect here within `ttlMs`. `ttlMs = 0` turns
 * the cache off.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; tokenExpiresAt: number; cachedAt: number }>();

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

  set(key: string, principal: Principal, tokenExpiresAt: number, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { principal, tokenExpiresAt, cachedAt: now });
  }

  /** Called on every revocation and every change of users' rights made in this process. */
  clear(): void {
    this.entries.clear();
  }
}
