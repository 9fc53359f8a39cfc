import type { Clock } from '../../db/time.js';
import type { ThrottleConfig } from '../../config.js';
import { OAuthError } from '../errors.js';
import type { ThrottleRepository } from '../ports.js';

/**
 * Throttles failed password attempts per username and per client address, in fixed windows
 * kept in the database so that every server process counts the same failures.
 */
export class LoginThrottle {
  constructor(
    private readonly repo: ThrottleRepository,
    private readonly config: ThrottleConfig,
    private readonly clock: Clock,
  ) {}

  /** Throws 429 (with Retry-After) when either key has used up its attempts. */
  async check(username: string, address: string): Promise<void> {
    const now = this.clock.now();
    const windowStart = now - this.config.windowSeconds * 1000;
    for (const [key, limit] of this.keys(username, address)) {
      const state = await this.repo.failuresSince(key, windowStart);
      if (state && state.failures >= limit) {
        const retryAfter = Math.max(1, Math.ceil((state.windowStart + this.config.windowSeconds * 1000 - now) / 1000));
        throw new OAuthError('temporarily_unavailable', 'Too many failed login attempts. Try again later.', 429, retryAfter);
      }
    }
  }

  async recordFailure(username: string, address: string): Promise<void> {
    const now = this.clock.now();
    const windowStart = now - this.config.windowSeconds * 1000;
    for (const [key] of this.keys(username, address)) await this.repo.recordFailure(key, now, windowStart);
  }

  /** A successful login clears its username's count; the address count keeps running. */
  async recordSuccess(username: string): Promise<void> {
    await this.repo.clear(usernameKey(username));
  }

  private keys(username: string, address: string): Array<[string, number]> {
    return [
      [usernameKey(username), this.config.perUsername],
      [`addr:${address}`.slice(0, 200), this.config.perAddress],
    ];
  }
}

const usernameKey = (username: string) => `user:${username.toLowerCase()}`.slice(0, 200);
