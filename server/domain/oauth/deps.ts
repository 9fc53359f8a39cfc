import type { Clock } from '../../db/time.js';
import type { Store } from '../ports.js';
import type { SecretVerifier } from '../../security/crypto.js';
import type { CredentialThrottle } from './throttle.js';

/** What the OAuth functions share. */
export interface OAuthDeps {
  store: Store;
  clock: Clock;
  throttle: CredentialThrottle;
  /** scrypt through the bounded gate (see WorkGate). */
  secrets: SecretVerifier;
  ttl: { accessTtlSeconds: number; refreshTtlSeconds: number };
  authorizationCodeTtlSeconds: number;
  /** A hash of a random secret, spent on unknown usernames (timing). */
  decoyHash(): Promise<string>;
}

/** Counts what the token endpoint issues (injected by the composition root; a no-op by default). */
export interface OAuthMetrics {
  tokenIssued(grant: 'password' | 'refresh_token' | 'authorization_code'): void;
}
