/**
 * OAuth's part of the composition root: the service with its guards, secrets checked inside a
 * WorkGate (FIELDOPS_SCRYPT_*, so guess floods cannot take libuv's thread pool), principals
 * cached for FIELDOPS_AUTH_CACHE_MS, and the login throttle.
 */
import type { Config } from './config.js';
import type { Clock } from './db/time.js';
import { PrincipalCache } from './domain/oauth/principal-cache.js';
import { OAuthService } from './domain/oauth/service.js';
import type { Store } from './domain/ports.js';
import type { Metrics } from './metrics/metrics.js';
import { SecretVerifier } from './security/crypto.js';
import { WorkGate } from './security/work-gate.js';

export function openOAuth(config: Config, deps: { store: Store; clock: Clock; metrics: Metrics }): OAuthService {
  return new OAuthService({
    store: deps.store,
    clock: deps.clock,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    authorizationCodeTtlSeconds: config.authorizationCodeTtlSeconds,
    passwordHashCost: config.passwordHashCost,
    throttle: config.throttle,
    secrets: new SecretVerifier(new WorkGate(config.scrypt.concurrency, config.scrypt.queue, config.scrypt.queuePerAddress)),
    principals: new PrincipalCache(config.authCacheMs),
    metrics: deps.metrics,
  });
}
