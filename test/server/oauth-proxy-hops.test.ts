import t from 'tap';
import { dialect, startTestServer } from '../helpers/server.js';
import { loadConfig } from '../../server/config.js';

/**
 * Issue 13 item 10: behind trusted proxies, the client address is the X-Forwarded-For entry
 * FIELDOPS_TRUST_PROXY_HOPS from the right; entries further left are the client's own writing.
 * The old code took the left-most entry, so an attacker rotated it to get a fresh per-address
 * budget on every guess (here: 12 guesses, all 400, no 429).
 */
const guess = (url: string, forwardedFor: string, i: number) =>
  fetch(`${url}/oauth2/token/`, {
    method: 'POST',
    headers: { 'X-Forwarded-For': forwardedFor },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username: `user-${i}`, password: 'wrong-guess' }),
  }).then((response) => response.status);

t.test(`the per-address throttle cannot be dodged by a forged X-Forwarded-For (${dialect})`, async (t) => {
  await t.test('one proxy (the default hop count)', async (t) => {
    const s = await startTestServer(t, { env: { FIELDOPS_TRUST_PROXY: 'true', FIELDOPS_THROTTLE_PER_ADDRESS: '3' } });
    if (!s) return;
    const statuses = [];
    // The client forges a fresh left-most entry each time; the proxy appended the real 198.51.100.7.
    for (let i = 0; i < 6; i++) statuses.push(await guess(s.url, `203.0.113.${i}, 198.51.100.7`, i));
    t.same(statuses, [400, 400, 400, 429, 429, 429]);
    t.equal(await guess(s.url, '198.51.100.8', 99), 400, 'another real client has its own budget');
    const keys = (await s.server.runtime.database.knex('auth_failures').where('scope_key', 'like', 'addr:%').select('scope_key')).map((row) => row.scope_key).sort();
    t.same(keys, ['addr:198.51.100.7', 'addr:198.51.100.8'], 'only the proxy-written addresses are counted');
  });

  await t.test('two proxies', async (t) => {
    const s = await startTestServer(t, { env: { FIELDOPS_TRUST_PROXY: 'true', FIELDOPS_TRUST_PROXY_HOPS: '2', FIELDOPS_THROTTLE_PER_ADDRESS: '2' } });
    if (!s) return;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await guess(s.url, `10.9.9.${i}, 198.51.100.9, 10.0.0.2`, i));
    t.same(statuses, [400, 400, 429, 429], 'the client is the entry two from the right');
  });

  await t.test('not trusting a proxy: the header is ignored', async (t) => {
    const s = await startTestServer(t, { env: { FIELDOPS_THROTTLE_PER_ADDRESS: '2' } });
    if (!s) return;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await guess(s.url, `198.51.100.${i}`, i));
    t.same(statuses, [400, 400, 429]);
  });
});

t.test('configuration: hop count and the connection cap default', async (t) => {
  t.equal(loadConfig({}).trustProxyHops, 1);
  t.equal(loadConfig({ FIELDOPS_TRUST_PROXY_HOPS: '3' }).trustProxyHops, 3);
  t.throws(() => loadConfig({ FIELDOPS_TRUST_PROXY_HOPS: '0' }), /FIELDOPS_TRUST_PROXY_HOPS/);
  t.equal(loadConfig({}).maxConnectionsPerAddress, 128, 'capped by default when clients connect directly');
  t.equal(loadConfig({ FIELDOPS_TRUST_PROXY: 'true' }).maxConnectionsPerAddress, 0, 'off behind a proxy (every connection is the proxy)');
  t.equal(loadConfig({ FIELDOPS_TRUST_PROXY: 'true', FIELDOPS_MAX_CONNECTIONS_PER_ADDRESS: '500' }).maxConnectionsPerAddress, 500);
});
