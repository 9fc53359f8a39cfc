import t from 'tap';
import { PrincipalCache } from '../../server/domain/oauth/principal-cache.js';
import type { Principal } from '../../server/domain/context.js';
import { dialect, startTestServer } from '../helpers/server.js';

const principal = { kind: 'application', tenantId: 't', permissions: new Set<string>(), isSuperuser: false } as unknown as Principal;

t.test('PrincipalCache: ttl, token expiry, clear, size bound, off', async (t) => {
  const cache = new PrincipalCache(1000, 2);
  cache.set('a', principal, 5000, 0, 0);
  t.equal(cache.get('a', 999), principal, 'within the ttl');
  t.equal(cache.get('a', 1000), null, 'not at the ttl');
  cache.set('b', principal, 500, 0, 0);
  t.equal(cache.get('b', 500), null, 'never past the token expiry');
  cache.set('c', principal, 9999, 0, 0);
  cache.set('d', principal, 9999, 0, 0);
  cache.set('e', principal, 9999, 0, 0);
  t.equal(cache.get('c', 1), null, 'the oldest entry goes beyond the bound');
  t.equal(cache.get('e', 1), principal);
  cache.clear();
  t.equal(cache.get('e', 1), null, 'clear forgets everything');
  const loadedIn = cache.generation();
  cache.clear();
  cache.set('f', principal, 9999, 1, loadedIn);
  t.equal(cache.get('f', 1), null, 'an entry loaded before the last clear is refused');
  cache.set('f', principal, 9999, 1, cache.generation());
  t.equal(cache.get('f', 1), principal, 'one loaded after it is kept');
  const off = new PrincipalCache(0);
  off.set('a', principal, 9999, 0, 0);
  t.equal(off.get('a', 0), null, 'ttl 0 caches nothing');
});

t.test(`a token revoked by another process stops working within the cache ttl (${dialect})`, async (t) => {
  const s = await startTestServer(t, { env: { FIELDOPS_AUTH_CACHE_MS: '300' } });
  if (!s) return;
  const tokens = await s.login();
  t.equal((await s.json('/users/me', { token: tokens.access_token })).status, 200);
  // Revoke behind this process's back, as another server process would.
  await s.server.runtime.database.knex('oauth_access_tokens').update({ revoked_at: Date.now() });
  await new Promise((resolve) => setTimeout(resolve, 350));
  t.equal((await s.json('/users/me', { token: tokens.access_token })).status, 401);
});
