import type { Clock } from '../../db/time.js';
import type { ThrottleConfig } from '../../config.js';
import { OAuthError } from '../errors.js';
import type { ThrottleRepository } from '../ports.js';
import { GateBusyError } from '../../security/work-gate.js';
import type { SecretVerifier } from '../../security/crypto.js';

/** What is being authenticated: a user's password, or a confidential client's secret. */
export type CredentialKind = 'user' | 'client';

/** Whose failures are counted: a username, a confidential client_id, or a client address. */
export type ThrottledKind = CredentialKind | 'address';

/** A reserved attempt: a failure keeps it (it counts), a success gives it back. */
export interface ThrottledAttempt {
  succeeded(): Promise<void>;
}

/**
 * Throttles attempts to verify a secret (passwords and client secrets) per identity (username
 * or client_id) and per client address, in fixed windows kept in the database so that every
 * server process counts the same attempts.
 *
 * Contract: the attempt is reserved atomically BEFORE the secret is verified (one UPSERT per
 * key that counts and checks at once), so parallel guesses cannot all pass a check that has
 * not yet seen the others' failures: at most `limit` verifications run per key and window,
 * across processes. A success clears its identity's count and gives back its address slot; a
 * failure keeps both. The address count is shared by password and client-secret attempts.
 */
export class CredentialThrottle {
  constructor(
    private readonly repo: ThrottleRepository,
    private readonly config: ThrottleConfig,
    private readonly clock: Clock,
  ) {}

  /** Reserves one attempt on both keys, or throws 429 (with Retry-After) without verifying. */
  async attempt(kind: CredentialKind, identity: string, address: string): Promise<ThrottledAttempt> {
    const now = this.clock.now();
    const windowMs = this.config.windowSeconds * 1000;
    const identityKey = keyOf(kind, identity);
    const addressKey = keyOf('address', address);
    const limit = kind === 'user' ? this.config.perUsername : this.config.perClient;
    const onIdentity = await this.repo.reserve(identityKey, limit, now, now - windowMs);
    if (!onIdentity.allowed) throw this.tooMany(onIdentity.windowStart, now);
    const onAddress = await this.repo.reserve(addressKey, this.config.perAddress, now, now - windowMs);
    if (!onAddress.allowed) {
      // Not verified, so it is not a failure of this identity: give its slot back.
      await this.repo.release(identityKey, onIdentity.windowStart);
      throw this.tooMany(onAddress.windowStart, now);
    }
    return {
      succeeded: async () => {
        await this.repo.clear(identityKey);
        await this.repo.release(addressKey, onAddress.windowStart);
      },
    };
  }

  /**
   * Forgets the failures counted against a username, client_id or client address (an
   * administrator's unlock, or a password an administrator set): the next attempt starts a new
   * window, in every server process. Answers how many attempts the current window had counted
   * (a window that had ended counts none); those refused by a spent key count once, as
   * `reserve` does. Whether they had reached the limit is not said: that is the server's
   * setting, which the administrator's process may not share.
   */
  async forget(kind: ThrottledKind, identity: string): Promise<number> {
    const cleared = await this.repo.take(keyOf(kind, identity));
    if (!cleared || cleared.windowStart < this.clock.now() - this.config.windowSeconds * 1000) return 0;
    return cleared.failures;
  }

  private tooMany(windowStart: number, now: number): OAuthError {
    const retryAfter = Math.max(1, Math.ceil((windowStart + this.config.windowSeconds * 1000 - now) / 1000));
    return new OAuthError('temporarily_unavailable', 'Too many failed attempts. Try again later.', 429, retryAfter);
  }
}

/** Usernames are case-insensitive; client ids are not. Keys fit the 200-character column. */
const keyOf = (kind: ThrottledKind, identity: string) =>
  (kind === 'user' ? `user:${identity.toLowerCase()}` : kind === 'client' ? `client:${identity}` : `addr:${identity}`).slice(0, 200);

/**
 * One throttled, gated secret check: inside the scrypt gate (503 with Retry-After when it is
 * full, before anything is counted), the attempt is reserved (429 once spent), then `check`
 * runs; a pass gives the reservation back, a failure keeps it.
 */
export async function throttledCheck(
  deps: { throttle: CredentialThrottle; secrets: SecretVerifier },
  who: { kind: CredentialKind; identity: string; address: string },
  check: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await deps.secrets.run(who.address, async () => {
      const attempt = await deps.throttle.attempt(who.kind, who.identity, who.address);
      const passed = await check();
      if (passed) await attempt.succeeded();
      return passed;
    });
  } catch (error) {
    if (error instanceof GateBusyError) throw new OAuthError('temporarily_unavailable', error.message, 503, 1);
    throw error;
  }
}
