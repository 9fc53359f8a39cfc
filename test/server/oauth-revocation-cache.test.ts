import t from 'tap';
import { ADMIN_PASSWORD, dialect, startTestServer } from '../helpers/server.js';
import { OAuthService } from '../../server/domain/oauth/service.js';
import { PrincipalCache } from '../../server/domain/oauth/principal-cache.js';
import { AuthenticationError } from '../../server/domain/errors.js';
import { SecretVerifier } from '../../server/security/crypto.js';
import { WorkGate } from '../../server/security/work-gate.js';
import { systemClock } from '../../server/db/time.js';
import type { Store, TokenRepository } from '../../server/domain/ports.js';

/**
 * Issue 13, suspicion (a), confirmed: revocation cleared the principal cache BEFORE writing
 * the revocation, so a request resolving the token in between re-cached it as valid for the
 * cache's whole lifetime (first test: on the old code the revoked token still authenticates).
 * A second path: a request that read the token before the revocation committed but cached it
 * after the clear (second test: same outcome on the old code). Now the cache is cleared after
 * the write, and an entry loaded before the last clear is refused.
 *
 * The interleavings are forced by holding the real repository's calls (real database) at the
 * point where the race opens; the service is the production OAuthService.
 */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

t.test(`a revoked token is never re-cached by a concurrent request (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const real = s.server.runtime.store;
  const holds: { revoke?: { entered: ReturnType<typeof deferred>; release: ReturnType<typeof deferred> }; read?: { entered: ReturnType<typeof deferred>; release: ReturnType<typeof deferred> } } = {};
  const tokens = new Proxy(real.repos.tokens, {
    get(target, property) {
      const value = Reflect.get(target, property) as (...args: unknown[]) => Promise<unknown>;
      if (property === 'revokeFamily') {
        return async (...args: unknown[]) => {
          const hold = holds.revoke;
          if (hold) {
            hold.entered.resolve();
            await hold.release.promise;
          }
          return value.apply(target, args);
        };
      }
      if (property === 'findAccessTokenWithOwner') {
        return async (...args: unknown[]) => {
          const found = await value.apply(target, args);
          const hold = holds.read;
          if (hold) {
            holds.read = undefined;
            hold.entered.resolve();
            await hold.release.promise;
          }
          return found;
        };
      }
      return value;
    },
  }) as TokenRepository;
  const store: Store = { ...real, repos: { ...real.repos, tokens } };
  const service = new OAuthService({
    store,
    clock: systemClock,
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlSeconds: 86400,
    authorizationCodeTtlSeconds: 60,
    passwordHashCost: 2 ** 12,
    throttle: { perUsername: 100, perAddress: 100, perClient: 100, windowSeconds: 900 },
    secrets: new SecretVerifier(new WorkGate(2, 32)),
    // A long lifetime, so that a wrongly cached entry is plainly visible.
    principals: new PrincipalCache(60_000),
  });
  const credentials = { basic: null, clientId: 'fieldops-cli', clientSecret: undefined };
  const rejectsAsInvalid = async (token: string) => {
    const outcome = await service.authenticateBearer(token, undefined).then(() => 'authenticated', (error: unknown) => error);
    return outcome instanceof AuthenticationError;
  };

  await t.test('a request between the start of the revocation and its write', async (t) => {
    const session = await s.login('admin', ADMIN_PASSWORD);
    holds.revoke = { entered: deferred(), release: deferred() };
    const revoking = service.revoke({ token: session.refresh_token }, credentials, '127.0.0.1');
    await holds.revoke.entered.promise;
    const during = await service.authenticateBearer(session.access_token, undefined);
    t.equal(during.kind, 'user', 'not yet revoked: the request in between is served');
    holds.revoke.release.resolve();
    await revoking;
    holds.revoke = undefined;
    t.ok(await rejectsAsInvalid(session.access_token), 'once revoke has answered, the token is refused (not served from the cache)');
  });

  await t.test('a read that began before the revocation and finishes after it', async (t) => {
    const session = await s.login('admin', ADMIN_PASSWORD);
    holds.read = { entered: deferred(), release: deferred() };
    const { release, entered } = holds.read;
    const slow = service.authenticateBearer(session.access_token, undefined);
    await entered.promise;
    await service.revoke({ token: session.refresh_token }, credentials, '127.0.0.1');
    release.resolve();
    t.equal((await slow).kind, 'user', 'the in-flight request read the token before the revocation');
    t.ok(await rejectsAsInvalid(session.access_token), 'but its result was not cached: the next request is refused');
  });
});
