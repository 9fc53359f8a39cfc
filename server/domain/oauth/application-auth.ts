import { sha256Hex } from '../../security/crypto.js';
import type { Principal } from '../context.js';
import { AuthenticationError, OAuthError, TooManyRequestsError, UnavailableError } from '../errors.js';
import type { OAuthClient } from '../model.js';
import { confidentialSecretMatches } from './client-auth.js';
import type { OAuthDeps } from './deps.js';
import type { PrincipalCache } from './principal-cache.js';

/**
 * Application principals on API requests (`client_id` + secret by HTTP Basic or
 * `client_secret`, CONTRACT §2). A confidential client's secret is throttled and gated as at
 * the token endpoint: 429 once the client_id or the address has spent its attempts, 503 when
 * the scrypt gate is full, both in the API's error body with Retry-After.
 */
export class ApplicationAuthenticator {
  /** Checks in flight, by credentials and address. */
  private readonly inFlight = new Map<string, Promise<Principal>>();

  constructor(
    private readonly deps: OAuthDeps,
    private readonly principals: PrincipalCache,
  ) {}

  authenticate(clientId: string, secret: string | undefined, address: string): Promise<Principal> {
    // Keyed by a digest of the secret, never the secret: a wrong secret misses and is checked.
    const cacheKey = `app\u0000${clientId}\u0000${sha256Hex(secret ?? '')}`;
    const now = this.deps.clock.now();
    const cached = this.principals.get(cacheKey, now);
    if (cached) return Promise.resolve(cached);
    // A burst of requests with the same credentials from one address (a sensor gateway's first
    // batch) shares one check rather than spending a hash, and a gate place, each.
    const flightKey = `${cacheKey}\u0000${address}`;
    let flight = this.inFlight.get(flightKey);
    if (!flight) {
      flight = this.resolve(cacheKey, clientId, secret ?? '', address, now).finally(() => this.inFlight.delete(flightKey));
      this.inFlight.set(flightKey, flight);
    }
    return flight;
  }

  private async resolve(cacheKey: string, clientId: string, secret: string, address: string, now: number): Promise<Principal> {
    const loadedAt = this.principals.generation();
    const { repos } = this.deps.store;
    const client = await repos.clients.findByClientId(clientId);
    if (!client || client.tenantId === null) throw new AuthenticationError('Invalid client credentials.');
    if (client.secretHash !== null && !(await this.secretMatches(client, secret, address))) {
      throw new AuthenticationError('Invalid client credentials.');
    }
    const principal: Principal = { kind: 'application', tenantId: client.tenantId, client, permissions: new Set(await repos.clients.permissionsOf(client.id)), isSuperuser: false };
    this.principals.set(cacheKey, principal, Number.POSITIVE_INFINITY, now, loadedAt);
    return principal;
  }

  /** The token endpoint's check, with its refusals in the API's error body. */
  private async secretMatches(client: OAuthClient, secret: string, address: string): Promise<boolean> {
    try {
      return await confidentialSecretMatches(this.deps, client, secret, address);
    } catch (error) {
      if (error instanceof OAuthError && error.status === 429) throw new TooManyRequestsError(error.description, error.retryAfterSeconds ?? 1);
      if (error instanceof OAuthError && error.status === 503) throw new UnavailableError(error.description, error.retryAfterSeconds);
      throw error;
    }
  }
}
